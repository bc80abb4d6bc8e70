import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Inbound payment webhooks never answer 500 (issue 38): a body whose signature holds but whose
 * content the log cannot hold or the adapter cannot read is a 400 that records nothing.
 */

const LOCAL_SECRET = "local-payment-secret-for-hostile-webhooks-0123";
const STRIPE_SECRET = "whsec_test_hostile_0123456789";
const stripe = new Stripe("sk_test_unused");

describe.each(databaseKinds)("hostile payment webhooks on %s", (kind) => {
  let local: TestApp;
  let withStripe: TestApp;
  beforeAll(async () => {
    local = await createTestApp(kind, { PMS_LOCAL_PAYMENT_SECRET: LOCAL_SECRET });
    withStripe = await createTestApp(kind, {
      STRIPE_SECRET_KEY: "sk_test_unreachable",
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    });
  });
  afterAll(async () => {
    await local?.close();
    await withStripe?.close();
  });

  /** A local (Standard Webhooks) delivery of `body`, signed with the service's secret. */
  const deliverLocal = (body: string, id = "evt_hostile") => {
    const now = new Date();
    const signature = new Webhook(Buffer.from(LOCAL_SECRET, "utf8"), { format: "raw" }).sign(id, now, body);
    return local.app.inject({
      method: "POST",
      url: "/api/webhooks/local",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      payload: body,
    });
  };
  const checkout = (data: Record<string, unknown>) =>
    JSON.stringify({
      id: "evt_hostile",
      type: "checkout.completed",
      data: {
        session_id: "cs_local_ok",
        tenant_id: local.tenant.id,
        package_id: "starter",
        amount_cents: 2500,
        currency: "EUR",
        payment_id: "pay_local_ok",
        ...data,
      },
    });

  it("local: a signed checkout with a lone surrogate in an id is 400 and records nothing", async () => {
    const before = await eventCount(local);
    for (const hostile of [
      { session_id: "cs_\ud800" },
      { payment_id: "pay_\udfff" },
      { session_id: "cs_\u0000" },
      { currency: { eur: true } },
      { tenant_id: 42 },
      { amount_cents: 2500.5 },
    ]) {
      const body = checkout(hostile);
      const res = await deliverLocal(body);
      expect(res.statusCode, `${body}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe("ValidationError");
    }
    const loneEventId = JSON.stringify({ ...JSON.parse(checkout({})), id: "evt_\ud800" });
    expect((await deliverLocal(loneEventId)).statusCode).toBe(400);
    expect(await eventCount(local)).toBe(before);
    // The same checkout, well formed, credits: the refusals were about the content, not the path.
    const res = await deliverLocal(checkout({}));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().credited).toBe(true);
  });

  const deliverStripe = (payload: string) =>
    withStripe.app.inject({
      method: "POST",
      url: "/api/webhooks/stripe",
      headers: {
        "content-type": "application/json",
        "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET }),
      },
      payload,
    });

  it("stripe: a signed checkout.session.completed with data null, or an unreadable session, is 400 and records nothing", async () => {
    const before = await eventCount(withStripe);
    const event = (data: unknown) =>
      JSON.stringify({ id: "evt_null", object: "event", type: "checkout.session.completed", data });
    const session = (fields: Record<string, unknown>) => ({
      object: {
        id: "cs_stripe_hostile",
        payment_status: "paid",
        amount_total: 2500,
        currency: "eur",
        metadata: { tenant_id: withStripe.tenant.id, package_id: "starter" },
        ...fields,
      },
    });
    for (const data of [
      null,
      {},
      { object: null },
      { object: "cs_x" },
      { object: [] },
      session({ id: "cs_\ud800" }),
      session({ payment_intent: "pi_\udc00" }),
      session({ id: 12 }),
      session({ metadata: { tenant_id: withStripe.tenant.id, package_id: ["starter"] } }),
    ]) {
      const res = await deliverStripe(event(data));
      expect(res.statusCode, `${JSON.stringify(data)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe("ValidationError");
    }
    expect(await eventCount(withStripe)).toBe(before);
  });
});
