import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteEntry } from "../../src/platform/http/auth.ts";
import { ALL_PERMISSIONS, createWorkerKey } from "../../src/platform/tenants/tenants.ts";
import { startTestProvider, type TestProvider } from "../support/identityProvider.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";

/**
 * Issue 6: for every route the router holds, every credential and disguised spellings of its
 * path, the answer is never more permissive than for the plain path. Runs per route and
 * credential: SECURITY_PROPERTY_RUNS (default 12, bounded for CI).
 */
const RUNS = Number(process.env.SECURITY_PROPERTY_RUNS ?? 12);

type Credential =
  | "none"
  | "tenant without the permission"
  | "tenant with it"
  | "admin"
  | "worker"
  | "owner token"
  | "lessee token";
const CREDENTIALS: Credential[] = [
  "none",
  "tenant without the permission",
  "tenant with it",
  "admin",
  "worker",
  // User tokens of the tenant's provider (docs/security.md, "User tokens"); the lessee's has every scope.
  "owner token",
  "lessee token",
];

/**
 * 0: refused (401, 403, or the router found no route or no valid URL); 1: reached the route
 * (another 4xx); 2: succeeded. `beforeRoute` tells the router's 404/400 from a handler's.
 */
function rank(res: LightMyRequestResponse, beforeRoute: boolean): number {
  if (res.statusCode < 400) return 2;
  if (res.statusCode === 401 || res.statusCode === 403 || beforeRoute) return 0;
  return 1;
}

