import fc from "fast-check";
import { expect } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import type { RouteEntry } from "../../src/platform/http/auth.ts";
import { DATE_MAX, DATE_MIN } from "../../src/platform/http/schemas.ts";
import { READ_ONLY_FIELDS } from "../../src/platform/validation.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import type { DatabaseKind } from "../support/testDatabase.ts";

/**
 * Commands generated from the route table (issue 38): each POST and PUT route's JSON body schema,
 * read from the API description the zod schemas give, turned into fast-check arbitraries of
 * bodies that follow it; the same schema tells which leaves a hostile value may spoil. Shared
 * by acceptedCommandsProject.test.ts and hostileFields.test.ts.
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  readOnly?: boolean;
  "x-decimals"?: number;
  "x-date-min"?: string;
  "x-date-max"?: string;
  not?: unknown;
};

export interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>
  >;
  components: { schemas: Record<string, JsonSchema> };
}

/** The fixtures the generated commands name: ids of a place, estate, room, lessee, owner, ACTIVE lease. */
export interface Fixtures {
  byName: Record<string, string>;
}

/** One of each resource a command may name, made through the API. */
export async function makeFixtures(t: TestApp): Promise<Fixtures> {
  const f = leaseFixtures(() => t);
  const { id: lease, estate_id: estate, primary_lessee_id: lessee } = await f.newLease();
  expect((await f.setStatus(lease, "ACTIVE")).statusCode).toBe(200);
  const post = async (url: string, body: unknown) => {
    const res = await t.request("POST", url, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const place = f.place() as string;
  const owner = await post("/api/owners", {
    category: "individual",
    email: "owner.fixture@example.fr",
    first_name: "Paul",
    last_name: "Roi",
  });
  const room = await post(`/api/places/${place}/estates/${estate}/rooms`, {
    name: "Cuisine",
    room_type_id: globalTypeIds.room.kitchen,
  });
  const byName: Record<string, string> = {
    place,
    places: place,
    estate,
    estates: estate,
    lease,
    leases: lease,
    lessee,
    lessees: lessee,
    primary_lessee: lessee,
    payer_lessee: lessee,
    owner,
    owners: owner,
    room,
    rooms: room,
    tenants: t.tenant.id,
    estate_type: globalTypeIds.estate.apartment,
    room_type: globalTypeIds.room.bedroom,
  };
  return { byName };
}

/** A fixture id for a field or path parameter (`estate_id`, `places/:id`), else a fresh UUID. */
const fixtureFor = (fixtures: Fixtures, name: string) => fixtures.byName[name.replace(/_ids?$/, "")];

/** The route's URL with its parameters filled from the fixtures. */
export const pathOf = (fixtures: Fixtures, url: string) =>
  url.replace(
    /([a-z-]+)\/:([A-Za-z_]+)/g,
    (_, segment: string, param: string) =>
      `${segment}/${fixtureFor(fixtures, param) ?? fixtureFor(fixtures, segment) ?? crypto.randomUUID()}`,
  );

/** The POST and PUT routes of the router whose body is JSON, with their body schema. */
export function jsonWriteRoutes(t: TestApp, doc: OpenApiDoc): { route: RouteEntry; schema: JsonSchema }[] {
  return t.app.routeTable
    .filter((r) => r.method === "POST" || r.method === "PUT")
    .map((route) => {
      const path = route.url.replace(/:([A-Za-z_]+)/g, "{$1}");
      const content = doc.paths[path]?.[route.method.toLowerCase()]?.requestBody?.content;
      return { route, schema: content?.["application/json"]?.schema };
    })
    .filter((r): r is { route: RouteEntry; schema: JsonSchema } => r.schema !== undefined)
    .filter(({ route }) => reachable(route));
}

/**
 * Routes a tenant key or the admin key opens: the others (worker keys, owners' and lessees' user
 * tokens) refuse before reading the body, so a body sent there proves nothing
 * (test/security/routeTokens.test.ts covers them).
 */
const reachable = (route: RouteEntry) =>
  typeof route.access === "string" &&
  !["worker", "owner"].includes(route.access) &&
  !route.access.startsWith("lessee");

export const authorizationOf = (t: TestApp, route: RouteEntry) =>
  `Bearer ${route.access === "admin" ? TEST_ADMIN_KEY : t.tenant.key}`;

export const resolve = (doc: OpenApiDoc, schema: JsonSchema): JsonSchema => {
  let s = schema;
  while (s.$ref) s = doc.components.schemas[s.$ref.replace("#/components/schemas/", "")] ?? {};
  return s;
};

/** Days within the bounds, the bounds themselves more often than chance would give them. */
const dayArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(DATE_MIN, DATE_MAX, "2024-02-29", "2025-01-01") },
  {
    weight: 3,
    arbitrary: fc
      .date({
        min: new Date(`${DATE_MIN}T00:00:00Z`),
        max: new Date(`${DATE_MAX}T00:00:00Z`),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  // Any real day of any year 0000-9999: what accepted must still project (year 0 once stopped all).
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
      )
      .map(
        ([y, m, d]) =>
          `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
      ),
  },
  // Around today: most rules (not after today, not before the lease) bite there.
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: -800, max: 30 })
      .map((n) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)),
  },
);

const numberArb = (s: JsonSchema) => {
  const decimals = s["x-decimals"];
  const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum : -1e6);
  const high = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum : 1e6);
  const inRange = (v: number) =>
    v >= low && v <= high && v !== s.exclusiveMinimum && v !== s.exclusiveMaximum;
  if (s.type === "integer" || decimals !== undefined) {
    const scale = 10 ** (decimals ?? 0);
    const min = Math.ceil(Math.max(low, -1e12) * scale);
    const max = Math.floor(Math.min(high, 1e12) * scale);
    return fc
      .oneof(
        fc.integer({ min, max }),
        fc.constantFrom(min, max, Math.min(max, Math.max(min, 1)), Math.min(max, Math.max(min, 80_000))),
      )
      .map((n) => n / scale)
      .filter(inRange);
  }
  return fc
    .oneof(
      fc.double({
        min: Math.max(low, -1e12),
        max: Math.min(high, 1e12),
        noNaN: true,
        noDefaultInfinity: true,
      }),
      fc.constantFrom(low, high, 1, 40.5),
    )
    .filter(inRange);
};

const stringArb = (s: JsonSchema, name: string, fixtures: Fixtures): fc.Arbitrary<unknown> => {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.format === "date") return dayArb;
  if (s.format === "date-time") return dayArb.map((d) => `${d}T12:00:00Z`);
  if (s.format === "uuid") {
    const known = fixtureFor(fixtures, name);
    return known
      ? fc.oneof({ weight: 4, arbitrary: fc.constant(known) }, { weight: 1, arbitrary: fc.uuid() })
      : fc.uuid();
  }
  if (s.format === "email") return fc.emailAddress();
  if (s.pattern && !s.format)
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 60));
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 40, 40));
  return fc.oneof(
    fc
      .string({ minLength, maxLength })
      .filter((v) => v.trim().length >= Math.min(minLength, 1) || minLength === 0),
    fc
      .constantFrom("Résidence du Parc", "x@example.fr", "FR7630006000011234567890189")
      .filter((v) => v.length >= minLength && v.length <= maxLength),
  );
};

/** Values that follow `schema` (what its JSON Schema says; zod's refinements may still refuse some). */
export function valueArb(
  doc: OpenApiDoc,
  schema: JsonSchema,
  fixtures: Fixtures,
  name = "",
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  const members = s.anyOf ?? s.oneOf;
  if (members) return fc.oneof(...members.map((m) => valueArb(doc, m, fixtures, name, depth)));
  if (s.allOf?.length) return valueArb(doc, s.allOf[0], fixtures, name, depth);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.type))
    return fc.oneof(...s.type.map((type) => valueArb(doc, { ...s, type }, fixtures, name, depth)));
  switch (s.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number":
      return numberArb(s);
    case "string":
      return stringArb(s, name, fixtures);
    case "array": {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 3, depth > 2 ? minLength : 3));
      return fc.array(valueArb(doc, s.items ?? {}, fixtures, name, depth + 1), { minLength, maxLength });
    }
    case "object": {
      if (!s.properties) return fc.constant({});
      const required = new Set(s.required ?? []);
      const shape = Object.fromEntries(
        Object.entries(s.properties)
          .filter(([key, p]) => !resolve(doc, p).readOnly || required.has(key))
          .map(([key, p]) => [key, valueArb(doc, p, fixtures, key, depth + 1)]),
      );
      return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The checkpoints' errors since `installProjectionErrorLog`: a trigger keeps each one set. */
export async function installProjectionErrorLog(t: TestApp) {
  await t.sql.query(`CREATE TABLE IF NOT EXISTS test_projection_errors (name text, error text, at timestamptz DEFAULT now());
    CREATE OR REPLACE FUNCTION test_log_projection_error() RETURNS trigger AS $$
    BEGIN INSERT INTO test_projection_errors (name, error) VALUES (NEW.name, NEW.last_error); RETURN NEW; END $$ LANGUAGE plpgsql;
    DROP TRIGGER IF EXISTS test_projection_errors ON projection_checkpoints;
    CREATE TRIGGER test_projection_errors AFTER UPDATE OF last_error ON projection_checkpoints
      FOR EACH ROW WHEN (NEW.last_error IS NOT NULL) EXECUTE FUNCTION test_log_projection_error();`);
}

/**
 * Everything appended so far projects: every projection passes the log's head within the bound,
 * no projection recorded an error on the way, and readiness answers 200.
 */
export async function expectEverythingProjected(t: TestApp) {
  const [head] = await t.sql.query<{ n: string }>("SELECT count(*)::text AS n FROM events");
  const position = await t.app.platform.store.headPosition();
  if (position)
    expect(await t.app.platform.projections.waitFor(position, 30_000), "projections caught up").toBe(true);
  const errors = await t.sql.query("SELECT name, error FROM test_projection_errors");
  expect(errors, `projection errors after ${head.n} events`).toEqual([]);
  const ready = await t.request("GET", "/api/health/ready", { as: null });
  expect(ready.statusCode, ready.body).toBe(200);
}

/** A leaf of a body the schema types: where it is, and the schema's non-null alternatives for it. */
export interface Leaf {
  path: (string | number)[];
  members: JsonSchema[];
}

const membersOf = (doc: OpenApiDoc, schema: JsonSchema): JsonSchema[] => {
  const s = resolve(doc, schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.flatMap((m) => membersOf(doc, m));
  if (Array.isArray(s.type)) return s.type.flatMap((type) => membersOf(doc, { ...s, type }));
  return s.type === "null" ? [] : [s];
};

/**
 * The typed leaves of `value` (a body that follows `schema`), read-only fields left out: those the
 * schema marks, and `id`, `created_at`, `updated_at`, `erased_at` of the body or of a bulk item,
 * which the validator drops before reading (docs/architecture.md §4).
 */
export function leavesOf(
  doc: OpenApiDoc,
  schema: JsonSchema,
  value: unknown,
  path: (string | number)[] = [],
): Leaf[] {
  const members = membersOf(doc, schema);
  if (members.some((m) => m.readOnly)) return [];
  const top = typeof path[0] === "number" ? path.slice(1) : path;
  if (top.length === 1 && (READ_ONLY_FIELDS as readonly unknown[]).includes(top[0])) return [];
  const object = members.find((m) => m.type === "object" && m.properties);
  if (object && value && typeof value === "object" && !Array.isArray(value))
    return Object.entries(value).flatMap(([key, v]) =>
      object.properties?.[key] ? leavesOf(doc, object.properties[key], v, [...path, key]) : [],
    );
  const array = members.find((m) => m.type === "array");
  if (array && Array.isArray(value))
    return value.flatMap((v, i) => leavesOf(doc, array.items ?? {}, v, [...path, i]));
  const typed = members.filter((m) => ["string", "number", "integer", "boolean"].includes(String(m.type)));
  return typed.length > 0 && typed.length === members.length ? [{ path, members: typed }] : [];
}

/** The day `n` days after `day` (YYYY-MM-DD, years below 1000 padded). */
const dayNext = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

const BAD_DAYS = [
  "2025-02-30",
  "0000-01-01",
  "9999-12-31",
  "1899-12-31",
  "2201-01-01",
  "2025-1-01",
  "20250101",
];

/** Values every alternative of the leaf refuses: its own kind made wrong, and other JSON types. */
export function spoilersOf(leaf: Leaf): unknown[] {
  const kinds = new Set(
    leaf.members.map((m) => (m.type === "string" ? (m.format ?? (m.enum ? "enum" : "text")) : m.type)),
  );
  const [m] = leaf.members;
  const out: unknown[] = [{ nested: { deeper: [1] } }, ["a"]];
  if (kinds.size !== 1) return out;
  const kind = [...kinds][0];
  if (kind !== "number" && kind !== "integer") out.push(12);
  if (kind !== "text" && kind !== "enum" && kind !== "date" && kind !== "date-time" && kind !== "uuid")
    out.push("12");
  switch (kind) {
    case "date":
      out.push(...BAD_DAYS);
      break;
    case "date-time": {
      // Out of the field's own bounds when it states them (a building's dates go back to 1000).
      const min = m["x-date-min"];
      const max = m["x-date-max"];
      const days = BAD_DAYS.slice(0, 5).map((d) =>
        d === "1899-12-31" && min ? dayNext(min, -1) : d === "2201-01-01" && max ? dayNext(max, 1) : d,
      );
      out.push(...days.map((d) => `${d}T10:00:00Z`), "2025-01-01T25:00:00Z");
      break;
    }
    case "uuid":
      out.push("not-a-uuid", "\u0000");
      break;
    case "enum":
      out.push("NOT_A_VALUE", "\ud800");
      break;
    case "text":
      out.push("\u0000", "a\u0000b", "a\ud800b", "\udfff");
      if (m.maxLength !== undefined && m.maxLength < 20_000) out.push("x".repeat(m.maxLength + 1));
      break;
    case "boolean":
      out.push("true", 1);
      break;
    case "number":
    case "integer": {
      const decimals = kind === "integer" ? 0 : m["x-decimals"];
      if (decimals !== undefined) out.push(1 + 10 ** -(decimals + 1), 10 ** -(decimals + 7), 0.1 + 0.2);
      if (decimals === 2) out.push(12.345, 1e-9);
      if (m.maximum !== undefined) out.push(m.maximum + 1, 1e308);
      if (m.exclusiveMaximum !== undefined) out.push(m.exclusiveMaximum);
      if (m.minimum !== undefined) out.push(m.minimum - 1, -1e308);
      if (m.exclusiveMinimum !== undefined) out.push(m.exclusiveMinimum);
      if (kind === "integer") out.push(2 ** 53 + 2, 1.5);
      break;
    }
  }
  return out;
}

/** `body` with the leaf at `path` replaced by `value`. */
export function withLeaf(body: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(body) ? [...body] : { ...(body as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = withLeaf(copy[head], rest, value);
  return copy;
}

/** A failed property in one line: the route, the counterexample and what the check said. */
export const failureOf = (route: RouteEntry, error: Error) =>
  `${route.method} ${route.url}: ${/Counterexample: (.*)/.exec(error.message)?.[1] ?? ""} -> ${
    (error.cause as Error | undefined)?.message?.split("\n")[0] ?? error.message.split("\n")[0]
  }`;

/** A service with the fixtures, the error log and its API description, and its JSON write routes. */
export interface RouteSuite {
  t: TestApp;
  fixtures: Fixtures;
  doc: OpenApiDoc;
  routes: { route: RouteEntry; schema: JsonSchema }[];
  /** The route with its path filled, `payload` as the JSON body, with the key the route takes. */
  send(
    route: RouteEntry,
    payload: string,
  ): Promise<{ url: string; res: Awaited<ReturnType<TestApp["app"]["inject"]>> }>;
}

export async function startRouteSuite(kind: DatabaseKind): Promise<RouteSuite> {
  const t = await createTestApp(kind);
  await installProjectionErrorLog(t);
  const fixtures = await makeFixtures(t);
  const doc: OpenApiDoc = (await t.request("GET", "/api/openapi.json", { as: null })).json();
  return {
    t,
    fixtures,
    doc,
    routes: jsonWriteRoutes(t, doc),
    async send(route, payload) {
      const url = pathOf(fixtures, route.url);
      const res = await t.app.inject({
        method: route.method as "POST",
        url,
        payload,
        headers: { "content-type": "application/json", authorization: authorizationOf(t, route) },
      });
      return { url, res };
    },
  };
}
