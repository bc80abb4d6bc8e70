import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { lesseeSpaceFixtures } from "./lesseeSpace.ts";
import { type OidcUser, startOidcProvider, type TestOidcProvider } from "./oidcProvider.ts";
import { TEST_ADMIN_KEY, type TestApp, type TestTenant } from "./testApp.ts";

/**
 * The pages in tests (docs/portal.md): each tenant's own OpenID Connect provider served by the
 * test (test/support/oidcProvider.ts), registered by the platform admin; a sign-in run through
 * the real redirects; the form's CSRF token read from the page.
 */
export const LESSEE_SCOPES =
  "lessee:leases:read lessee:leases:sign lessee:leases:download lessee:leases:write";

export interface PagesSetup {
  idp: TestOidcProvider;
  otherIdp: TestOidcProvider;
  /** The tenants' names: what a lessee types or finds in their link. */
  name: string;
  otherName: string;
  close(): Promise<void>;
}

const register = (t: TestApp, tenantId: string, p: TestOidcProvider) =>
  t.app.inject({
    method: "PUT",
    url: `/api/admin/tenants/${tenantId}/identity-provider`,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    payload: JSON.stringify({ issuer: p.issuer, jwks_uri: p.jwks_uri, audience: p.audience }),
  });

export async function startPages(t: TestApp): Promise<PagesSetup> {
  const idp = await startOidcProvider();
  const otherIdp = await startOidcProvider();
  expect((await register(t, t.tenant.id, idp)).statusCode).toBe(200);
  expect((await register(t, t.other.id, otherIdp)).statusCode).toBe(200);
  const nameOf = async (id: string) =>
    (await t.sql.query("SELECT name FROM tenants WHERE id = $1", [id]))[0].name as string;
  return {
    idp,
    otherIdp,
    name: await nameOf(t.tenant.id),
    otherName: await nameOf(t.other.id),
    async close() {
      await idp.close();
      await otherIdp.close();
    },
  };
}

/** `name=value` of a cookie the answer sets, for the next request's Cookie header. */
export const cookieOf = (res: LightMyRequestResponse, name: string) => {
  const c = res.cookies.find((x) => x.name === name);
  return c ? `${c.name}=${c.value}` : "";
};

/**
 * Signs `user` in through `base` (`/portal` or `/audit`) without a browser: the redirect to the
 * provider, its redirect back, the callback. Returns the callback's answer and the session cookie.
 */
export async function signIn(
  t: TestApp,
  idp: TestOidcProvider,
  base: string,
  espace: string,
  user: OidcUser | null,
): Promise<{ done: LightMyRequestResponse; cookie: string }> {
  idp.user = user;
  const start = await t.app.inject({ url: `${base}/login?espace=${encodeURIComponent(espace)}` });
  expect(start.statusCode, start.body).toBe(303);
  const authorize = await fetch(String(start.headers.location), { redirect: "manual" });
  const back = new URL(String(authorize.headers.get("location")));
  const done = await t.app.inject({
    url: `${back.pathname}${back.search}`,
    headers: { cookie: cookieOf(start, "pms_login") },
  });
  return { done, cookie: cookieOf(done, base === "/portal" ? "pms_portal" : "pms_audit") };
}

/** A page's CSRF token and secret cookie: what a form on it sends back. */
export async function formOf(t: TestApp, url: string, cookie: string) {
  const page = await t.app.inject({ url, headers: { cookie } });
  expect(page.statusCode, page.body).toBe(200);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
  const secret = page.cookies.find((c) => c.name.endsWith("_csrf"));
  return { page, token, cookie: secret ? `${cookie}; ${secret.name}=${secret.value}` : cookie };
}

/** A form post as a browser sends it. */
export const post = (t: TestApp, url: string, cookie: string, fields: Record<string, string>) =>
  t.app.inject({
    method: "POST",
    url,
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams(fields).toString(),
  });

/** The lessees of the page tests: `sub` signs in with the provider of their tenant. */
export function pageFixtures(t: () => TestApp) {
  const f = lesseeSpaceFixtures(t);
  const lessee = (sub: string): OidcUser => ({ sub, roles: ["lessee"], scope: LESSEE_SCOPES });
  const leaseOf = (sub: string, tenant?: TestTenant, extra: object = {}) =>
    f.leaseOfLessee(sub, tenant, extra);
  return { ...f, lessee, leaseOf };
}
