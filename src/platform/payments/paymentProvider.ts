import { isStorable } from "../http/schemas.ts";

/**
 * The payment-provider port (docs/credits.md): open a checkout session for a package, and read
 * a webhook delivery whose signature the provider's own scheme proves. Adapters: Stripe (the
 * official client) and local (embedded use, no money moves).
 */

/** What we ask the provider to charge; the metadata comes back signed in its webhook. */
export interface CheckoutRequest {
  checkout_id: string;
  tenant_id: string;
  package_id: string;
  name: string;
  /** Euros, to the cent. */
  price: number;
  currency: string;
  /** Where this service answers (scheme, host, port): the local adapter's URLs, Stripe's defaults. */
  origin: string;
}

export interface CheckoutSession {
  session_id: string;
  checkout_url: string;
}

/** A paid checkout as a verified webhook tells it; `tenant_id` and `package_id` are our metadata. */
export interface CompletedCheckout {
  kind: "checkout_completed";
  event_id: string;
  session_id: string;
  payment_id: string | null;
  tenant_id: string | null;
  package_id: string | null;
  /** Cents, as the provider counts them. */
  amount_cents: number | null;
  currency: string | null;
}

/** A verified event this service does not act on (logged in the answer, nothing recorded). */
export interface OtherEvent {
  kind: "ignored";
  event_id: string;
  type: string;
}

export type PaymentEvent = CompletedCheckout | OtherEvent;

export interface PaymentProvider {
  name: string;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * The event of a delivery, from its raw body and headers, or a thrown `WebhookRejected`
   * (bad or missing signature, timestamp outside the tolerance, unreadable body).
   */
  verifyWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent;
}

export class WebhookRejected extends Error {}

/** The first value of a header. */
export const headerOf = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a verified checkout cannot be recorded, or null: a signature proves who sent a body, not
 * that its ids are text the log can hold (a lone surrogate makes the append throw) or of a sane
 * length. The webhook answers 400 on it and records nothing (docs/credits.md, "The webhook").
 */
export function checkoutProblem(event: CompletedCheckout): string | null {
  const ids = {
    event_id: event.event_id,
    session_id: event.session_id,
    payment_id: event.payment_id,
    tenant_id: event.tenant_id,
    package_id: event.package_id,
    currency: event.currency,
  };
  for (const [field, value] of Object.entries(ids)) {
    if (value === null && field !== "event_id" && field !== "session_id") continue;
    if (typeof value !== "string" || value === "" || value.length > 255 || !isStorable(value))
      return `The checkout's ${field} is not a text of 1 to 255 storable characters`;
  }
  if (event.amount_cents !== null && !Number.isSafeInteger(event.amount_cents))
    return "The checkout's amount is not a whole number of cents";
  return null;
}
