import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import type { RouteEntry } from "../../src/platform/http/auth.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";

/**
 * Issue 6: hostile bodies on every writable route of the router (POST, PUT, DELETE) never
 * answer a 5xx, and every refusal is in the error shape. Runs per route: SECURITY_FUZZ_RUNS
 * (default 25, bounded for CI).
 */
const RUNS = Number(process.env.SECURITY_FUZZ_RUNS ?? 25);

const nested = (depth: number, inner: unknown): unknown =>
  Array.from({ length: depth }).reduce<unknown>((acc, _, i) => (i % 2 ? [acc] : { k: acc }), inner);

/** Text PostgreSQL refuses, text that looks like a value, and plain text. */
const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfff",
    "\udbff\udfff",
    "é",
    "💥",
    "%ff",
    "../../etc/passwd",
  ),
  fc.constantFrom(
    "2024-02-30",
    "2024-13-01",
    "0000-00-00",
    "9999-12-31",
    "1970-01-01T00:00:00Z",
    "2024-01-01",
  ),
  fc.constantFrom("individual", "company", "company/other", "guarantor", "DRAFT", "A", "G", "DPE"),
  fc.constantFrom("x@y.fr", "@", "a@b", "FR7630006000011234567890189", "BNPAFRPP", "NaN", "-1", "1e309"),
  fc.uuid(),
  fc.string({ minLength: 256, maxLength: 3000 }),
);

const hostileLeaf = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1 + 0.2, 1e-320),
  fc.boolean(),
  fc.constant(null),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileLeaf },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileLeaf, { maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.array(hostileLeaf, { maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 200 }).chain((d) => hostileLeaf.map((v) => nested(d, v))),
  },
  // Unstorable text deep down: where the text check used to stop looking (issue 6).
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 120 }), fc.constantFrom("\u0000", "\ud800", "a\udc00"))
      .map(([d, v]) => nested(d, v)),
  },
);

/** Bodies built on the route's own field names (from its OpenAPI schema), or anything at all. */
const bodyArb = (fields: string[], array: boolean) => {
  const record = fc.dictionary(
    fields.length
      ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fields) }, hostileString)
      : hostileString,
    hostileValue,
    { maxKeys: fields.length + 2 },
  );
  return fc.oneof(
    { weight: 5, arbitrary: array ? fc.array(record, { maxLength: 4 }) : record },
    { weight: 1, arbitrary: fc.array(record, { maxLength: 3 }) },
    { weight: 1, arbitrary: hostileValue },
  );
};

/** A valid body with one field (or a free-form key) made hostile: reaches the deciders. */
const spoiledArb = (base: Record<string, unknown>, fields: string[]) =>
  fc
    .tuple(fc.constantFrom(...fields, "custom_fields"), hostileValue, fc.boolean())
    .map(([field, value, freeForm]) => ({
      ...base,
      [field]: freeForm && field === "custom_fields" ? { note: value } : value,
    }));

/** The raw request: JSON of the body, or text mangled on the way. */
const rawArb = (fields: string[], array: boolean, base: Record<string, unknown> | undefined) =>
  fc.oneof(
    { weight: 6, arbitrary: bodyArb(fields, array).map((b) => JSON.stringify(b) ?? "null") },
    ...(base
      ? [
          {
            weight: 6,
            arbitrary: spoiledArb(base, fields.length ? fields : Object.keys(base)).map((b) =>
              JSON.stringify(array ? [b] : b),
            ),
          },
        ]
      : []),
    {
      weight: 1,
      arbitrary: fc.tuple(bodyArb(fields, array), fc.nat()).map(([b, cut]) => {
        const text = JSON.stringify(b) ?? "null";
        return text.slice(0, cut % (text.length + 1));
      }),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary" }) },
  );

const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const headersArb = fc
  .record({
    "content-type": fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "text/plain",
          "multipart/form-data",
          "application/x-www-form-urlencoded",
          "application/json; boundary=x",
        ),
      },
    ),
    "if-match": rarely(
      fc.oneof(fc.constantFrom('W/"0"', '"0"', "*", 'W/"-1"', 'W/"99999999999999999999"'), fc.string()),
    ),
    "idempotency-key": rarely(fc.oneof(fc.uuid(), fc.string({ maxLength: 300 }))),
  })
  .map(
    (h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
  );

/** Printable ASCII only in header values: anything else is refused by the HTTP client itself. */
const headerSafe = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace(/[^\x20-\x7e]/g, "?")]));

