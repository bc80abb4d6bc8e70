import { allEventTypes } from "../platform/decider.ts";
/**
 * Outbound webhooks (docs/design.md §7.2, docs/webhooks.md): a tenant's subscriptions, one stream
 * each, `webhook_subscription-<uuid>`. Deliveries are not events: the `webhooks` projection
 * derives them from the log and the deliverer records their attempts (docs/webhooks.md).
 */

/**
 * Event types a subscription may ask for (docs/design.md §7.2 names them); `webhook.test` is sent only
 * by the test route, to the one subscription tested.
 */
export const WEBHOOK_EVENT_TYPES = [
  "lease.status_changed",
  "payment.recorded",
  "rent_call.overdue",
  "signature.completed",
  "meter.anomaly",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | "webhook.test";

export const webhookSubscriptionStream = (id: string) => `webhook_subscription-${id}`;

export interface WebhookSubscriptionFields {
  url: string;
  events: string[];
  description: string | null;
}

export type WebhookSubscriptionEvent =
  /** The secret is in the log: HMAC signing needs it in clear (docs/webhooks.md, "Secrets"). */
  | {
      type: "WebhookSubscriptionCreated";
      data: { subscription_id: string; secret: string } & WebhookSubscriptionFields;
    }
  | {
      type: "WebhookSubscriptionUpdated";
      data: { subscription_id: string; changes: Partial<WebhookSubscriptionFields> };
    }
  /** By the deliverer after repeated failures (reason), or by PUT `{enabled: false}`. */
  | { type: "WebhookSubscriptionDisabled"; data: { subscription_id: string; reason: string } }
  | { type: "WebhookSubscriptionEnabled"; data: { subscription_id: string } }
  | { type: "WebhookSubscriptionDeleted"; data: { subscription_id: string } }
  | { type: "WebhookTestRequested"; data: { subscription_id: string } };

export const WEBHOOK_SUBSCRIPTION_EVENT_TYPES = allEventTypes<WebhookSubscriptionEvent["type"]>()([
  "WebhookSubscriptionCreated",
  "WebhookSubscriptionUpdated",
  "WebhookSubscriptionDisabled",
  "WebhookSubscriptionEnabled",
  "WebhookSubscriptionDeleted",
  "WebhookTestRequested",
]);

export interface WebhookSubscriptionState {
  exists: boolean;
  deleted: boolean;
  enabled: boolean;
  fields: WebhookSubscriptionFields | null;
}

export const initialWebhookSubscriptionState = (): WebhookSubscriptionState => ({
  exists: false,
  deleted: false,
  enabled: false,
  fields: null,
});

export function evolveWebhookSubscription(
  state: WebhookSubscriptionState,
  event: WebhookSubscriptionEvent,
): WebhookSubscriptionState {
  switch (event.type) {
    case "WebhookSubscriptionCreated": {
      const { url, events, description } = event.data;
      return { exists: true, deleted: false, enabled: true, fields: { url, events, description } };
    }
    case "WebhookSubscriptionUpdated":
      return { ...state, fields: state.fields && { ...state.fields, ...event.data.changes } };
    case "WebhookSubscriptionDisabled":
      return { ...state, enabled: false };
    case "WebhookSubscriptionEnabled":
      return { ...state, enabled: true };
    case "WebhookSubscriptionDeleted":
      return { ...state, deleted: true, enabled: false };
    case "WebhookTestRequested":
      return state;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}
