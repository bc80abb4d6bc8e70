import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteEntry } from "../../src/platform/http/auth.ts";
import { startTestProvider, type TestProvider, unsignedToken } from "../support/identityProvider.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";

/**
 * Route x user token (docs/security.md, "User tokens"): every route of the router, tried with a
 * token of each role and each lessee scope, and with refused tokens. The expected decision is
 * written here from the route's declared access, not computed by the code under test: a route
 * added later is covered, and deny by default holds for it (a lessee token reaches only the
 * routes declaring a lessee scope).
 */

const LESSEE_SCOPES = ["lessee:leases:read", "lessee:leases:sign", "lessee:leases:download"];

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
  let idp: TestProvider;
  let stranger: TestProvider;
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
    t = await createTestApp(kind);
    idp = await startTestProvider();
    stranger = await startTestProvider();
    const registered = await t.app.inject({
      method: "PUT",
      url: `/api/admin/tenants/${t.tenant.id}/identity-provider`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
      payload: JSON.stringify({ issuer: idp.issuer, jwks_uri: idp.jwks_uri, audience: idp.audience }),
    });
    expect(registered.statusCode, registered.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await stranger?.close();
    console.log(
      `route x user token on ${kind}: ${counts.routes} routes, ${cases.length} tokens, ${counts.requests} requests`,
    );
  });

  const send = (route: RouteEntry, token: string) => {
    const url = route.url.replace(/:[A-Za-z_]+/g, () => crypto.randomUUID()).replace(/\*$/, "x");
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
});
