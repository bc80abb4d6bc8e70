import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { creditLedgerStream, PACKAGE_IDS, packageOf, purchaseIdOf } from "../../events/credits.ts";
import { ApiError, notFound, validationError } from "../../platform/errors.ts";
import { WrongExpectedRevisionError } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers, errorResponses } from "../../platform/http/responses.ts";
import { isUuid } from "../../platform/ids.ts";
import { LOCAL_CHECKOUT_PATH } from "../../platform/payments/localProvider.ts";
import {
  type CompletedCheckout,
  type PaymentProvider,
  WebhookRejected,
} from "../../platform/payments/paymentProvider.ts";
import { paymentProvidersOf } from "../../platform/payments/providers.ts";
import { runCommand } from "../../platform/runCommand.ts";
import { findTenant } from "../../platform/tenants/tenants.ts";
import { creditDecider } from "./decider.ts";

/**
 * Buying credits (DESIGN.md §7.2, docs/credits.md): a checkout session at the payment provider
 * (an owner's token only), and the provider's webhook that credits the purchase exactly once.
 */

const tags = ["Credits"];

const checkoutBody = z
  .strictObject({ package_id: z.enum(PACKAGE_IDS).describe("A package of GET /api/credits/packages") })
  .meta({ id: "CreditCheckoutRequest" });

const checkoutSessionBody = z
  .strictObject({
    session_id: z.string().describe("The provider's checkout session id"),
    checkout_url: z.string().describe("Where the buyer pays (the provider's page)"),
    provider: z.string(),
    package_id: z.enum(PACKAGE_IDS),
  })
  .meta({ id: "CreditCheckoutSession", description: "A checkout session opened at the payment provider" });

const webhookAnswer = z
  .strictObject({
    received: z.literal(true),
    event_id: z.string().describe("The provider's event id"),
    credited: z
      .boolean()
      .describe("Whether this delivery credited the purchase (false: already credited, or not a purchase)"),
    purchase_id: z.uuid().nullable(),
  })
  .meta({ id: "PaymentWebhookReceipt", description: "What a payment provider's webhook delivery did" });

const localCheckoutAnswer = z
  .strictObject({
    session_id: z.string(),
    status: z.literal("COMPLETED"),
    credited: z.boolean(),
  })
  .meta({ id: "LocalCheckoutCompletion", description: "A local provider checkout, completed" });

/** The raw bytes of a webhook delivery: the provider signs them, not their parsed JSON. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** `scheme://host` of the request, for the URLs the providers send the buyer to. */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/**
 * Credits a verified, paid checkout on its tenant's ledger. The purchase id comes from the
 * provider's session id and the event ids from it, so duplicate or concurrent deliveries append
 * once: the others find it in the stream (expected revision) and write nothing.
 */
async function creditPurchase(
  request: FastifyRequest,
  provider: PaymentProvider,
  paid: CompletedCheckout,
): Promise<{ credited: boolean; purchase_id: string }> {
  const { platform } = request.server;
  // The tenant and package are our checkout's metadata, signed with the provider's event.
  const pkg = packageOf(paid.package_id ?? "");
  if (!isUuid(paid.tenant_id) || !pkg)
    throw validationError("The checkout carries no tenant or package of this service");
  if (!(await findTenant(platform.sql, paid.tenant_id)))
    throw validationError("The checkout's tenant is unknown to this service");
  if (
    paid.amount_cents !== Math.round(pkg.price * 100) ||
    (paid.currency ?? "").toUpperCase() !== pkg.currency
  )
    throw validationError(
      `The amount paid (${paid.amount_cents} ${paid.currency}) is not the price of package ${pkg.id}`,
    );
  const purchase_id = purchaseIdOf(provider.name, paid.session_id);
  const context = {
    store: platform.store,
    tenant_id: paid.tenant_id,
    metadata: {
      tenant_id: paid.tenant_id,
      actor_key_id: `payment-provider:${provider.name}`,
      correlation_id: String(request.id),
      causation_id: null,
      occurred_at: new Date().toISOString(),
    },
  };
  const command = {
    type: "RecordPurchase" as const,
    purchase: {
      purchase_id,
      package_id: pkg.id,
      credits: pkg.credits,
      amount: pkg.price,
      currency: pkg.currency,
      provider: provider.name,
      provider_session_id: paid.session_id,
      provider_payment_id: paid.payment_id,
      provider_event_id: paid.event_id,
    },
  };
  // Many deliveries at once: each lost race re-reads the stream and finds the purchase (the
  // decider answers no event). Event ids stay random so that `credited` tells the one writer.
  for (let round = 0; ; round++) {
    try {
      const result = await runCommand(context, creditLedgerStream(paid.tenant_id), creditDecider, command);
      const credited = result.events.length > 0 && result.position !== null;
      if (result.position)
        await platform.projections.waitFor(result.position, platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS);
      return { credited, purchase_id };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || round >= 20) throw error;
    }
  }
}

