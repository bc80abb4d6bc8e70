import { setTimeout as sleep } from "node:timers/promises";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTestProvider,
  type TestProvider,
  tamperedToken,
  unsignedToken,
} from "../support/identityProvider.ts";
import {
  LESSEE_READ,
  type LesseeSpace,
  lesseeSpaceFixtures,
  startLesseeSpace,
} from "../support/lesseeSpace.ts";
import { TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * User tokens (docs/security.md, "User tokens") against a real JWKS served over HTTP and tokens
 * signed with its keys, and the lessee's own space (docs/design.md §7.0).
 */
describe.each(databaseKinds)("user tokens and the lessee's space on %s", (kind) => {
  let t: TestApp;
  let idp: TestProvider;
  let otherIdp: TestProvider;
  const { register, as, leaseOfLessee } = lesseeSpaceFixtures(() => t);
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  const lesseeScope = LESSEE_READ;

  let space: LesseeSpace;
  beforeAll(async () => {
    // No cooldown between JWKS fetches, so that a rotated key is fetched at once (default 30 s).
    space = await startLesseeSpace(kind, { PMS_JWKS_COOLDOWN_MS: "0" });
    ({ t, idp, otherIdp } = space);
  });
  afterAll(async () => {
    await space?.close();
  });

  describe("the platform admin registers a tenant's provider", () => {
    it("PUT registers and replaces, GET shows it, DELETE removes it; only the admin key may", async () => {
      const tenant = await t.newTenant();
      const provider = await startTestProvider();
      try {
        const put = await register(tenant.id, provider, { roles_claim: "realm_access.roles" });
        expect(put.statusCode, put.body).toBe(200);
        expect(put.json()).toMatchObject({
          tenant_id: tenant.id,
          issuer: provider.issuer,
          jwks_uri: provider.jwks_uri,
          audience: provider.audience,
          roles_claim: "realm_access.roles",
          scope_claim: "scope",
        });
        const replaced = await register(tenant.id, provider, { audience: "another" });
        expect(replaced.json()).toMatchObject({ audience: "another", roles_claim: "roles" });
        const url = `/api/admin/tenants/${tenant.id}/identity-provider`;
        const got = await t.request("GET", url, { as: null, headers: admin });
        expect(got.statusCode).toBe(200);
        expect(got.json().audience).toBe("another");

        // Neither a tenant key, a user token nor nothing opens these routes.
        const owner = await idp.sign({ roles: ["owner"] });
        for (const credential of [t.tenant.key, owner]) {
          for (const method of ["GET", "DELETE"]) {
            const res = await t.request(method, url, { as: as(credential) });
            expect(res.statusCode, `${method} ${res.body}`).toBe(401);
          }
          const res = await t.request("PUT", url, { as: as(credential), body: { issuer: "https://x.test" } });
          expect(res.statusCode).toBe(401);
        }
        expect((await t.request("GET", url, { as: null })).statusCode).toBe(401);

        expect((await t.request("DELETE", url, { as: null, headers: admin })).statusCode).toBe(204);
        const gone = await t.request("GET", url, { as: null, headers: admin });
        expect(gone.statusCode).toBe(404);
        expect((await t.request("DELETE", url, { as: null, headers: admin })).statusCode).toBe(404);
      } finally {
        await provider.close();
      }
    });

    it("refuses a JWKS over plain http to another host, an issuer of another tenant, an unknown tenant", async () => {
      const tenant = await t.newTenant();
      const url = `/api/admin/tenants/${tenant.id}/identity-provider`;
      const put = (body: object) => t.request("PUT", url, { as: null, headers: admin, body });
      const base = {
        issuer: "https://idp.example.test/x",
        jwks_uri: "https://idp.example.test/jwks",
        audience: "a",
      };
      const plain = await put({ ...base, jwks_uri: "http://idp.example.test/jwks" });
      expect(plain.statusCode).toBe(400);
      expect(plain.json().details[0].field).toBe("jwks_uri");
      expect((await put({ ...base, issuer: "not a url" })).statusCode).toBe(400);
      expect((await put({ ...base, audience: "" })).statusCode).toBe(400);
      expect((await put({ ...base, roles_claim: "has space" })).statusCode).toBe(400);
      expect((await put({ ...base, tenant_id: t.tenant.id })).statusCode).toBe(400);
      const taken = await put({ ...base, issuer: idp.issuer });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().details).toEqual([{ field: "issuer", message: "taken" }]);
      const unknown = await t.request("PUT", `/api/admin/tenants/${crypto.randomUUID()}/identity-provider`, {
        as: null,
        headers: admin,
        body: base,
      });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe("staff tokens on the tenant's routes", () => {
    it("an owner token may read, write and delete; the tenant is its provider's", async () => {
      const owner = as(await idp.sign({ roles: ["owner"] }));
      const created = await t.request("POST", "/api/places", { as: owner, body: { name: "Par jeton" } });
      expect(created.statusCode, created.body).toBe(201);
      // Written for the provider's tenant: its API key sees it, the other tenant's does not.
      expect((await t.request("GET", `/api/places/${created.json().id}`)).statusCode).toBe(200);
      expect((await t.request("GET", `/api/places/${created.json().id}`, { as: t.other })).statusCode).toBe(
        404,
      );
      const deleted = await t.request("DELETE", `/api/places/${created.json().id}`, { as: owner });
      expect(deleted.statusCode, deleted.body).toBe(204);
    });

    it("the events a token writes name its subject as their actor", async () => {
      const owner = as(await idp.sign({ roles: ["owner"], sub: "owner-42" }));
      const created = await t.request("POST", "/api/lessees", {
        as: owner,
        body: { category: "individual", first_name: "Jean", last_name: "Acteur", email: "acteur@example.fr" },
      });
      expect(created.statusCode, created.body).toBe(201);
      const history = await t.request("GET", `/api/lessees/${created.json().id}/history`, { as: owner });
      expect(history.statusCode, history.body).toBe(200);
      expect(history.json()[0].actor_key_id).toBe("user:owner-42");
    });

    it("a manager token reads and writes but does not delete", async () => {
      const manager = as(await idp.sign({ roles: ["manager"] }));
      const created = await t.request("POST", "/api/places", { as: manager, body: { name: "Gérée" } });
      expect(created.statusCode, created.body).toBe(201);
      expect((await t.request("GET", "/api/leases", { as: manager })).statusCode).toBe(200);
      const deleted = await t.request("DELETE", `/api/places/${created.json().id}`, { as: manager });
      expect(deleted.statusCode).toBe(403);
      expect(deleted.json()).toEqual({
        error: "Forbidden",
        message: "This token's roles (manager) do not grant the PropertiesDelete permission",
      });
    });

    it("an auditor token reads every area and writes nothing (the audit console, docs/portal.md)", async () => {
      const auditor = as(await idp.sign({ roles: ["auditor"] }));
      for (const url of ["/api/leases", "/api/places", "/api/credits/balance"])
        expect((await t.request("GET", url, { as: auditor })).statusCode, url).toBe(200);
      const created = await t.request("POST", "/api/places", { as: auditor, body: { name: "Auditée" } });
      expect(created.statusCode).toBe(403);
      expect(created.json().message).toBe(
        "This token's roles (auditor) do not grant the PropertiesWrite permission",
      );
    });

    it("a lessee token, a token with no known role, and one with roles of another claim open no staff route", async () => {
      for (const claims of [{ roles: ["lessee"], scope: lesseeScope }, { roles: ["admin", "root"] }, {}]) {
        const res = await t.request("GET", "/api/leases", { as: as(await idp.sign(claims)) });
        expect(res.statusCode, JSON.stringify(claims)).toBe(403);
        expect(res.json().error).toBe("Forbidden");
      }
      // roles as a string, not an array: no role.
      const stringRoles = await t.request("GET", "/api/leases", {
        as: as(await idp.sign({ roles: "owner" })),
      });
      expect(stringRoles.statusCode).toBe(403);
    });

    it("a provider may name its own claims: roles and scopes where it puts them", async () => {
      const tenant = await t.newTenant();
      const provider = await startTestProvider();
      try {
        const put = await register(tenant.id, provider, {
          roles_claim: "realm_access.roles",
          scope_claim: "scp",
        });
        expect(put.statusCode, put.body).toBe(200);
        const nested = await provider.sign({ realm_access: { roles: ["owner"] } });
        expect((await t.request("GET", "/api/leases", { as: as(nested) })).statusCode).toBe(200);
        // The default claim means nothing for this provider.
        const plain = await provider.sign({ roles: ["owner"] });
        expect((await t.request("GET", "/api/leases", { as: as(plain) })).statusCode).toBe(403);
        const sub = `named-${crypto.randomUUID()}`;
        const lease = await leaseOfLessee(sub, tenant);
        const lessee = await provider.sign({ sub, realm_access: { roles: ["lessee"] }, scp: [lesseeScope] });
        const own = await t.request("GET", `/api/lessee/leases/${lease}`, { as: as(lessee) });
        expect(own.statusCode, own.body).toBe(200);
      } finally {
        await provider.close();
      }
    });
  });

  describe("refused tokens: 401", () => {
    const expectUnauthorized = async (token: string, why: string) => {
      const res = await t.request("GET", "/api/leases", { as: as(token) });
      expect(res.statusCode, `${why}: ${res.body}`).toBe(401);
      expect(res.json().error).toBe("Unauthorized");
      return res.json().message as string;
    };

    it("expired, not yet valid, without exp, wrong audience, unknown issuer", async () => {
      const owner = { roles: ["owner"] };
      const now = Math.floor(Date.now() / 1000);
      expect(await expectUnauthorized(await idp.sign(owner, { expiresIn: now - 60 }), "expired")).toBe(
        "The token has expired",
      );
      expect(await expectUnauthorized(await idp.sign(owner, { notBefore: now + 3600 }), "nbf")).toBe(
        "The token's nbf claim is not valid here",
      );
      await expectUnauthorized(await idp.sign(owner, { noExpiry: true }), "no exp");
      expect(await expectUnauthorized(await idp.sign(owner, { audience: "someone-else" }), "aud")).toBe(
        "The token's aud claim is not valid here",
      );
      expect(
        await expectUnauthorized(await idp.sign(owner, { issuer: "https://unknown.example.test" }), "iss"),
      ).toBe("No identity provider is registered for this token's issuer");
    });

    it("another tenant's issuer: signed by one provider, claiming the other's issuer", async () => {
      // Keys of the other tenant's provider, issuer of this tenant's: the signature decides.
      const forged = await otherIdp.sign(
        { roles: ["owner"] },
        { issuer: idp.issuer, audience: idp.audience },
      );
      await expectUnauthorized(forged, "other provider's key");
    });

    it("unsigned (alg none), HS256 keyed with the provider's public key, tampered payload, garbage", async () => {
      const claims = {
        iss: idp.issuer,
        aud: idp.audience,
        sub: "attacker",
        roles: ["owner"],
        exp: Math.floor(Date.now() / 1000) + 600,
      };
      await expectUnauthorized(unsignedToken(claims), "alg none");
      const hmac = await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid: idp.kid() })
        .sign(new TextEncoder().encode(await idp.publicPem()));
      expect(await expectUnauthorized(hmac, "HS256")).toBe("The token's algorithm is not allowed");
      const manager = await idp.sign({ roles: ["manager"] });
      await expectUnauthorized(
        tamperedToken(manager, (c) => ({ ...c, roles: ["owner"] })),
        "tampered roles",
      );
      await expectUnauthorized(
        tamperedToken(manager, (c) => ({ ...c, iss: otherIdp.issuer, aud: otherIdp.audience })),
        "tampered issuer",
      );
      await expectUnauthorized("eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln", "not JSON");
      await expectUnauthorized("a.b.c", "not a JWT");
      // Tokens go in Authorization only: in X-API-Key a token is a malformed key.
      const inApiKeyHeader = await t.request("GET", "/api/leases", {
        as: null,
        headers: { "x-api-key": await idp.sign({ roles: ["owner"] }) },
      });
      expect(inApiKeyHeader.statusCode).toBe(401);
    });

    it("a removed provider's tokens are refused within a second", async () => {
      const tenant = await t.newTenant();
      const provider = await startTestProvider();
      try {
        await register(tenant.id, provider);
        const token = await provider.sign({ roles: ["owner"] });
        expect((await t.request("GET", "/api/leases", { as: as(token) })).statusCode).toBe(200);
        const url = `/api/admin/tenants/${tenant.id}/identity-provider`;
        expect((await t.request("DELETE", url, { as: null, headers: admin })).statusCode).toBe(204);
        await sleep(1100);
        await expectUnauthorized(token, "provider removed");
      } finally {
        await provider.close();
      }
    });

    it("a provider whose keys cannot be fetched: 503, never a token let through", async () => {
      const tenant = await t.newTenant();
      const provider = await startTestProvider();
      await register(tenant.id, provider);
      const token = await provider.sign({ roles: ["owner"] });
      await provider.close();
      const res = await t.request("GET", "/api/leases", { as: as(token) });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().error).toBe("ServiceUnavailable");
    });
  });

  it("key rotation: a token with a new kid makes the service fetch the JWKS again; the old kid is refused", async () => {
    const before = await idp.sign({ roles: ["owner"] });
    expect((await t.request("GET", "/api/leases", { as: as(before) })).statusCode).toBe(200);
    const fetched = idp.fetches();
    await idp.rotate();
    const after = await idp.sign({ roles: ["owner"] });
    const res = await t.request("GET", "/api/leases", { as: as(after) });
    expect(res.statusCode, res.body).toBe(200);
    expect(idp.fetches()).toBe(fetched + 1);
    // Keys are cached: a second request fetches nothing.
    expect((await t.request("GET", "/api/leases", { as: as(after) })).statusCode).toBe(200);
    expect(idp.fetches()).toBe(fetched + 1);
    // The old key is gone from the JWKS: its tokens are refused once their verification, cached
    // for a second at most, runs again.
    await sleep(1100);
    const old = await t.request("GET", "/api/leases", { as: as(before) });
    expect(old.statusCode).toBe(401);
  });

  describe("the lessee's own space", () => {
    it("a lessee token sees its leases only; another lessee's lease answers 404", async () => {
      const sub = `lessee-${crypto.randomUUID()}`;
      const mine = [await leaseOfLessee(sub), await leaseOfLessee(sub)];
      const theirs = await leaseOfLessee(`lessee-${crypto.randomUUID()}`);
      const token = as(await idp.sign({ sub, roles: ["lessee"], scope: `openid ${lesseeScope}` }));

      const list = await t.request("GET", "/api/lessee/leases", { as: token });
      expect(list.statusCode, list.body).toBe(200);
      expect(list.json().map((l: { id: string }) => l.id)).toEqual(mine);
      expect(list.headers["x-total-count"]).toBe("2");
      const page = await t.request("GET", "/api/lessee/leases?limit=1&page=2", { as: token });
      expect(page.json().map((l: { id: string }) => l.id)).toEqual([mine[1]]);

      const one = await t.request("GET", `/api/lessee/leases/${mine[0]}`, { as: token });
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toEqual((await t.request("GET", `/api/leases/${mine[0]}`)).json());
      expect(one.headers.etag).toMatch(/^W\/"\d+"$/);

      const other = await t.request("GET", `/api/lessee/leases/${theirs}`, { as: token });
      expect(other.statusCode).toBe(404);
      expect(other.json()).toEqual({ error: "NotFound", message: `Lease ${theirs} not found` });
      const unknown = crypto.randomUUID();
      expect((await t.request("GET", `/api/lessee/leases/${unknown}`, { as: token })).statusCode).toBe(404);
    });

    it("a co-tenant added to a lease sees it too", async () => {
      const sub = `cotenant-${crypto.randomUUID()}`;
      const lease = await leaseOfLessee(`primary-${crypto.randomUUID()}`);
      const lessee = await t.request("POST", "/api/lessees", {
        body: {
          category: "individual",
          first_name: "Léa",
          last_name: "Petit",
          email: `${sub}@example.fr`,
          auth_user_id: sub,
        },
      });
      const added = await t.request("POST", `/api/leases/${lease}/lessees`, {
        body: { lessee_id: lessee.json().id, role: "CoTenant", start_date: "2025-01-01" },
      });
      expect(added.statusCode, added.body).toBe(201);
      const token = as(await idp.sign({ sub, roles: ["lessee"], scope: lesseeScope }));
      const res = await t.request("GET", `/api/lessee/leases/${lease}`, { as: token });
      expect(res.statusCode, res.body).toBe(200);
    });

    it("the same subject at another tenant's provider sees that tenant's leases, never this one's", async () => {
      const sub = `shared-${crypto.randomUUID()}`;
      const here = await leaseOfLessee(sub);
      const there = await leaseOfLessee(sub, t.other);
      const token = as(await otherIdp.sign({ sub, roles: ["lessee"], scope: lesseeScope }));
      const list = await t.request("GET", "/api/lessee/leases", { as: token });
      expect(list.json().map((l: { id: string }) => l.id)).toEqual([there]);
      expect((await t.request("GET", `/api/lessee/leases/${here}`, { as: token })).statusCode).toBe(404);
    });

    it("needs the lessee role and the lessee:leases:read scope (403); keys and staff tokens are refused", async () => {
      const sub = `scoped-${crypto.randomUUID()}`;
      const lease = await leaseOfLessee(sub);
      const url = `/api/lessee/leases/${lease}`;
      const refusals: [string, string][] = [
        [await idp.sign({ sub, roles: ["lessee"] }), "This token lacks the lessee:leases:read scope"],
        [
          await idp.sign({ sub, roles: ["lessee"], scope: "lessee:leases:sign lessee:leases:download" }),
          "This token lacks the lessee:leases:read scope",
        ],
        [
          await idp.sign({ sub, roles: ["owner"], scope: lesseeScope }),
          "This route needs a lessee token; the token's roles: owner",
        ],
        [t.tenant.key, "This API key lacks the lessee:leases:read permission"],
      ];
      for (const [credential, message] of refusals) {
        const res = await t.request("GET", url, { as: as(credential) });
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json()).toEqual({ error: "Forbidden", message });
      }
      expect((await t.request("GET", url, { as: null })).statusCode).toBe(401);
    });
  });
});
