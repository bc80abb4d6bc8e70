import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/platform/tenants/tenants.ts";
import { CONTENT_SECURITY_POLICY } from "../../src/queries/portal/web.ts";
import {
  cookieOf,
  formOf,
  type PagesSetup,
  pageFixtures,
  post,
  signIn,
  startPages,
} from "../support/pages.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The pages' walls (docs/portal.md, "Security"), without a browser: no session but through the
 * tenant's provider, the session cookie's flags, CSRF on every form, the Content-Security-Policy,
 * and another lessee's or tenant's lease never reachable (the lessee space's own matrix).
 */

describe.each(databaseKinds)("the portal's and console's security on %s", (kind) => {
  let t: TestApp;
  let pages: PagesSetup;
  const f = pageFixtures(() => t);

  beforeAll(async () => {
    t = await createTestApp(kind, { PMS_SESSION_SECRET: "a-session-secret-for-tests-0123456789" });
    pages = await startPages(t);
  });
  afterAll(async () => {
    await t?.close();
    await pages?.close();
  });

  it("every page carries the strict Content-Security-Policy, and no inline script", async () => {
    for (const url of ["/portal", "/audit", "/portal/leases/not-an-id"]) {
      const res = await t.app.inject({ url });
      expect(res.headers["content-security-policy"], url).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(res.body).not.toMatch(/ on[a-z]+=|style=/);
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
  });

  it("a session comes only from the tenant's provider; its cookie is HTTP-only, Secure, SameSite", async () => {
    // No cookie, or one not sealed by the service: no page.
    const lease = await f.leaseOf("alice");
    for (const cookie of [
      "",
      "pms_portal=forged",
      "pms_portal=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..x.y.z",
    ]) {
      const res = await t.app.inject({ url: `/portal/leases/${lease}`, headers: { cookie } });
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain("Conditions");
    }
    // A tenant without a provider: no redirect anywhere.
    const bare = await t.newTenant();
    const none = await t.app.inject({ url: `/portal/login?espace=${bare.id}` });
    expect(none.statusCode).toBe(404);
    // The provider refuses: no session.
    const refused = await signIn(t, pages.idp, "/portal", pages.name, null);
    expect(refused.done.statusCode).toBe(401);
    expect(refused.cookie).toBe("");
    // A staff account is not a lessee.
    const owner = await signIn(t, pages.idp, "/portal", pages.name, { sub: "boss", roles: ["owner"] });
    expect(owner.done.statusCode).toBe(403);
    expect(owner.cookie).toBe("");
    // A callback without the login it answers (no verifier, no state): refused.
    const stray = await t.app.inject({ url: "/portal/callback?code=abc&state=def" });
    expect(stray.statusCode).toBe(400);

    const { done, cookie } = await signIn(t, pages.idp, "/portal", pages.name, f.lessee("alice"));
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe("/portal");
    const session = done.cookies.find((c) => c.name === "pms_portal");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/portal" });
    const leases = await t.app.inject({ url: "/portal", headers: { cookie } });
    expect(leases.statusCode).toBe(200);
    expect(leases.body).toContain(`/portal/leases/${lease}`);
  });

  it("a code sent for one sign-in cannot finish another (state and PKCE verifier)", async () => {
    pages.idp.user = f.lessee("alice");
    const first = await t.app.inject({ url: `/portal/login?espace=${pages.name}` });
    const second = await t.app.inject({ url: `/portal/login?espace=${pages.name}` });
    const back = new URL(
      String((await fetch(String(first.headers.location), { redirect: "manual" })).headers.get("location")),
    );
    const crossed = await t.app.inject({
      url: `${back.pathname}${back.search}`,
      headers: { cookie: cookieOf(second, "pms_login") },
    });
    expect(crossed.statusCode).toBe(401);
    expect(cookieOf(crossed, "pms_portal")).toBe("");
  });

  it("every form needs its CSRF token", async () => {
    const lease = await f.leaseOf("bob");
    const { cookie } = await signIn(t, pages.idp, "/portal", pages.name, f.lessee("bob"));
    const form = await formOf(t, `/portal/leases/${lease}/signature`, cookie);
    expect(form.token).not.toBe("");
    for (const url of ["/portal/logout", `/portal/leases/${lease}/signature/code`]) {
      const bare = await post(t, url, form.cookie, {});
      expect(bare.statusCode, url).toBe(403);
      expect(bare.body).toContain("formulaire a expiré");
      expect((await post(t, url, form.cookie, { _csrf: "forged" })).statusCode).toBe(403);
      // The token without its secret cookie (another site's form): refused too.
      expect((await post(t, url, cookie, { _csrf: form.token })).statusCode).toBe(403);
    }
    // No JSON, no oversized form: refused as such, never a 5xx.
    const json = await t.app.inject({
      method: "POST",
      url: "/portal/logout",
      headers: { cookie: form.cookie, "content-type": "application/json" },
      payload: `${"[".repeat(100)}${"]".repeat(100)}`,
    });
    expect(json.statusCode).toBe(415);
    expect((await post(t, "/portal/logout", form.cookie, { _csrf: "x".repeat(70_000) })).statusCode).toBe(
      413,
    );
    const out = await post(t, "/portal/logout", form.cookie, { _csrf: form.token });
    expect(out.statusCode).toBe(200);
    expect(out.cookies.find((c) => c.name === "pms_portal")?.value).toBe("");
    // The audit console's key form too.
    const audit = await formOf(t, "/audit", "");
    expect((await post(t, "/audit/key", audit.cookie, { key: t.tenant.key })).statusCode).toBe(403);
    expect(
      (await post(t, "/audit/key", audit.cookie, { key: t.tenant.key, _csrf: audit.token })).statusCode,
    ).toBe(303);
  });

  it("another lessee's or another tenant's lease is never reachable through the pages", async () => {
    const lease = await f.leaseOf("carol");
    const calls = `/portal/leases/${lease}`;
    const paths = [
      calls,
      `${calls}/account`,
      `${calls}/signature`,
      `${calls}/signed.pdf`,
      `${calls}/receipts/${lease}`,
    ];
    await f.lesseeOf("dave");
    const dave = await signIn(t, pages.idp, "/portal", pages.name, f.lessee("dave"));
    // The same sub at the other tenant, with a lessee of that tenant.
    await f.lesseeOf("carol", t.other);
    const elsewhere = await signIn(t, pages.otherIdp, "/portal", pages.otherName, f.lessee("carol"));
    for (const cookie of [dave.cookie, elsewhere.cookie]) {
      expect(cookie).not.toBe("");
      const list = await t.app.inject({ url: "/portal", headers: { cookie } });
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain(lease);
      for (const url of paths) {
        const res = await t.app.inject({ url, headers: { cookie } });
        expect(res.statusCode, url).toBe(404);
        expect(res.body).not.toContain("800,00");
      }
    }
    // Nor its forms: a notice on another's lease is refused as unknown and writes nothing.
    const form = await formOf(t, "/portal", dave.cookie);
    await f.writesNothing(async () => {
      const res = await post(t, `${calls}/notice`, form.cookie, { _csrf: form.token, confirm: "oui" });
      expect(res.statusCode).toBe(404);
      const completion = await post(t, `${calls}/entry-report`, form.cookie, {
        _csrf: form.token,
        report_id: lease,
        room_name: "Séjour",
        element: "Murs",
        condition: "POOR",
      });
      expect(completion.statusCode).toBe(404);
    });
    const carol = await signIn(t, pages.idp, "/portal", pages.name, f.lessee("carol"));
    expect((await t.app.inject({ url: calls, headers: { cookie: carol.cookie } })).statusCode).toBe(200);
  });

  it("the console opens for LeasesRead only, and to the key's own tenant", async () => {
    const lease = await f.leaseOf("erin");
    const open = async (key: string) => {
      const form = await formOf(t, "/audit", "");
      const res = await post(t, "/audit/key", form.cookie, { key, _csrf: form.token });
      return { res, cookie: cookieOf(res, "pms_audit") };
    };
    const finance = await createApiKey(t.sql, t.tenant.id, "finance", ["FinanceRead"]);
    const refused = await open(finance.key);
    expect(refused.res.statusCode).toBe(403);
    expect(refused.cookie).toBe("");
    expect((await open("pms_unknownunknownunknown")).res.statusCode).toBe(401);
    const reader = await createApiKey(t.sql, t.tenant.id, "auditor", ["LeasesRead"]);
    const mine = await open(reader.key);
    expect(mine.res.statusCode).toBe(303);
    expect(
      (await t.app.inject({ url: `/audit/leases/${lease}`, headers: { cookie: mine.cookie } })).statusCode,
    ).toBe(200);
    const theirs = await open(t.other.key);
    expect(
      (await t.app.inject({ url: `/audit/leases/${lease}`, headers: { cookie: theirs.cookie } })).statusCode,
    ).toBe(404);
    expect(
      (
        await t.app.inject({
          url: `/audit/leases/${lease}/history.ndjson`,
          headers: { cookie: theirs.cookie },
        })
      ).statusCode,
    ).toBe(404);
    // An auditor's user token (roles: auditor) opens it; a lessee's does not.
    const auditor = await signIn(t, pages.idp, "/audit", pages.name, {
      sub: "auditor-1",
      roles: ["auditor"],
    });
    expect(auditor.done.statusCode, auditor.done.body).toBe(303);
    const lessee = await signIn(t, pages.idp, "/audit", pages.name, f.lessee("erin"));
    expect(lessee.done.statusCode).toBe(403);
    expect(lessee.cookie).toBe("");
  });
});
