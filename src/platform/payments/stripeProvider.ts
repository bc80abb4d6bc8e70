import { createRequire } from "node:module";
import type Stripe from "stripe";
import {
  type CheckoutRequest,
  type CheckoutSession,
  headerOf,
  type PaymentEvent,
  type PaymentProvider,
  WebhookRejected,
} from "./paymentProvider.ts";

const require = createRequire(import.meta.url);

/** Stripe's default tolerance on a delivery's timestamp (its own scheme: `Stripe-Signature`). */
export const STRIPE_TOLERANCE_SECONDS = 300;

/** Stripe events that mean a checkout was paid: immediate or, for delayed methods, later. */
const PAID = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);

/**
 * The Stripe adapter (docs/credits.md): hosted Checkout sessions through the official client,
 * webhooks verified by `stripe.webhooks.constructEvent` on the raw body.
 */
export function stripeProvider(options: {
  secretKey: string | undefined;
  webhookSecret: string | undefined;
  successUrl?: string;
  cancelUrl?: string;
}): PaymentProvider {
  // Made at first use: the official client is tens of megabytes that a service without Stripe
  // never needs (docs/performance.md). The webhook check needs no API key; a placeholder keeps it
  // constructible.
  let client: Stripe | null = null;
  const stripe = () => {
    client ??= new (require("stripe") as typeof Stripe)(options.secretKey ?? "sk_unset");
    return client;
  };
  return {
    name: "stripe",
    async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
      if (!options.secretKey) throw new Error("STRIPE_SECRET_KEY is not set");
      const metadata = {
        tenant_id: request.tenant_id,
        package_id: request.package_id,
        checkout_id: request.checkout_id,
      };
      const session = await stripe().checkout.sessions.create(
        {
          mode: "payment",
          client_reference_id: request.checkout_id,
          metadata,
          payment_intent_data: { metadata },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency.toLowerCase(),
                unit_amount: Math.round(request.price * 100),
                product_data: { name: `${request.name} credits` },
              },
            },
          ],
          success_url: options.successUrl ?? `${request.origin}/api/credits/balance`,
          cancel_url: options.cancelUrl ?? `${request.origin}/api/credits/packages`,
        },
        // A retried checkout of ours is the same session at Stripe.
        { idempotencyKey: request.checkout_id },
      );
      if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
      return { session_id: session.id, checkout_url: session.url };
    },
    verifyWebhook(raw, headers): PaymentEvent {
      if (!options.webhookSecret) throw new WebhookRejected("STRIPE_WEBHOOK_SECRET is not set");
      const signature = headerOf(headers, "stripe-signature");
      if (!signature) throw new WebhookRejected("Missing Stripe-Signature header");
      let event: Stripe.Event;
      try {
        event = stripe().webhooks.constructEvent(
          raw,
          signature,
          options.webhookSecret,
          STRIPE_TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new WebhookRejected(`Invalid Stripe-Signature: ${(error as Error).message}`);
      }
      if (!PAID.has(event.type)) return { kind: "ignored", event_id: event.id, type: event.type };
      // Signed is not well-formed: `data: null` or a non-object session is a 400, not a TypeError.
      const session = (event.data as { object?: unknown } | null)?.object as Stripe.Checkout.Session | null;
      if (!session || typeof session !== "object" || Array.isArray(session))
        throw new WebhookRejected(`The ${event.type} event carries no checkout session`);
      if (session.payment_status !== "paid") return { kind: "ignored", event_id: event.id, type: event.type };
      const intent = session.payment_intent;
      return {
        kind: "checkout_completed",
        event_id: event.id,
        session_id: session.id,
        payment_id: typeof intent === "string" ? intent : (intent?.id ?? null),
        tenant_id: session.metadata?.tenant_id ?? null,
        package_id: session.metadata?.package_id ?? null,
        amount_cents: session.amount_total ?? null,
        currency: session.currency ?? null,
      };
    },
  };
}
