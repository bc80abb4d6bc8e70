import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditLedgerStream } from "../../src/events/credits.ts";
import { startTestProvider, type TestProvider } from "../support/identityProvider.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Credits (docs/credits.md): checkout by an owner's token only, the local provider's signed
 * checkout and webhook, Stripe's webhook verified with its own scheme, exactly-once crediting,
 * tenant isolation. Stripe's checkout call needs the network and is not run here.
 */

const WEBHOOK_SECRET = "whsec_test_credits_0123456789";
const stripe = new Stripe("sk_test_unused");

const register = (t: TestApp, tenantId: string, provider: TestProvider) =>
  t.app.inject({
    method: "PUT",
    url: `/api/admin/tenants/${tenantId}/identity-provider`,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    payload: JSON.stringify({
      issuer: provider.issuer,
      jwks_uri: provider.jwks_uri,
      audience: provider.audience,
    }),
  });
const as = (token: string): TestTenant => ({ id: "", key: token });

describe.each(databaseKinds)("credits on %s", (kind) => {
  let t: TestApp;
  let s: TestApp;
  let idp: TestProvider;
  let owner: TestTenant;

  beforeAll(async () => {
    t = await createTestApp(kind);
    s = await createTestApp(kind, {
      STRIPE_SECRET_KEY: "sk_test_unreachable",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });
    idp = await startTestProvider("credits");
    expect((await register(t, t.tenant.id, idp)).statusCode).toBe(200);
    owner = as(await idp.sign({ roles: ["owner"] }, { expiresIn: "2h" }));
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await s?.close();
    await idp?.close();
  });

  const balanceOf = async (app: TestApp, tenant?: TestTenant) => {
    const res = await app.request("GET", "/api/credits/balance", { as: tenant });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it("lists the packages", async () => {
    const res = await t.request("GET", "/api/credits/packages");
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { id: string }) => p.id)).toEqual(["starter", "standard", "pro"]);
  });

  it("checkout: an owner's token only; an API key, a manager's or a lessee's token is 403", async () => {
    const body = { package_id: "starter" };
    const key = await t.request("POST", "/api/credits/checkout", { body });
    expect(key.statusCode, key.body).toBe(403);
    const manager = as(await idp.sign({ roles: ["manager"] }));
    expect((await t.request("POST", "/api/credits/checkout", { body, as: manager })).statusCode).toBe(403);
    const lessee = as(await idp.sign({ roles: ["lessee"], scope: "lessee:leases:read lessee:leases:sign" }));
    expect((await t.request("POST", "/api/credits/checkout", { body, as: lessee })).statusCode).toBe(403);
    const ok = await t.request("POST", "/api/credits/checkout", { body, as: owner });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ provider: "local", package_id: "starter" });
    const unknown = await t.request("POST", "/api/credits/checkout", {
      body: { package_id: "gold" },
      as: owner,
    });
    expect(unknown.statusCode).toBe(400);
  });

  it("local provider: the checkout URL completes the purchase once, a tampered one is 400", async () => {
    const before = await balanceOf(t);
    const session = (
      await t.request("POST", "/api/credits/checkout", { body: { package_id: "standard" }, as: owner })
    ).json();
    const url = new URL(session.checkout_url);
    const tampered = `${url.pathname}${url.search.replace("package_id=standard", "package_id=pro")}`;
    const refused = await t.request("GET", tampered, { as: null });
    expect(refused.statusCode, refused.body).toBe(400);
    expect((await balanceOf(t)).balance).toBe(before.balance);
    for (let i = 0; i < 3; i++) {
      const done = await t.request("GET", `${url.pathname}${url.search}`, { as: null });
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json()).toMatchObject({ status: "COMPLETED", credited: i === 0 });
    }
    expect(await balanceOf(t)).toEqual({
      balance: before.balance + 20,
      reserved: 0,
      purchased: before.purchased + 20,
    });
    const owners = await balanceOf(t, owner);
    expect(owners.balance).toBe(before.balance + 20);
    const transactions = await t.request("GET", "/api/credits/transactions");
    expect(transactions.statusCode).toBe(200);
    expect(transactions.json().at(-1)).toMatchObject({
      kind: "PURCHASE",
      credits: 20,
      package_id: "standard",
      amount: 80,
      provider: "local",
      provider_session_id: session.session_id,
    });
    // Tenant isolation: the other tenant has none of it.
    expect(await balanceOf(t, t.other)).toEqual({ balance: 0, reserved: 0, purchased: 0 });
    expect((await t.request("GET", "/api/credits/transactions", { as: t.other })).json()).toEqual([]);
  });

  it("local provider: 50 concurrent completions of one checkout (the same webhook event each) credit once", async () => {
    const tenant = await t.newTenant();
    const provider = await startTestProvider();
    try {
      expect((await register(t, tenant.id, provider)).statusCode).toBe(200);
      const token = as(await provider.sign({ roles: ["owner"] }));
      const session = (
        await t.request("POST", "/api/credits/checkout", { body: { package_id: "pro" }, as: token })
      ).json();
      const url = new URL(session.checkout_url);
      // Each request of the page delivers the same signed `checkout.completed` event to /api/webhooks/local.
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => t.request("GET", `${url.pathname}${url.search}`, { as: null })),
      );
      for (const a of answers) expect(a.statusCode, a.body).toBe(200);
      expect(answers.filter((a) => a.json().credited)).toHaveLength(1);
      const ledger = await t.app.platform.store.readStream(creditLedgerStream(tenant.id));
      expect(ledger).toHaveLength(1);
      expect(ledger[0].data).toMatchObject({ provider: "local", credits: 100, amount: 300 });
      expect(await balanceOf(t, tenant)).toEqual({ balance: 100, reserved: 0, purchased: 100 });
    } finally {
      await provider.close();
    }
  });

  it("local webhook: a delivery signed with another secret is 400 and records nothing", async () => {
    const body = JSON.stringify({ id: "evt_x", type: "checkout.completed", data: {} });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/local",
      headers: {
        "content-type": "application/json",
        "webhook-id": "evt_x",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe("ValidationError");
  });

  // ---------------------------------------------------------------- Stripe

  const paidSession = (tenantId: string, sessionId: string, overrides: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: `evt_${sessionId}`,
      object: "event",
      type: "checkout.session.completed",
      data: {
        object: {
          id: sessionId,
          object: "checkout.session",
          payment_status: "paid",
          payment_intent: `pi_${sessionId}`,
          amount_total: 2500,
          currency: "eur",
          metadata: { tenant_id: tenantId, package_id: "starter" },
          ...overrides,
        },
      },
    });
  const deliver = (payload: string, signature: string) =>
    s.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature },
      payload,
    });
  const signed = (payload: string, timestamp?: number) =>
    stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp });
  const ledgerOf = (tenantId: string) => s.app.platform.store.readStream(creditLedgerStream(tenantId));

  it("stripe: 50 concurrent deliveries of the same event credit once", async () => {
    const payload = paidSession(s.tenant.id, "cs_test_concurrent");
    const header = signed(payload);
    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver(payload, header)));
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    expect(answers.filter((a) => a.json().credited)).toHaveLength(1);
    const [logged] = await ledgerOf(s.tenant.id);
    expect(await ledgerOf(s.tenant.id)).toHaveLength(1);
    // The payment is logged as its event: provider, session, payment and event ids, who wrote it.
    expect(logged.type).toBe("CreditsPurchased");
    expect(logged.data).toMatchObject({
      provider: "stripe",
      provider_session_id: "cs_test_concurrent",
      provider_payment_id: "pi_cs_test_concurrent",
      provider_event_id: "evt_cs_test_concurrent",
      credits: 5,
      amount: 25,
    });
    expect(logged.metadata.actor_key_id).toBe("payment-provider:stripe");
    expect(await balanceOf(s)).toEqual({ balance: 5, reserved: 0, purchased: 5 });
    expect(await balanceOf(s, s.other)).toEqual({ balance: 0, reserved: 0, purchased: 0 });
    // A later redelivery (new timestamp, same event) still credits nothing.
    expect((await deliver(payload, signed(payload))).json().credited).toBe(false);
    expect(await ledgerOf(s.tenant.id)).toHaveLength(1);
  });

  it("stripe: a bad signature, a tampered body, a stale timestamp are 400 and record nothing", async () => {
    const tenant = s.other.id;
    const payload = paidSession(tenant, "cs_test_refused");
    const wrongSecret = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_other" });
    const tampered = paidSession(tenant, "cs_test_refused", { amount_total: 100 });
    const stale = signed(payload, Math.floor(Date.now() / 1000) - 600);
    for (const [body, header] of [
      [payload, wrongSecret],
      [tampered, signed(payload)],
      [payload, stale],
      [payload, "garbage"],
    ]) {
      const res = await deliver(body, header);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe("ValidationError");
    }
    const missing = await s.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json" },
      payload,
    });
    expect(missing.statusCode).toBe(400);
    expect(await ledgerOf(tenant)).toHaveLength(0);
  });

  it("stripe: a signed event whose amount is not the package's price records nothing; other events are acknowledged", async () => {
    const wrongAmount = paidSession(s.other.id, "cs_test_amount", { amount_total: 100 });
    expect((await deliver(wrongAmount, signed(wrongAmount))).statusCode).toBe(400);
    const unpaid = paidSession(s.other.id, "cs_test_unpaid", { payment_status: "unpaid" });
    const ack = await deliver(unpaid, signed(unpaid));
    expect(ack.statusCode).toBe(200);
    expect(ack.json()).toMatchObject({ credited: false, purchase_id: null });
    expect(await ledgerOf(s.other.id)).toHaveLength(0);
  });

  it("an unknown or unconfigured provider is 404; the local provider is off when Stripe is on", async () => {
    expect((await deliver("{}", "x")).statusCode).toBe(400);
    const unknown = await s.app.inject({
      method: "POST",
      url: "/api/webhooks/paypal",
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    expect(unknown.statusCode).toBe(404);
    const local = await s.app.inject({
      method: "POST",
      url: "/api/webhooks/local",
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    expect(local.statusCode).toBe(404);
    const stripeOnLocal = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    expect(stripeOnLocal.statusCode).toBe(404);
  });
});
