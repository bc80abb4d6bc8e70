import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, webhookSubscriptionStream } from "../../events/webhooks.ts";
import { fieldError, notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import {
  acceptedBody,
  createdAnswers,
  deletedAnswers,
  errorResponses,
  updatedAnswers,
} from "../../platform/http/responses.ts";
import { text } from "../../platform/http/schemas.ts";
import {
  readSubscription,
  subscriptionBody,
  subscriptionParams,
  WEBHOOKS_PATH,
} from "../../queries/webhooks.ts";
import { type WebhookSubscriptionCommand, webhookSubscriptionDecider } from "./decider.ts";
import { webhookUrlProblem } from "./url.ts";

/** POST, PUT, DELETE and test of /api/webhook-subscriptions (docs/webhooks.md). */

const tags = ["Webhooks"];
const write = { access: "SettingsWrite" as const };

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `Unknown event type: ${WEBHOOK_EVENT_TYPES.join(", ")}` }))
  .min(1, "At least one event type")
  .max(WEBHOOK_EVENT_TYPES.length * 2);

const newSubscription = z
  .strictObject({
    url: z.string().max(2000).describe('https, to a public host (docs/webhooks.md, "Addresses")'),
    events: eventTypes,
    description: text(500).nullish(),
  })
  .meta({ id: "NewWebhookSubscription" });

const subscriptionChanges = z
  .strictObject({
    url: z.string().max(2000).optional(),
    events: eventTypes.optional(),
    description: text(500).nullish(),
    enabled: z.boolean().optional().describe("false disables it; true enables it again (failures forgotten)"),
  })
  .meta({ id: "WebhookSubscriptionChanges" });

const createdSubscription = subscriptionBody
  .extend({
    secret: z
      .string()
      .describe(
        "whsec_ and 24 random bytes in base64: shown in this answer only, keep it to verify signatures",
      ),
  })
  .meta({ id: "CreatedWebhookSubscription" });

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format. */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

function checkUrl(request: FastifyRequest, url: string | undefined) {
  if (url === undefined) return;
  const problem = webhookUrlProblem(url, request.server.platform.config.PMS_WEBHOOKS_ALLOW_LOCALHOST);
  if (problem) throw fieldError("url", `The URL ${problem}`, "Invalid webhook subscription");
}

export async function webhookCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const run = (request: FastifyRequest, id: string, command: WebhookSubscriptionCommand, create = false) =>
    handleCommand(
      request,
      webhookSubscriptionStream(id),
      webhookSubscriptionDecider,
      command,
      create ? {} : { notFound: () => notFound("Webhook subscription", id) },
    );
  const item = `${WEBHOOKS_PATH}/:subscription_id`;

  api.post(
    WEBHOOKS_PATH,
    {
      schema: {
        tags,
        summary: "Subscribe a URL to events; the answer holds the signing secret, shown this once",
        body: newSubscription,
        response: createdAnswers(createdSubscription),
      },
      config: write,
    },
    async (request, reply) => {
      const { url, events, description } = request.body;
      checkUrl(request, url);
      const id = newResourceId(request);
      const secret = newSecret();
      const result = await run(
        request,
        id,
        {
          type: "CreateWebhookSubscription",
          subscription_id: id,
          secret,
          url,
          events,
          description: description ?? null,
        },
        true,
      );
      // An Idempotency-Key replay finds the first secret in the log (the one stored), not this one.
      const created = result.events.find((e) => e.type === "WebhookSubscriptionCreated");
      const shown =
        created?.type === "WebhookSubscriptionCreated"
          ? created.data.secret
          : await storedSecret(request, id);
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: `${WEBHOOKS_PATH}/${id}`,
        read: async () => {
          const found = await readSubscription(sql, tenantOf(request), id);
          return found && { ...found, body: { ...found.body, secret: shown } };
        },
      });
    },
  );

  api.put(
    item,
    {
      schema: {
        tags,
        summary: "Change a subscription's URL, events or description; disable or enable it",
        params: subscriptionParams,
        body: subscriptionChanges,
        response: updatedAnswers(subscriptionBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { subscription_id } = request.params;
      const { enabled, ...changes } = request.body;
      checkUrl(request, changes.url);
      const result = await run(request, subscription_id, {
        type: "UpdateWebhookSubscription",
        subscription_id,
        changes,
        enabled,
      });
      return replyWithResource(request, reply, 200, {
        id: subscription_id,
        position: result.position,
        read: () => readSubscription(sql, tenantOf(request), subscription_id),
      });
    },
  );

  api.delete(
    item,
    {
      schema: {
        tags,
        summary: "Delete a subscription",
        params: subscriptionParams,
        response: deletedAnswers,
      },
      config: write,
    },
    async (request, reply) => {
      const { subscription_id } = request.params;
      const result = await run(request, subscription_id, {
        type: "DeleteWebhookSubscription",
        subscription_id,
      });
      return replyWithResource(request, reply, 204, { id: subscription_id, position: result.position });
    },
  );

  api.post(
    `${item}/test`,
    {
      schema: {
        tags,
        summary: "Send a webhook.test event to this subscription (see its deliveries)",
        params: subscriptionParams,
        response: { 202: acceptedBody, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      const { subscription_id } = request.params;
      await run(request, subscription_id, { type: "TestWebhookSubscription", subscription_id });
      return reply
        .code(202)
        .header("location", `${item.replace(":subscription_id", subscription_id)}/deliveries`)
        .send({
          id: subscription_id,
          status: "accepted" as const,
          location: `${WEBHOOKS_PATH}/${subscription_id}/deliveries`,
        });
    },
  );
}

/** The secret the log holds for a subscription of the caller's tenant (an idempotent replay's). */
async function storedSecret(request: FastifyRequest, id: string): Promise<string> {
  const events = await request.server.platform.store.readStream(webhookSubscriptionStream(id));
  const first = events[0];
  return first?.metadata.tenant_id === tenantOf(request)
    ? String((first.data as { secret: string }).secret)
    : "";
}