const hex = (c: string, upper: boolean) => {
  const bytes = Buffer.from(c, "utf8");
  const s = [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  return upper ? s.toUpperCase() : s.toLowerCase();
};

type Op =
  | { kind: "encode"; at: number; upper: boolean }
  | { kind: "doubleSlash" | "dot" | "dotdot" | "params" | "upper"; at: number }
  | { kind: "encodedSlash"; at: number; upper: boolean }
  | { kind: "trailing" };

/** The indexes of the path's slashes. */
const slashes = (path: string) => [...path].flatMap((c, i) => (c === "/" ? [i] : []));

function applyOp(path: string, op: Op): string {
  const s = slashes(path);
  const pick = (at: number, from = 0) => s[from + (at % Math.max(1, s.length - from))] ?? s[0];
  switch (op.kind) {
    case "encode": {
      const i = op.at % path.length;
      return path.slice(0, i) + hex(path[i], op.upper) + path.slice(i + 1);
    }
    case "doubleSlash": {
      const i = pick(op.at);
      return `${path.slice(0, i)}/${path.slice(i)}`;
    }
    case "dot": {
      const i = pick(op.at);
      return `${path.slice(0, i)}/.${path.slice(i)}`;
    }
    case "dotdot": {
      const i = pick(op.at);
      return `${path.slice(0, i)}/x/..${path.slice(i)}`;
    }
    case "encodedSlash": {
      const i = pick(op.at, 1);
      return `${path.slice(0, i)}${op.upper ? "%2F" : "%2f"}${path.slice(i + 1)}`;
    }
    case "params": {
      const ends = [...s.slice(1), path.length];
      const i = ends[op.at % ends.length];
      return `${path.slice(0, i)};jsessionid=1${path.slice(i)}`;
    }
    case "upper": {
      const i = pick(op.at);
      const end = path.indexOf("/", i + 1) === -1 ? path.length : path.indexOf("/", i + 1);
      return path.slice(0, i) + path.slice(i, end).toUpperCase() + path.slice(end);
    }
    case "trailing":
      return `${path}/`;
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("encode" as const), at: fc.nat(), upper: fc.boolean() }),
  fc.record({ kind: fc.constant("encode" as const), at: fc.nat(), upper: fc.boolean() }),
  fc.record({
    kind: fc.constantFrom("doubleSlash" as const, "dot" as const, "dotdot" as const, "params" as const),
    at: fc.nat(),
  }),
  fc.record({ kind: fc.constant("upper" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("encodedSlash" as const), at: fc.nat(), upper: fc.boolean() }),
  fc.constant({ kind: "trailing" as const }),
);
const disguiseArb = (path: string) =>
  fc
    .array(opArb, { minLength: 1, maxLength: 3 })
    // Dot-dot segments go in last: after them, an encoded slash could join the inserted segment to
    // its neighbour ("lessee%2fx/.."), and ".." would then remove a real segment: another path
    // (RFC 3986 §5.2.4), not a disguise of this one.
    .map((ops) => [...ops.filter((o) => o.kind !== "dotdot"), ...ops.filter((o) => o.kind === "dotdot")])
    .map((ops) => ops.reduce(applyOp, path))
    .filter((p) => p !== path);

/** The plain path of a route: each parameter a fresh UUID, a wildcard one segment. */
const plainPath = (url: string) => url.replace(/:[A-Za-z_]+/g, () => crypto.randomUUID()).replace(/\*$/, "x");

describe.each(databaseKinds)("route x credential x disguise on %s", (kind) => {
  const totals = { routes: 0, plain: 0, disguised: 0 };
  let t: TestApp;
  const lacking = new Map<string, string>();
  let workerKey: string;
  let idp: TestProvider;
  const tokens = { owner: "", lessee: "" };
  beforeAll(async () => {
    t = await createTestApp(kind);
    workerKey = (await createWorkerKey(t.sql, t.tenant.id, "disguise")).key;
    idp = await startTestProvider();
    const registered = await t.app.inject({
      method: "PUT",
      url: `/api/admin/tenants/${t.tenant.id}/identity-provider`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
      payload: JSON.stringify({ issuer: idp.issuer, jwks_uri: idp.jwks_uri, audience: idp.audience }),
    });
    expect(registered.statusCode, registered.body).toBe(200);
    tokens.owner = await idp.sign({ roles: ["owner"] }, { expiresIn: "2h" });
    tokens.lessee = await idp.sign(
      { roles: ["lessee"], scope: "lessee:leases:read lessee:leases:sign lessee:leases:download" },
      { expiresIn: "2h" },
    );
    for (const permission of ALL_PERMISSIONS) {
      const key = await t.newTenant(
        undefined,
        ALL_PERMISSIONS.filter((p) => p !== permission),
      );
      lacking.set(permission, key.key);
    }
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
    console.log(
      `route x credential x disguise on ${kind}: ${totals.routes} routes, ${CREDENTIALS.length} credentials, ${totals.plain} plain and ${totals.disguised} disguised requests`,
    );
  });

  const headersOf = (credential: Credential, route: RouteEntry): Record<string, string> => {
    switch (credential) {
      case "none":
        return {};
      case "tenant without the permission":
        return { authorization: `Bearer ${lacking.get(route.access ?? "") ?? t.tenant.key}` };
      case "tenant with it":
        return { authorization: `Bearer ${t.tenant.key}` };
      case "admin":
        return { authorization: `Bearer ${TEST_ADMIN_KEY}` };
      case "worker":
        return { "x-api-key": workerKey };
      case "owner token":
        return { authorization: `Bearer ${tokens.owner}` };
      case "lessee token":
        return { authorization: `Bearer ${tokens.lessee}` };
    }
  };

  const send = (route: RouteEntry, url: string, headers: Record<string, string>) =>
    t.app.inject({
      method: route.method as "GET",
      url,
      headers:
        route.method === "GET" || route.method === "HEAD"
          ? headers
          : { ...headers, "content-type": "application/json" },
      payload: route.method === "GET" || route.method === "HEAD" ? undefined : "{}",
    });

  /** Whether the router refused the URL (no route, bad encoding): asked as GET where HEAD has no body. */
  const beforeRoute = async (
    route: RouteEntry,
    url: string,
    res: LightMyRequestResponse,
    headers: Record<string, string>,
  ) => {
    if (res.statusCode !== 404 && res.statusCode !== 400) return false;
    const answer = route.method === "HEAD" ? await t.app.inject({ method: "GET", url, headers }) : res;
    // A page's refusal (HTML, docs/portal.md) comes from its handler, never from the router.
    if (!String(answer.headers["content-type"] ?? "").includes("json")) return false;
    const body = answer.json();
    // Path parameters are checked after the route's access (onRequest): a credential refused on a
    // route never sees its parameters' 400, so that 400 comes from another route the disguise
    // reached, one the credential may use (/api/leases/<id>%2frent-calls is GET /api/leases/:lease_id,
    // LeasesRead, for a key lacking FinanceRead: docs/design.md §7.1 nests Finance routes under /api/leases).
    if (body.error === "ValidationError" && body.message === "Invalid path parameters") return true;
    return body.error === "NotFound"
      ? /^Route /.test(body.message)
      : body.error === "ValidationError" && body.details?.[0]?.field === "url";
  };

  it("takes its routes from the router", () => {
    expect(t.app.routeTable.length).toBeGreaterThan(50);
    expect(t.app.routeTable.map((r) => `${r.method} ${r.url}`)).toContain("GET /api/admin/tenants");
  });

  // Built lazily: the route table exists once the app is ready.
  it("never answers a disguised path more permissively than the plain one", async () => {
    for (const route of t.app.routeTable) {
      totals.routes++;
      const plain = plainPath(route.url);
      for (const credential of CREDENTIALS) {
        const headers = headersOf(credential, route);
        const expected = await send(route, plain, headers);
        totals.plain++;
        expect(expected.statusCode, `${route.method} ${plain} as ${credential}`).toBeLessThan(500);
        // The pages (docs/portal.md) answer people in HTML; the API in the error shape.
        const shaped = route.method !== "HEAD" && route.url.startsWith("/api/");
        if (shaped) expectErrorShape(expected);
        const plainRank = rank(expected, await beforeRoute(route, plain, expected, headers));
        await fc.assert(
          fc.asyncProperty(disguiseArb(plain), async (url) => {
            totals.disguised++;
            const res = await send(route, url, headers);
            const where = `${route.method} ${url} as ${credential} (plain ${plain}: ${expected.statusCode})`;
            expect(res.statusCode, `${where}: ${res.body}`).toBeLessThan(500);
            if (shaped) expectErrorShape(res);
            const disguisedRank = rank(res, await beforeRoute(route, url, res, headers));
            expect(disguisedRank, `${where}: ${res.statusCode} ${res.body}`).toBeLessThanOrEqual(plainRank);
          }),
          { numRuns: RUNS },
        );
      }
    }
  }, 600_000);
});
