import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteEntry } from "../../src/platform/http/auth.ts";
import { LESSEE_SCOPES as SCOPES } from "../../src/platform/http/userTokens.ts";
import { startTestProvider, type TestProvider, unsignedToken } from "../support/identityProvider.ts";
import { type LesseeSpace, lesseeSpaceFixtures, startLesseeSpace } from "../support/lesseeSpace.ts";
import type { TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";

/**
 * Route x user token (docs/security.md, "User tokens"): every route of the router, tried with a
 * token of each role and each lessee scope, and with refused tokens. The expected decision is
 * written here from the route's declared access, not computed by the code under test: a route
 * added later is covered, and deny by default holds for it (a lessee token reaches only the
 * routes declaring a lessee scope). Then every route naming a lease, with a real lease the token
 * must not see: another lessee's, or another tenant's (404, nothing written).
 */

const LESSEE_SCOPES: readonly string[] = SCOPES;

type Outcome = "reached" | 401 | 403;

interface TokenCase {
  name: string;
  token: () => Promise<string>;
  expect(access: string): Outcome;
}

/** Only the routes declaring a tenant permission or a lessee scope take user tokens. */
const tokenRoute = (access: string) => !["public", "admin", "worker"].includes(access);
const isScope = (access: string) => LESSEE_SCOPES.includes(access);

describe.each(databaseKinds)("route x user token on %s", (kind) => {
  let t: TestApp;
  let space: LesseeSpace;
  /** The provider of `t.tenant`. */
  let idp: TestProvider;
  /** The provider of `t.other`: a registered issuer, of another tenant. */
  let otherIdp: TestProvider;
  /** Registered nowhere. */
  let stranger: TestProvider;
  const { as, leaseOfLessee, writesNothing } = lesseeSpaceFixtures(() => t);
  const counts = { routes: 0, requests: 0 };

  const staffOrRefused =
    (granted: (permission: string) => boolean) =>
    (access: string): Outcome => {
      if (!tokenRoute(access)) return 401;
      if (isScope(access)) return 403;
      return granted(access) ? "reached" : 403;
    };
  const lessee =
    (scopes: string[]) =>
    (access: string): Outcome =>
      !tokenRoute(access) ? 401 : isScope(access) && scopes.includes(access) ? "reached" : 403;
  const refused = (access: string): Outcome => (access === "public" ? "reached" : 401);

  const cases: TokenCase[] = [
    { name: "owner", token: () => idp.sign({ roles: ["owner"] }), expect: staffOrRefused(() => true) },
    {
      name: "manager",
      token: () => idp.sign({ roles: ["manager"] }),
      // Owner-only routes (buying credits) are refused to a manager whatever it may read or write.
      expect: staffOrRefused((p) => p !== "owner" && !p.endsWith("Delete")),
    },
    {
      name: "owner and lessee at once, every scope",
      token: () => idp.sign({ roles: ["owner", "lessee"], scope: LESSEE_SCOPES.join(" ") }),
      expect: (access) => (tokenRoute(access) ? "reached" : 401),
    },
    ...LESSEE_SCOPES.map((scope) => ({
      name: `lessee with ${scope}`,
      token: () => idp.sign({ roles: ["lessee"], scope }),
      expect: lessee([scope]),
    })),
    { name: "lessee without a scope", token: () => idp.sign({ roles: ["lessee"] }), expect: lessee([]) },
    {
      name: "no role, every scope",
      token: () => idp.sign({ roles: ["admin"], scope: LESSEE_SCOPES.join(" ") }),
      expect: staffOrRefused(() => false),
    },
    {
      name: "expired owner",
      token: () => idp.sign({ roles: ["owner"] }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      expect: refused,
    },
    {
      name: "owner for another audience",
      token: () => idp.sign({ roles: ["owner"] }, { audience: "another-service" }),
      expect: refused,
    },
    {
      name: "owner from an unregistered issuer",
      token: () => stranger.sign({ roles: ["owner"] }),
      expect: refused,
    },
    {
      name: "owner signed by an unregistered key, with the registered issuer",
      token: () => stranger.sign({ roles: ["owner"] }, { issuer: idp.issuer, audience: idp.audience }),
      expect: refused,
    },
    {
      name: "owner signed by this tenant's key, claiming another tenant's issuer and audience",
      token: () => idp.sign({ roles: ["owner"] }, { issuer: otherIdp.issuer, audience: otherIdp.audience }),
      expect: refused,
    },
    {
      name: "owner signed by another tenant's key, claiming this tenant's issuer",
      token: () => otherIdp.sign({ roles: ["owner"] }, { issuer: idp.issuer, audience: idp.audience }),
      expect: refused,
    },
    {
      name: "unsigned owner (alg none)",
      token: async () =>
        unsignedToken({
          iss: idp.issuer,
          aud: idp.audience,
          sub: "x",
          roles: ["owner", "lessee"],
          scope: LESSEE_SCOPES.join(" "),
          exp: Math.floor(Date.now() / 1000) + 600,
        }),
      expect: refused,
    },
  ];

  beforeAll(async () => {
    space = await startLesseeSpace(kind);
    ({ t, idp, otherIdp } = space);
    stranger = await startTestProvider();
  });
  afterAll(async () => {
    await space?.close();
    await stranger?.close();
    console.log(
      `route x user token on ${kind}: ${counts.routes} routes, ${cases.length} tokens, ${counts.requests} requests`,
    );
  });

  const send = (route: RouteEntry, token: string, params: Record<string, string> = {}) => {
    const url = route.url
      .replace(/:([A-Za-z_]+)/g, (_, name: string) => params[name] ?? crypto.randomUUID())
      .replace(/\*$/, "x");
    const body = route.method !== "GET" && route.method !== "HEAD";
    return t.app.inject({
      method: route.method as "GET",
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      payload: body ? "{}" : undefined,
    });
  };

  const outcomeOf = (res: LightMyRequestResponse): Outcome =>
    res.statusCode === 401 || res.statusCode === 403 ? res.statusCode : "reached";

  it("the route table has routes of every kind a token meets", () => {
    const kinds = new Set(t.app.routeTable.map((r) => (isScope(r.access ?? "") ? "scope" : r.access)));
    for (const k of ["public", "admin", "worker", "LeasesRead", "PropertiesDelete", "scope"])
      expect(kinds).toContain(k);
  });

  it.each(cases)(
    "$name: each route answers as its declared access says",
    async (c) => {
      const token = await c.token();
      counts.routes = t.app.routeTable.length;
      for (const route of t.app.routeTable) {
        const access = route.access ?? "";
        // Public routes ignore credentials; the docs' static files have no error shape to check.
        if (access === "public") continue;
        const res = await send(route, token);
        counts.requests++;
        const where = `${c.name} on ${route.method} ${route.url} (${access}): ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        expect(outcomeOf(res), where).toBe(c.expect(access));
        if (route.method !== "HEAD") expectErrorShape(res);
      }
    },
    300_000,
  );

  /** The routes a user token may reach that name a lease: the lessee's own, and the staff's. */
  const leaseRoutes = (lessee: boolean) =>
    t.app.routeTable.filter(
      (r) => r.url.includes(":lease_id") && tokenRoute(r.access ?? "") && isScope(r.access ?? "") === lessee,
    );

  /** A lease reached by a token that must not see it: 404 when read, never 2xx, nothing written. */
  const expectHidden = async (
    routes: RouteEntry[],
    token: string,
    lease: string,
    who: string,
    grants: (access: string) => boolean = () => true,
  ) => {
    await writesNothing(async () => {
      for (const route of routes) {
        const res = await send(route, token, { lease_id: lease });
        counts.requests++;
        const where = `${who} on ${route.method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        // A route may refuse the empty body or a missing query (400) before looking the lease up;
        // never more. A route naming only the lease must answer 404.
        if (!grants(route.access ?? "")) expect(res.statusCode, where).toBe(403);
        else if (/\/:lease_id$/.test(route.url)) expect(res.statusCode, where).toBe(404);
        else expect([400, 404], where).toContain(res.statusCode);
        if (res.statusCode === 400 && route.method !== "HEAD")
          expect(res.json().error, where).toBe("ValidationError");
        if (route.method !== "HEAD") expectErrorShape(res);
      }
    });
  };

  it("a lessee token on another lessee's lease, or on another tenant's: 404 on every lessee route naming a lease", async () => {
    const routes = leaseRoutes(true);
    expect(routes.length).toBeGreaterThan(0);
    const sub = `lessee-${crypto.randomUUID()}`;
    const mine = await leaseOfLessee(sub);
    const theirs = await leaseOfLessee(`lessee-${crypto.randomUUID()}`);
    // The same subject at another tenant's provider: a lessee there, not here.
    const elsewhere = await leaseOfLessee(sub, t.other);
    const scope = LESSEE_SCOPES.join(" ");
    const token = await idp.sign({ sub, roles: ["lessee"], scope });
    // Its own lease is found: the 404s below are the other leases', not the route's.
    const own = await t.request("GET", `/api/lessee/leases/${mine}`, { as: as(token) });
    expect(own.statusCode, own.body).toBe(200);
    await expectHidden(routes, token, theirs, "a lessee on another lessee's lease");
    await expectHidden(routes, token, elsewhere, "a lessee on its lease at another tenant");
    const there = await otherIdp.sign({ sub, roles: ["lessee"], scope });
    await expectHidden(routes, there, mine, "the same subject at another tenant's provider");
  }, 120_000);

  it("another tenant's owner and manager tokens on this tenant's lease: 404 on every route naming a lease", async () => {
    const routes = leaseRoutes(false);
    expect(routes.length).toBeGreaterThan(10);
    const lease = await leaseOfLessee(`lessee-${crypto.randomUUID()}`);
    for (const roles of [["owner"], ["manager"], ["owner", "lessee"]]) {
      const token = await otherIdp.sign({ roles, scope: LESSEE_SCOPES.join(" ") });
      // A manager is refused the delete and owner-only routes first (403), as on its own tenant.
      const grants = (access: string) =>
        roles.includes("owner") || (access !== "owner" && !access.endsWith("Delete"));
      await expectHidden(routes, token, lease, `another tenant's ${roles.join("+")}`, grants);
    }
    // This tenant's owner reaches the same lease: the 404s were the tenant's, not the route's.
    const mine = await idp.sign({ roles: ["owner"] });
    expect((await t.request("GET", `/api/leases/${lease}`, { as: as(mine) })).statusCode).toBe(200);
  }, 300_000);
});