describe.each(databaseKinds)("hostile bodies on every writable route on %s", (kind) => {
  let t: TestApp;
  let ids: Record<string, string>;
  /** A valid body per resource (the last named segment of the route without a parameter after it). */
  let bases: Record<string, Record<string, unknown>>;
  let doc: {
    paths: Record<
      string,
      Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>
    >;
  };
  const totals = { routes: 0, requests: 0, refused: 0 };
  const statuses = new Map<number, number>();
  beforeAll(async () => {
    t = await createTestApp(kind);
    const post = async (url: string, body: unknown) => {
      const res = await t.request("POST", url, { body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const place = await post("/api/places", { name: "Résidence" });
    const estate = await post(`/api/places/${place}/estates`, {
      name: "Lot 1",
      estate_type_id: globalTypeIds.estate.apartment,
      area: 40,
      fiscal_identifier: "F-1",
    });
    bases = {
      places: { name: "Résidence" },
      estates: {
        name: "Lot",
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        fiscal_identifier: "F-2",
      },
      rooms: { name: "Chambre", room_type_id: globalTypeIds.room.bedroom },
      lessees: { category: "individual", email: "base@example.fr", first_name: "Ana", last_name: "Lyse" },
      owners: {
        category: "individual",
        email: "base-owner@example.fr",
        first_name: "Paul",
        last_name: "Roi",
      },
      tenants: { name: "Fuzz tenant" },
    };
    ids = {
      places: place,
      estates: estate,
      rooms: await post(`/api/places/${place}/estates/${estate}/rooms`, {
        name: "Cuisine",
        room_type_id: globalTypeIds.room.kitchen,
      }),
      lessees: await post("/api/lessees", {
        category: "individual",
        email: "fuzz@example.fr",
        first_name: "Ana",
        last_name: "Lyse",
      }),
      owners: await post("/api/owners", {
        category: "individual",
        email: "owner@example.fr",
        first_name: "Paul",
        last_name: "Roi",
      }),
      tenants: t.tenant.id,
    };
    doc = (await t.request("GET", "/api/openapi.json", { as: null })).json();
  });
  afterAll(async () => {
    await t?.close();
    console.log(
      `hostile bodies on ${kind}: ${totals.routes} writable routes, ${totals.requests} requests, ${totals.refused} refused (4xx), no 5xx; by status ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  });

  /** A path parameter: the fixture of the resource named by the segment before it, else a UUID. */
  const pathOf = (url: string) =>
    url.replace(
      /([a-z-]+)\/:[A-Za-z_]+/g,
      (_, segment: string) => `${segment}/${ids[segment] ?? crypto.randomUUID()}`,
    );

  /** The route's top-level body fields, from the OpenAPI document generated from its zod schema. */
  const fieldsOf = (route: RouteEntry): { fields: string[]; array: boolean } => {
    const path = route.url.replace(/:([A-Za-z_]+)/g, "{$1}");
    const schema = doc.paths[path]?.[route.method.toLowerCase()]?.requestBody?.content?.["application/json"]
      ?.schema as { type?: string; properties?: object; items?: { properties?: object } } | undefined;
    if (!schema) return { fields: [], array: false };
    const properties = schema.type === "array" ? schema.items?.properties : schema.properties;
    return { fields: Object.keys(properties ?? {}), array: schema.type === "array" };
  };

  it("answers no 5xx and every refusal in the error shape", async () => {
    const writable = t.app.routeTable.filter((r) => ["POST", "PUT", "DELETE", "PATCH"].includes(r.method));
    expect(writable.length).toBeGreaterThan(20);
    for (const route of writable) {
      totals.routes++;
      const { fields, array } = fieldsOf(route);
      const resource = /([a-z-]+)(?:\/bulk)?(?:\/:[A-Za-z_]+)?$/.exec(route.url)?.[1] ?? "";
      const base = route.method === "DELETE" ? undefined : bases[resource];
      const authorization = `Bearer ${route.access === "admin" ? TEST_ADMIN_KEY : t.tenant.key}`;
      await fc.assert(
        fc.asyncProperty(rawArb(fields, array, base), headersArb, async (payload, headers) => {
          const url = pathOf(route.url);
          const res = await t.app.inject({
            method: route.method as "POST",
            url,
            payload,
            headers: { ...headerSafe(headers), authorization },
          });
          totals.requests++;
          if (res.statusCode >= 400) totals.refused++;
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          expect(res.statusCode, `${route.method} ${url} ${payload.slice(0, 500)}: ${res.body}`).toBeLessThan(
            500,
          );
          // The pages (docs/portal.md) answer people in HTML; the API in the error shape.
          if (route.url.startsWith("/api/")) expectErrorShape(res);
        }),
        { numRuns: RUNS },
      );
    }
  }, 600_000);
});
