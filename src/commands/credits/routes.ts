import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { PACKAGE_IDS, packageOf } from "../../events/credits.ts";
import { ApiError, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers, errorResponses } from "../../platform/http/responses.ts";
import { LOCAL_CHECKOUT_PATH } from "../../platform/payments/localProvider.ts";
import {
  checkoutProblem,
  type PaymentProvider,
  WebhookRejected,
} from "../../platform/payments/paymentProvider.ts";
import { paymentProvidersOf } from "../../platform/payments/providers.ts";
import { creditPurchase } from "./purchases.ts";

/**
 * Buying credits (docs/design.md §7.2, docs/credits.md): a checkout session at the payment provider
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

export async function creditCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const providers = paymentProvidersOf(app.platform.config);

  api.post(
    "/api/credits/checkout",
    {
      schema: {
        tags,
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
        const problem = checkoutProblem(event);
        if (problem) throw validationError(problem);
        const done = await creditPurchase(
          { sql: request.server.platform.sql, store: request.server.platform.store },
          provider.name,
          event,
          String(request.id),
        );
        if (done.position)
          await request.server.platform.projections.waitFor(
            done.position,
            request.server.platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS,
          );
        request.log.info({ provider: provider.name, event_id: event.event_id, ...done }, "payment webhook");
        return {
          received: true as const,
          event_id: event.event_id,
          credited: done.credited,
          purchase_id: done.purchase_id,
        };
      },
    );
  });

  // The local provider's checkout page: requesting it pays (no money moves) and delivers the webhook.
  api.get(
    `${LOCAL_CHECKOUT_PATH}/:session_id`,
    {
      schema: {
        tags,
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
