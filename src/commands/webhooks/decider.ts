import {
  evolveWebhookSubscription,
  initialWebhookSubscriptionState,
  type WebhookSubscriptionEvent,
  type WebhookSubscriptionFields,
  type WebhookSubscriptionState,
} from "../../events/webhooks.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound } from "../../platform/errors.ts";

/** Commands of a webhook subscription (docs/webhooks.md). The URL is checked before (url.ts). */
export type WebhookSubscriptionCommand =
  | ({
      type: "CreateWebhookSubscription";
      subscription_id: string;
      secret: string;
    } & WebhookSubscriptionFields)
  | {
      type: "UpdateWebhookSubscription";
      subscription_id: string;
      changes: Partial<WebhookSubscriptionFields>;
      enabled?: boolean;
    }
  | { type: "DeleteWebhookSubscription"; subscription_id: string }
  | { type: "TestWebhookSubscription"; subscription_id: string }
  | { type: "DisableWebhookSubscription"; subscription_id: string; reason: string };

const live = (state: WebhookSubscriptionState, id: string) => {
  if (!state.exists || state.deleted) throw notFound("Webhook subscription", id);
};

export const webhookSubscriptionDecider: Decider<
  WebhookSubscriptionState,
  WebhookSubscriptionCommand,
  WebhookSubscriptionEvent
> = {
  initialState: initialWebhookSubscriptionState,
  evolve: evolveWebhookSubscription,
  decide(command, state) {
    const { subscription_id } = command;
    switch (command.type) {
      case "CreateWebhookSubscription": {
        if (state.exists) throw conflict(`Webhook subscription ${subscription_id} already exists`);
        const { secret, url, events, description } = command;
        return [
          {
            type: "WebhookSubscriptionCreated",
            data: { subscription_id, secret, url, events: [...new Set(events)], description },
          },
        ];
      }
      case "UpdateWebhookSubscription": {
        live(state, subscription_id);
        const current = state.fields as WebhookSubscriptionFields;
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(
            ([k, v]) =>
              v !== undefined &&
              JSON.stringify(v) !== JSON.stringify(current[k as keyof WebhookSubscriptionFields]),
          ),
        ) as Partial<WebhookSubscriptionFields>;
        if (changes.events) changes.events = [...new Set(changes.events)];
        const out: WebhookSubscriptionEvent[] = [];
        if (Object.keys(changes).length > 0)
          out.push({ type: "WebhookSubscriptionUpdated", data: { subscription_id, changes } });
        if (command.enabled === true && !state.enabled)
          out.push({ type: "WebhookSubscriptionEnabled", data: { subscription_id } });
        if (command.enabled === false && state.enabled)
          out.push({
            type: "WebhookSubscriptionDisabled",
            data: { subscription_id, reason: "Disabled by a user" },
          });
        return out;
      }
      case "DeleteWebhookSubscription":
        live(state, subscription_id);
        return [{ type: "WebhookSubscriptionDeleted", data: { subscription_id } }];
      case "TestWebhookSubscription":
        live(state, subscription_id);
        // A disabled subscription receives nothing, a test included: enable it first.
        if (!state.enabled)
          throw conflict(`Webhook subscription ${subscription_id} is disabled: enable it first`);
        return [{ type: "WebhookTestRequested", data: { subscription_id } }];
      case "DisableWebhookSubscription":
        if (!state.exists || state.deleted || !state.enabled) return [];
        return [{ type: "WebhookSubscriptionDisabled", data: { subscription_id, reason: command.reason } }];
      default: {
        const exhaustive: never = command;
        return exhaustive;
      }
    }
  },
};
