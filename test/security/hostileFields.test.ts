import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinPath } from "../../src/platform/validation.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";
import {
  expectEverythingProjected,
  failureOf,
  leavesOf,
  type RouteSuite,
  spoilersOf,
  startRouteSuite,
  valueArb,
  withLeaf,
} from "./routeBodies.ts";

/**
 * Issue 38: every POST and PUT of the route table, with a body made from its own schema and one
 * typed leaf spoiled (a wrong type, a number past its bounds or with a decimal too many, 1e-9 €,
 * year 0 and 9999, 2025-02-30, NUL, lone surrogates, a text one character too long), and with
 * raw hostile JSON (deep nesting, `__proto__`): no 5xx, no spoiled body accepted (where the
 * unspoiled body is accepted, the refusal names the spoiled field), no projection error.
 * SPOIL_RUNS bodies per route (default 5, bounded for CI).
 */
const RUNS = Number(process.env.SPOIL_RUNS ?? 5);

const nested = (depth: number) => `${'{"k":['.repeat(depth)}1${"]}".repeat(depth)}`;

/** Raw payloads around a valid body: prototype keys, depth, numbers JSON reads as Infinity. */
const rawHostile = (base: unknown): string[] => {
  const json = JSON.stringify(base);
  const inside = (member: string) =>
    json.startsWith("{") && json !== "{}" ? `{${member},${json.slice(1)}` : `{${member}}`;
  return [
    inside('"__proto__":{"polluted":true}'),
    inside('"constructor":{"prototype":{"polluted":true}}'),
    inside('"\\ud800":1'),
    inside('"k":1e400'),
    nested(400),
  ];
};

describe.each(databaseKinds)("hostile fields on every POST and PUT on %s", (kind) => {
  let suite: RouteSuite;
  const totals = { requests: 0, refusedWithField: 0 };
  beforeAll(async () => {
    suite = await startRouteSuite(kind);
  });
  afterAll(async () => {
    await suite?.t.close();
    console.log(
      `hostile fields on ${kind}: ${totals.requests} requests, ${totals.refusedWithField} spoiled leaves of accepted bodies refused on their field`,
    );
  });

  it("answers no 5xx, accepts no spoiled field, and leaves every projection healthy", async () => {
    const { routes, doc, fixtures, t } = suite;
    expect(routes.length).toBeGreaterThan(60);
    const failures: string[] = [];
    for (const { route, schema } of routes) {
      const send = async (payload: string) => {
        const { url, res } = await suite.send(route, payload);
        totals.requests++;
        expect(res.statusCode, `${route.method} ${url} ${payload.slice(0, 300)}: ${res.body}`).toBeLessThan(
          500,
        );
        expectErrorShape(res);
        return res;
      };
      type Spoiled = { body: unknown; path: (string | number)[] | null; value: unknown };
      const spoiled = valueArb(doc, schema, fixtures).chain((body): fc.Arbitrary<Spoiled> => {
        const leaves = leavesOf(doc, schema, body);
        if (leaves.length === 0) return fc.constant({ body, path: null, value: null });
        return fc
          .constantFrom(...leaves)
          .chain((leaf) =>
            fc.constantFrom(...spoilersOf(leaf)).map((value) => ({ body, path: leaf.path, value })),
          );
      });
      const run = fc.assert(
        fc.asyncProperty(spoiled, async ({ body, path, value }) => {
          for (const raw of rawHostile(body)) {
            const res = await send(raw);
            if (raw.includes("__proto__")) expect(res.statusCode, res.body).toBe(400);
          }
          if (!path) return;
          const refused = await send(JSON.stringify(withLeaf(body, path, value)));
          expect(
            refused.statusCode,
            `accepted ${JSON.stringify(value)} at ${joinPath("", path)}`,
          ).toBeGreaterThanOrEqual(400);
          const accepted = await send(JSON.stringify(body));
          if (accepted.statusCode >= 300) return;
          // The body was fine but for the spoiled leaf: the refusal is a 400 that names it.
          expect(refused.statusCode, refused.body).toBe(400);
          const fields = (refused.json().details ?? []).map((d: { field: string }) => d.field);
          expect(fields, `${JSON.stringify(value)} at ${joinPath("", path)}: ${refused.body}`).toContain(
            joinPath("", path) || "body",
          );
          totals.refusedWithField++;
        }),
        { numRuns: RUNS },
      );
      await run.catch((error: Error) => failures.push(failureOf(route, error)));
    }
    expect(failures).toEqual([]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(totals.refusedWithField).toBeGreaterThan(routes.length / 4);
    await expectEverythingProjected(t);
  }, 300_000);
});
