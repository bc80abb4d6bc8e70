import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import { type LocalProvider, localProvider } from "./localProvider.ts";
import type { PaymentProvider } from "./paymentProvider.ts";
import { stripeProvider } from "./stripeProvider.ts";

export interface PaymentProviders {
  /** The provider of new checkouts. */
  active: PaymentProvider;
  /** The providers whose webhooks are accepted, by the `{payment_provider}` of the path. */
  byName: ReadonlyMap<string, PaymentProvider>;
  /** The local provider when it is the active one (its checkout page answers only then). */
  local: LocalProvider | null;
}

const made = new WeakMap<Config, PaymentProviders>();

/**
 * From the configuration (docs/credits.md): Stripe when STRIPE_SECRET_KEY is set, else local.
 * Stripe's webhook is accepted when STRIPE_WEBHOOK_SECRET is set; the local one only while local
 * is the active provider, so a Stripe deployment has no free path to credits.
 */
export function paymentProvidersOf(config: Config): PaymentProviders {
  const known = made.get(config);
  if (known) return known;
  const byName = new Map<string, PaymentProvider>();
  let local: LocalProvider | null = null;
  const stripe = stripeProvider({
    secretKey: config.STRIPE_SECRET_KEY,
    webhookSecret: config.STRIPE_WEBHOOK_SECRET,
    successUrl: config.STRIPE_SUCCESS_URL,
    cancelUrl: config.STRIPE_CANCEL_URL,
  });
  if (config.STRIPE_WEBHOOK_SECRET) byName.set("stripe", stripe);
  if (!config.STRIPE_SECRET_KEY) {
    local = localProvider(config.PMS_LOCAL_PAYMENT_SECRET ?? randomBytes(32).toString("base64url"));
    byName.set("local", local);
  }
  const providers = { active: local ?? stripe, byName, local };
  made.set(config, providers);
  return providers;
}
