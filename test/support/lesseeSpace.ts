import { expect } from "vitest";
import { startTestProvider, type TestProvider } from "./identityProvider.ts";
import { leaseFixtures } from "./leaseFixtures.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp, type TestTenant } from "./testApp.ts";
import type { DatabaseKind } from "./testDatabase.ts";

/**
 * The lessee's space in tests (docs/security.md, "The lessee's space"): a tenant's provider
 * registered by the platform admin, lessees whose `auth_user_id` is a token's `sub`, leases naming
 * them. Tokens come from a real JWKS (test/support/identityProvider.ts), never a bypass.
 */
export const LESSEE_READ = "lessee:leases:read";

/** PUT the tenant's identity provider (the admin's route); `extra` overrides or adds fields. */
export const registerProvider = (t: TestApp, tenantId: string, provider: TestProvider, extra: object = {}) =>
  t.app.inject({
    method: "PUT",
    url: `/api/admin/tenants/${tenantId}/identity-provider`,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    payload: JSON.stringify({
      issuer: provider.issuer,
      jwks_uri: provider.jwks_uri,
      audience: provider.audience,
      ...extra,
    }),
  });

export interface LesseeSpace {
  t: TestApp;
  /** The provider of `t.tenant`. */
  idp: TestProvider;
  /** The provider of `t.other`. */
  otherIdp: TestProvider;
  close(): Promise<void>;
}

/** A test app whose two tenants each have their own registered provider. */
export async function startLesseeSpace(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): Promise<LesseeSpace> {
  const t = await createTestApp(kind, env);
  const idp = await startTestProvider("main");
  const otherIdp = await startTestProvider("other");
  expect((await registerProvider(t, t.tenant.id, idp)).statusCode).toBe(200);
  expect((await registerProvider(t, t.other.id, otherIdp)).statusCode).toBe(200);
  return {
    t,
    idp,
    otherIdp,
    async close() {
      await t.close();
      await idp.close();
      await otherIdp.close();
    },
  };
}

export function lesseeSpaceFixtures(t: () => TestApp) {
  const f = leaseFixtures(t);
  const register = (tenantId: string, provider: TestProvider, extra: object = {}) =>
    registerProvider(t(), tenantId, provider, extra);

  /** A token is sent as `Authorization: Bearer <token>`, as a key is. */
  const as = (token: string): TestTenant => ({ id: "", key: token });

  /** The lessee signed in as `sub` (created once per tenant). */
  const lessees = new Map<string, string>();
  const lesseeOf = async (sub: string, tenant?: TestTenant) => {
    const known = lessees.get(`${tenant?.id}:${sub}`);
    if (known) return known;
    const lessee = await t().request("POST", "/api/lessees", {
      body: {
        category: "individual",
        first_name: "Camille",
        last_name: "Durand",
        email: `${sub}.${tenant?.id ?? "main"}@example.fr`,
        auth_user_id: sub,
      },
      as: tenant,
    });
    expect(lessee.statusCode, lessee.body).toBe(201);
    lessees.set(`${tenant?.id}:${sub}`, lessee.json().id);
    return lessee.json().id as string;
  };

  /** A new lease (800 + 50 a month from 2025-01-01 unless `extra` says) whose primary tenant is `sub`'s lessee. */
  const leaseOfLessee = async (sub: string, tenant?: TestTenant, extra: object = {}) =>
    (await f.newLease({ ...extra, primary_lessee_id: await lesseeOf(sub, tenant) }, tenant)).id;

  /** A token of `provider` for the lessee `sub`, with `scope` (the read scope by default). */
  const lesseeToken = async (provider: TestProvider, sub: string, scope = LESSEE_READ) =>
    as(await provider.sign({ sub, roles: ["lessee"], scope }));

  return { ...f, register, as, lesseeOf, leaseOfLessee, lesseeToken };
}
