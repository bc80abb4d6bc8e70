import { randomUUID } from "node:crypto";
import { type EventStore, WrongExpectedRevisionError } from "../eventstore/eventStore.ts";
import { isUuid } from "../ids.ts";
import {
  type MessageAttachment,
  type MessageRecipient,
  type MessageRelated,
  messageStream,
  type QueuedMessage,
} from "./messageEvents.ts";

/** What `queueMessage` needs: the event store only (no SMTP: delivery is the worker's). */
export interface OutboxDeps {
  store: EventStore;
}

type RecipientInput = Omit<MessageRecipient, "name"> & { name?: string | null };

/** A message to queue. `message_id` is derived from a business key (deterministicUuid) by the caller. */
export interface MessageToQueue {
  tenant_id: string;
  message_id: string;
  to: RecipientInput[];
  from?: RecipientInput | null;
  subject: string;
  text: string;
  html?: string | null;
  attachments?: MessageAttachment[];
  topic: string;
  related?: MessageRelated | null;
  /** The data subjects it is about or sent to (`lessee-<id>`...): their erasure erases it. */
  data_subjects?: string[];
  /** Who or what asked (metadata of the MessageQueued event). */
  actor_key_id?: string | null;
  correlation_id?: string | null;
  causation_id?: string | null;
}

/** Attachments ride in the event: keep them small (docs/messages.md). */
export const MAX_ATTACHMENTS_BYTES = 2 * 1024 * 1024;

/**
 * Queues an email in the outbox (docs/messages.md): appends `MessageQueued` to `message-<id>` with
 * the expected revision "no stream". Idempotent on `message_id`: when the stream exists already
 * (queued before, by this call's retry or another process) nothing is written and `queued` is
 * false. Once this resolves the message is durable: the worker delivers it, at most once.
 */
export async function queueMessage(
  deps: OutboxDeps,
  message: MessageToQueue,
): Promise<{ message_id: string; queued: boolean }> {
  const data = checkedMessage(message);
  try {
    await deps.store.appendToStream(
      messageStream(data.message_id),
      [
        {
          // A fresh id: a second queue of the same message then fails the "no stream" check (a
          // replay of the same id would pass as an idempotent retry and say `queued` twice).
          event_id: randomUUID(),
          type: "MessageQueued",
          data,
          metadata: {
            tenant_id: message.tenant_id,
            actor_key_id: message.actor_key_id ?? null,
            correlation_id: message.correlation_id ?? null,
            causation_id: message.causation_id ?? null,
            occurred_at: new Date().toISOString(),
          },
        },
      ],
      { expected_revision: "no_stream" },
    );
    return { message_id: data.message_id, queued: true };
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return { message_id: data.message_id, queued: false };
    throw error;
  }
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A caller's mistake is a programming error, never a message queued that cannot be sent. */
function checkedMessage(m: MessageToQueue): QueuedMessage {
  if (!isUuid(m.message_id)) throw new Error(`message_id must be a UUID: ${m.message_id}`);
  if (m.to.length === 0) throw new Error("A message needs at least one recipient");
  for (const r of [...m.to, ...(m.from ? [m.from] : [])])
    if (!EMAIL_RE.test(r.email)) throw new Error(`Invalid recipient email: ${r.email}`);
  if (!m.subject.trim()) throw new Error("A message needs a subject");
  const attachments = m.attachments ?? [];
  const bytes = attachments.reduce((n, a) => n + a.content_base64.length, 0);
  if (bytes > MAX_ATTACHMENTS_BYTES) throw new Error(`Attachments over ${MAX_ATTACHMENTS_BYTES} bytes`);
  return {
    message_id: m.message_id.toLowerCase(),
    channel: "email",
    to: m.to.map((r) => ({ email: r.email, name: r.name ?? null })),
    from: m.from ? { email: m.from.email, name: m.from.name ?? null } : null,
    subject: m.subject,
    text: m.text,
    html: m.html ?? null,
    attachments,
    topic: m.topic,
    related: m.related ?? null,
    ...(m.data_subjects?.length ? { data_subjects: m.data_subjects } : {}),
  };
}
