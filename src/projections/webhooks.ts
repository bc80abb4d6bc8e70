import { LEASE_STATUS_EVENTS } from "../events/leaseEventGroups.ts";
import { STATUS_OF_EVENT } from "../events/leases.ts";
import type { MeterAnomaly } from "../events/meters.ts";
import type { PaymentRecordedData } from "../events/rentCycle.ts";
import type { SignatureCompletedData } from "../events/signing.ts";
import { WEBHOOK_SUBSCRIPTION_EVENT_TYPES, type WebhookSubscriptionEvent } from "../events/webhooks.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../platform/ids.ts";
import { type Projection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * The `webhooks` projection (docs/webhooks.md): `webhook_subscriptions`, one row per live
 * subscription, and `webhook_deliveries`, one row per (subscription, event) to send. Both in one
 * projection, so an event goes to exactly the subscriptions that were enabled and asked for its
 * type at its place in the log, and the checkpoint makes each row written once. The deliverer
 * (src/commands/webhooks/deliver.ts) owns the delivery columns after `payload`; this projection
 * only inserts rows (ON CONFLICT DO NOTHING), so a live batch never undoes an attempt.
 */

export const webhookDeliveryId = (subscriptionId: string, sourceId: string) =>
  deterministicUuid("webhook-delivery", subscriptionId, sourceId);

/** The Standard Webhooks payload: `{type, timestamp, data}`. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

interface Subscription {
  id: string;
  tenant_id: string;
  events: string[];
  enabled: boolean;
}

export interface NewDelivery {
  tenant_id: string;
  id: string;
  subscription_id: string;
  webhook_id: string;
  event_type: string;
  payload: WebhookPayload;
  occurred_at: string;
}

/** What an event of another area is, as a webhook: its type and data, or null. */
function payloadOf(event: RecordedEvent): WebhookPayload | null {
  const timestamp = event.metadata.occurred_at;
  if (event.type in STATUS_OF_EVENT) {
    const { lease_id, effective_date, reason } = event.data as {
      lease_id: string;
      effective_date: string;
      reason: string | null;
    };
    return {
      type: "lease.status_changed",
      timestamp,
      data: { lease_id, status: STATUS_OF_EVENT[event.type], effective_date, reason: reason ?? null },
    };
  }
  if (event.type === "LeaseSignatureCompleted") {
    const d = event.data as SignatureCompletedData;
    return {
      type: "signature.completed",
      timestamp,
      data: {
        lease_id: d.lease_id,
        process_id: d.process_id,
        signed_pdf_sha256: d.signed_pdf.sha256,
        evidence_sha256: d.evidence.sha256,
        completed_at: d.completed_at,
        signature_level: "SIMPLE",
      },
    };
  }
  if (event.type === "PaymentRecorded") {
    const p = event.data as PaymentRecordedData;
    return {
      type: "payment.recorded",
      timestamp,
      data: {
        payment_id: p.payment_id,
        lease_id: p.lease_id,
        amount: p.amount,
        paid_on: p.paid_on,
        method: p.method,
        reference: p.reference,
      },
    };
  }
  if (event.type === "MeterConsumptionAnomalyDetected") {
    const a = event.data as MeterAnomaly;
    return { type: "meter.anomaly", timestamp, data: { ...a } };
  }
  return null;
}

export const WEBHOOK_DELIVERIES_DDL = `
CREATE TABLE webhook_subscriptions (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  secret text NOT NULL,
  enabled boolean NOT NULL,
  -- Since when it is enabled: failures before it do not count toward disabling it again.
  enabled_at timestamptz NOT NULL,
  disabled_reason text,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_subscriptions_tenant ON webhook_subscriptions (tenant_id, created_at, id);
${tenantPolicy("webhook_subscriptions")}

CREATE TABLE webhook_deliveries (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  subscription_id uuid NOT NULL,
  webhook_id text NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'PENDING',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  finished_at timestamptz,
  attempt_log jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('PENDING', 'RETRY_SCHEDULED', 'SENDING');
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at, id);
-- One delivery per (subscription, webhook id): a rent call's overdue notice is derived, not logged.
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (subscription_id, webhook_id);
${tenantPolicy("webhook_deliveries")}`;

/** Inserts delivery rows; one already there (a redone batch, the overdue scan) is left as it is. */
export async function insertDeliveries(tx: Sql, rows: NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_deliveries (tenant_id, id, subscription_id, webhook_id, event_type, payload, occurred_at)
     SELECT tenant_id, id, subscription_id, webhook_id, event_type, payload, occurred_at
     FROM jsonb_to_recordset($1::jsonb) AS r(tenant_id uuid, id uuid, subscription_id uuid, webhook_id text,
       event_type text, payload jsonb, occurred_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

async function applySubscriptionEvent(
  tx: Sql,
  event: RecordedEvent<WebhookSubscriptionEvent>,
  subscriptions: Map<string, Subscription>,
  deliveries: NewDelivery[],
): Promise<void> {
  const tenant_id = event.metadata.tenant_id;
  const id = event.data.subscription_id;
  const at = event.metadata.occurred_at;
  const revision = Number(event.stream_revision);
  const stamp = [id, revision, at];
  switch (event.type) {
    case "WebhookSubscriptionCreated": {
      const { url, events, description, secret } = event.data;
      subscriptions.set(id, { id, tenant_id, events, enabled: true });
      await tx.query(
        `INSERT INTO webhook_subscriptions
           (tenant_id, id, url, events, description, secret, enabled, enabled_at, revision, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, $8, $7, $8, $8) ON CONFLICT (id) DO NOTHING`,
        [tenant_id, id, url, events, description, secret, revision, at],
      );
      return;
    }
    case "WebhookSubscriptionUpdated": {
      const { url, events, description } = event.data.changes;
      const known = subscriptions.get(id);
      if (known && events) known.events = events;
      await tx.query(
        `UPDATE webhook_subscriptions SET revision = $2, updated_at = $3,
           url = coalesce($4, url), events = coalesce($5, events),
           description = CASE WHEN $6 THEN $7 ELSE description END
         WHERE id = $1`,
        [...stamp, url ?? null, events ?? null, description !== undefined, description ?? null],
      );
      return;
    }
    case "WebhookSubscriptionDisabled":
    case "WebhookSubscriptionEnabled": {
      const enabled = event.type === "WebhookSubscriptionEnabled";
      const known = subscriptions.get(id);
      if (known) known.enabled = enabled;
      const reason = event.type === "WebhookSubscriptionDisabled" ? event.data.reason : null;
      await tx.query(
        "UPDATE webhook_subscriptions SET revision = $2, updated_at = $3, enabled = $4, disabled_reason = $5, enabled_at = CASE WHEN $4 THEN $3 ELSE enabled_at END WHERE id = $1",
        [...stamp, enabled, reason],
      );
      return;
    }
    case "WebhookSubscriptionDeleted":
      subscriptions.delete(id);
      await tx.query("DELETE FROM webhook_subscriptions WHERE id = $1", [id]);
      return;
    case "WebhookTestRequested":
      deliveries.push({
        tenant_id,
        id: webhookDeliveryId(id, event.event_id),
        subscription_id: id,
        webhook_id: `msg_${event.event_id}`,
        event_type: "webhook.test",
        payload: { type: "webhook.test", timestamp: at, data: { subscription_id: id } },
        occurred_at: at,
      });
      return;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

const SUBSCRIPTION_EVENTS = new Set<string>(WEBHOOK_SUBSCRIPTION_EVENT_TYPES);

export const webhooksProjection: Projection = {
  name: "webhooks",
  version: 1,
  tables: ["webhook_subscriptions", "webhook_deliveries"],
  schema: WEBHOOK_DELIVERIES_DDL,
  handles: [
    ...WEBHOOK_SUBSCRIPTION_EVENT_TYPES,
    ...LEASE_STATUS_EVENTS,
    "PaymentRecorded",
    "LeaseSignatureCompleted",
    "MeterConsumptionAnomalyDetected",
  ],
  async applyBatch(tx, events) {
    const tenants = [...new Set(events.map((e) => e.metadata.tenant_id))];
    const subscriptions = new Map<string, Subscription>();
    const rows = await tx.query<Subscription>(
      "SELECT id, tenant_id, events, enabled FROM webhook_subscriptions WHERE tenant_id = ANY($1::uuid[])",
      [tenants],
    );
    for (const s of rows) subscriptions.set(s.id, { ...s, id: String(s.id), tenant_id: String(s.tenant_id) });
    const deliveries: NewDelivery[] = [];
    for (const event of events) {
      if (SUBSCRIPTION_EVENTS.has(event.type)) {
        // Deliveries so far first: a subscription change applies to the events after it.
        await applySubscriptionEvent(
          tx,
          event as RecordedEvent<WebhookSubscriptionEvent>,
          subscriptions,
          deliveries,
        );
        continue;
      }
      const payload = payloadOf(event);
      if (!payload) continue;
      for (const s of subscriptions.values()) {
        if (s.tenant_id !== event.metadata.tenant_id || !s.enabled || !s.events.includes(payload.type))
          continue;
        deliveries.push({
          tenant_id: s.tenant_id,
          id: webhookDeliveryId(s.id, event.event_id),
          subscription_id: s.id,
          webhook_id: `msg_${event.event_id}`,
          event_type: payload.type,
          payload,
          occurred_at: event.metadata.occurred_at,
        });
      }
    }
    await insertDeliveries(tx, deliveries);
  },
};
