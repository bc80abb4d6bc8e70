import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/testDatabase.ts";
import {
  expectEverythingProjected,
  failureOf,
  type RouteSuite,
  startRouteSuite,
  valueArb,
} from "./routeBodies.ts";

/**
 * Issue 38: no event a projection cannot apply is ever appended. Bodies generated from each
 * POST and PUT route's own schema (the API description of the router), the bounds included,
 * go to the route; whatever is accepted (2xx) must project: the read models pass the log's
 * head, no projection records an error, readiness stays 200. COMMAND_RUNS bodies per route
 * (default 6, bounded for CI).
 */
const RUNS = Number(process.env.COMMAND_RUNS ?? 6);

describe.each(databaseKinds)("accepted commands project on %s", (kind) => {
  let suite: RouteSuite;
  const statuses = new Map<number, number>();
  beforeAll(async () => {
    suite = await startRouteSuite(kind);
  });
  afterAll(async () => {
    await suite?.t.close();
    console.log(`accepted commands on ${kind}: by status ${JSON.stringify(Object.fromEntries(statuses))}`);
  });

  it("every 2xx of a generated command projects, and no generated command is a 5xx", async () => {
    const { routes, doc, fixtures, t } = suite;
    expect(routes.length).toBeGreaterThan(60);
    let accepted = 0;
    const failures: string[] = [];
    for (const { route, schema } of routes) {
      const run = fc.assert(
        fc.asyncProperty(valueArb(doc, schema, fixtures), async (body) => {
          const { url, res } = await suite.send(route, JSON.stringify(body));
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          expect(res.statusCode, `${route.method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBeLessThan(
            500,
          );
          if (res.statusCode < 300) accepted++;
        }),
        { numRuns: RUNS },
      );
      // Every route runs: one failing route must not hide the others'.
      await run.catch((error: Error) => failures.push(failureOf(route, error)));
    }
    expect(failures).toEqual([]);
    // The generator must reach the deciders, or the property proves nothing.
    expect(accepted).toBeGreaterThan(routes.length / 4);
    await expectEverythingProjected(t);
  }, 300_000);
});
