import type { Sql } from "../db.ts";
import { type Row, rowProjection, tenantPolicy } from "../projections/projection.ts";
import { type MessageEvent, messageEventTypes, NEVER_SENT } from "./messageEvents.ts";

/**
 * `messages`: one row per outbox message, its delivery status (docs/messages.md). The deliverer
 * reads it only to find which streams may be due; each stream decides for itself.
 */
export const MESSAGE_COLUMNS = [
  "tenant_id",
  "id",
  "topic",
  "channel",
  "recipients",
  "subject",
  "related_kind",
  "related_id",
  "status",
  "attempts",
  "last_error",
  "next_attempt_at",
  "claim_expires_at",
  "provider_message_id",
  "delivered_at",
  "revision",
  "created_at",
  "updated_at",
  "data_subjects",
  "erased_at",
] as const;

const at = (event: { metadata: { occurred_at: string }; stream_revision: bigint }) => ({
  revision: Number(event.stream_revision),
  updated_at: event.metadata.occurred_at,
});

export const messagesProjection = rowProjection<MessageEvent>({
  name: "messages",
  version: 2,
  table: "messages",
  columns: MESSAGE_COLUMNS,
  schema: `
CREATE TABLE messages (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  topic text NOT NULL,
  channel text NOT NULL,
  recipients jsonb,
  subject text,
  related_kind text,
  related_id text,
  status text NOT NULL,
  attempts integer NOT NULL,
  last_error text,
  next_attempt_at timestamptz,
  claim_expires_at timestamptz,
  provider_message_id text,
  delivered_at timestamptz,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  data_subjects text[] NOT NULL,
  erased_at timestamptz
);
CREATE INDEX messages_list ON messages (tenant_id, created_at, id);
CREATE INDEX messages_data_subjects ON messages USING gin (data_subjects);
CREATE INDEX messages_due ON messages (next_attempt_at) WHERE status IN ('QUEUED', 'RETRY_SCHEDULED');
CREATE INDEX messages_claimed ON messages (claim_expires_at) WHERE status = 'SENDING';
${tenantPolicy("messages")}`,
  handles: messageEventTypes,
  creates: ["MessageQueued"],
  keepRows: true,
  idOf: (event) => event.data.message_id,
  evolve(row, event): Row | null {
    switch (event.type) {
      case "MessageQueued": {
        const m = event.data;
        return {
          topic: m.topic,
          channel: m.channel,
          recipients: m.to,
          subject: m.subject,
          related_kind: m.related?.kind ?? null,
          related_id: m.related?.id ?? null,
          status: "QUEUED",
          attempts: 0,
          last_error: null,
          next_attempt_at: event.metadata.occurred_at,
          claim_expires_at: null,
          provider_message_id: null,
          delivered_at: null,
          created_at: event.metadata.occurred_at,
          data_subjects: m.data_subjects ?? [],
          erased_at: null,
          ...at(event),
        };
      }
      case "MessageSendStarted":
        return {
          ...row,
          status: "SENDING",
          attempts: event.data.attempt,
          next_attempt_at: null,
          claim_expires_at: event.data.claim_expires_at,
          ...at(event),
        };
      case "MessageContentTransmitted":
        return { ...row, ...at(event) };
      case "MessageDelivered":
        return {
          ...row,
          status: "DELIVERED",
          claim_expires_at: null,
          provider_message_id: event.data.provider_message_id,
          delivered_at: event.data.delivered_at,
          ...at(event),
        };
      case "MessageDeliveryFailed":
        return {
          ...row,
          status: event.data.will_retry ? "RETRY_SCHEDULED" : "FAILED",
          claim_expires_at: null,
          last_error: event.data.error,
          next_attempt_at: event.data.next_attempt_at,
          ...at(event),
        };
      case "MessageOutcomeUnknown":
        return {
          ...row,
          status: "UNCERTAIN",
          claim_expires_at: null,
          last_error: event.data.reason,
          ...at(event),
        };
      case "MessageOutcomeResolved":
        return event.data.resolution === "DELIVERED"
          ? { ...row, status: "DELIVERED", delivered_at: event.data.resolved_at, ...at(event) }
          : { ...row, status: "QUEUED", next_attempt_at: event.metadata.occurred_at, ...at(event) };
      case "MessagePersonalDataErased": {
        if (!row) return row;
        const erased = {
          ...row,
          recipients: null,
          subject: null,
          erased_at: event.data.erased_at,
          ...at(event),
        };
        return row.status === "DELIVERED" || row.status === "FAILED"
          ? erased
          : { ...erased, ...NEVER_SENT, next_attempt_at: null, claim_expires_at: null };
      }
      default: {
        const exhaustive: never = event;
        return exhaustive;
      }
    }
  },
});

/**
 * Messages that may need the deliverer at `now`, every tenant's: due ones and abandoned claims,
 * oldest first. The read model may lag; each stream is read again before anything is done.
 */
export async function dueMessageIds(sql: Sql, now: Date, limit: number): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `(SELECT id, next_attempt_at AS at FROM messages
       WHERE status IN ('QUEUED', 'RETRY_SCHEDULED') AND next_attempt_at <= $1
       ORDER BY next_attempt_at LIMIT $2)
     UNION ALL
     (SELECT id, claim_expires_at AS at FROM messages
       WHERE status = 'SENDING' AND claim_expires_at <= $1
       ORDER BY claim_expires_at LIMIT $2)
     ORDER BY at LIMIT $2`,
    [now.toISOString(), limit],
  );
  return rows.map((r) => r.id);
}
