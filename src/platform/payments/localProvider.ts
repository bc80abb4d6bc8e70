import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { deterministicUuid } from "../ids.ts";
import {
  type CheckoutRequest,
  type CheckoutSession,
  headerOf,
  type PaymentEvent,
  type PaymentProvider,
  WebhookRejected,
} from "./paymentProvider.ts";

/**
 * The local adapter (docs/credits.md, "Local provider"): for embedded use and tests, no money
 * moves. Its checkout URL is a page of this service whose query is signed with the local secret;
 * requesting it completes the checkout and delivers a `checkout.completed` webhook to
 * `/api/webhooks/local`, signed per Standard Webhooks (webhook-id, webhook-timestamp,
 * webhook-signature: HMAC-SHA256, 5 minutes of tolerance), as a real provider would.
 */

export const LOCAL_CHECKOUT_PATH = "/api/payment-providers/local/checkout";

/** What the local checkout URL carries, signed. */
export interface LocalSession {
  session_id: string;
  tenant_id: string;
  package_id: string;
  amount_cents: number;
  currency: string;
}

export interface LocalProvider extends PaymentProvider {
  /** The session of a checkout URL's query if its signature holds, else null. */
  sessionOf(query: LocalSession & { signature: string }): LocalSession | null;
  /** The webhook delivery a completed session makes: body and headers, signed now. */
  delivery(session: LocalSession): { body: string; headers: Record<string, string> };
}

const fields = (s: LocalSession) =>
  [s.session_id, s.tenant_id, s.package_id, String(s.amount_cents), s.currency].join("\n");

export function localProvider(secret: string): LocalProvider {
  const key = Buffer.from(secret, "utf8");
  const webhook = new Webhook(key, { format: "raw" });
  const sign = (s: LocalSession) =>
    createHmac("sha256", key)
      .update(`checkout\n${fields(s)}`)
      .digest("base64url");
  return {
    name: "local",
    async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
      const session: LocalSession = {
        session_id: request.checkout_id,
        tenant_id: request.tenant_id,
        package_id: request.package_id,
        amount_cents: Math.round(request.price * 100),
        currency: request.currency,
      };
      const query = new URLSearchParams({
        tenant_id: session.tenant_id,
        package_id: session.package_id,
        amount_cents: String(session.amount_cents),
        currency: session.currency,
        signature: sign(session),
      });
      return {
        session_id: session.session_id,
        checkout_url: `${request.origin}${LOCAL_CHECKOUT_PATH}/${session.session_id}?${query}`,
      };
    },
    sessionOf({ signature, ...session }) {
      const expected = Buffer.from(sign(session));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected) ? session : null;
    },
    delivery(session) {
      // One event per session: a page requested twice delivers the same event again.
      const id = `evt_${deterministicUuid("local-checkout", session.session_id)}`;
      const body = JSON.stringify({
        id,
        type: "checkout.completed",
        data: { ...session, payment_id: `pay_${deterministicUuid("local-payment", session.session_id)}` },
      });
      const now = new Date();
      return {
        body,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
          "webhook-signature": webhook.sign(id, now, body),
        },
      };
    },
    verifyWebhook(raw, headers): PaymentEvent {
      let payload: unknown;
      try {
        payload = webhook.verify(raw, {
          "webhook-id": headerOf(headers, "webhook-id") ?? "",
          "webhook-timestamp": headerOf(headers, "webhook-timestamp") ?? "",
          "webhook-signature": headerOf(headers, "webhook-signature") ?? "",
        });
      } catch (error) {
        if (error instanceof WebhookVerificationError)
          throw new WebhookRejected(`Invalid webhook signature: ${error.message}`);
        throw new WebhookRejected("Unreadable webhook body");
      }
      const event = payload as {
        id?: unknown;
        type?: unknown;
        data?: Partial<LocalSession> & { payment_id?: string };
      };
      const id = typeof event.id === "string" ? event.id : "";
      if (event.type !== "checkout.completed" || !event.data)
        return { kind: "ignored", event_id: id, type: String(event.type) };
      const d = event.data;
      return {
        kind: "checkout_completed",
        event_id: id,
        session_id: String(d.session_id ?? ""),
        payment_id: typeof d.payment_id === "string" ? d.payment_id : null,
        tenant_id: typeof d.tenant_id === "string" ? d.tenant_id : null,
        package_id: typeof d.package_id === "string" ? d.package_id : null,
        amount_cents: typeof d.amount_cents === "number" ? d.amount_cents : null,
        currency: typeof d.currency === "string" ? d.currency : null,
      };
    },
  };
}