export async function creditCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const providers = paymentProvidersOf(app.platform.config);

  api.post(
    "/api/credits/checkout",
    {
      schema: {
        tags,
        operationId: "createCreditCheckout",
        summary: "Open a checkout session for a package of credits (an owner's user token only)",
        body: checkoutBody,
        response: { 201: checkoutSessionBody, ...errorResponses },
      },
      config: { access: "owner", invalidBodyMessage: "Invalid checkout" },
    },
    async (request, reply) => {
      const pkg = packageOf(request.body.package_id);
      if (!pkg) throw notFound("Credit package", request.body.package_id);
      const provider = providers.active;
      let session: { session_id: string; checkout_url: string };
      try {
        session = await provider.createCheckout({
          checkout_id: randomUUID(),
          tenant_id: tenantOf(request),
          package_id: pkg.id,
          name: pkg.name,
          price: pkg.price,
          currency: pkg.currency,
          origin: originOf(request),
        });
      } catch (error) {
        request.log.warn({ err: error, provider: provider.name }, "checkout session not created");
        throw new ApiError(
          "ServiceUnavailable",
          `The payment provider ${provider.name} could not open a checkout; retry later`,
        );
      }
      reply.header("location", session.checkout_url);
      return reply.status(201).send({ ...session, provider: provider.name, package_id: pkg.id });
    },
  );

  // The webhook, in its own context: its JSON parser keeps the raw bytes the signature covers.
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
      rawBodies.set(request, body as Buffer);
      done(null, undefined);
    });
    hooks.withTypeProvider<ZodTypeProvider>().post(
      "/api/webhooks/:payment_provider",
      {
        schema: {
          tags,
          operationId: "receivePaymentWebhook",
          summary:
            "Inbound webhook of a payment provider (stripe, local), authenticated by its signature on the raw body",
          description:
            "Public: the provider's signature on the raw body is the only credential (Stripe-Signature for stripe, Standard Webhooks headers for local). A bad or stale signature is a 400 and records nothing; a paid checkout credits its tenant once, however many deliveries. Unknown or unconfigured provider: 404.",
          params: z.strictObject({ payment_provider: z.string().max(50) }),
          response: answers(webhookAnswer),
        },
        config: { access: "public" },
      },
      async (request) => {
        const provider = providers.byName.get(request.params.payment_provider);
        if (!provider) throw notFound("Payment provider", request.params.payment_provider);
        const raw = rawBodies.get(request);
        if (!raw) throw validationError("Missing webhook body");
        let event: ReturnType<PaymentProvider["verifyWebhook"]>;
        try {
          event = provider.verifyWebhook(raw, request.headers);
        } catch (error) {
          if (error instanceof WebhookRejected) throw validationError(error.message);
          throw error;
        }
        if (event.kind === "ignored") {
          request.log.info(
            { provider: provider.name, event_id: event.event_id, type: event.type },
            "payment webhook ignored",
          );
          return { received: true as const, event_id: event.event_id, credited: false, purchase_id: null };
        }
        const done = await creditPurchase(request, provider, event);
        request.log.info({ provider: provider.name, event_id: event.event_id, ...done }, "payment webhook");
        return { received: true as const, event_id: event.event_id, ...done };
      },
    );
  });

  // The local provider's checkout page: requesting it pays (no money moves) and delivers the webhook.
  api.get(
    `${LOCAL_CHECKOUT_PATH}/:session_id`,
    {
      schema: {
        tags,
        operationId: "completeLocalCheckout",
        summary:
          "The local payment provider's checkout page: completes the checkout (embedded use, no money moves)",
        description:
          "Only while the local provider is active (no STRIPE_SECRET_KEY). The query is the one of the checkout_url, signed; requesting it delivers a signed `checkout.completed` webhook to /api/webhooks/local, as a real provider would.",
        params: z.strictObject({ session_id: z.uuid() }),
        querystring: z.strictObject({
          tenant_id: z.uuid(),
          package_id: z.string().max(50),
          amount_cents: z.coerce.number().int().min(0).max(1e9),
          currency: z.string().max(10),
          signature: z.string().max(200),
        }),
        response: answers(localCheckoutAnswer),
      },
      config: { access: "public" },
    },
    async (request) => {
      const local = providers.local;
      if (!local) throw notFound("Payment provider", "local");
      const session = local.sessionOf({ session_id: request.params.session_id, ...request.query });
      if (!session) throw validationError("Invalid checkout signature");
      const delivery = local.delivery(session);
      const res = await request.server.inject({
        method: "POST",
        url: "/api/webhooks/local",
        headers: delivery.headers,
        payload: delivery.body,
      });
      if (res.statusCode !== 200) {
        const body = res.json();
        throw new ApiError(body.error ?? "InternalError", body.message ?? "The webhook failed");
      }
      return { session_id: session.session_id, status: "COMPLETED" as const, credited: res.json().credited };
    },
  );
}
