import { randomUUID } from "node:crypto";
import type { Sql } from "../db.ts";
import type { EventMetadata, EventStore, Position } from "../eventstore/eventStore.ts";
import { destroySubjectKey } from "../personalData/keyring.ts";
import { messageStream } from "./messageEvents.ts";

/**
 * A data subject's erasure reaches the outbox (docs/personal-data.md): each message naming the
 * subject in `data_subjects`, or naming none and sent to one of its `addresses` (queued with an
 * address only, or before messages named their subjects), gets `MessagePersonalDataErased` (never
 * sent from then on), then its own key is destroyed, so its recipients and content read null
 * everywhere. Idempotent. Answers the position of the last event appended (a SubjectErasure,
 * src/platform/personalData/erasure.ts).
 */
export async function eraseMessagesOf(
  deps: { sql: Sql; store: EventStore },
  tenantId: string,
  dataSubject: string,
  metadata: Omit<EventMetadata, "tenant_id">,
  addresses: readonly string[] = [],
): Promise<Position | null> {
  const rows = await deps.sql.asTenant(tenantId, (tx) =>
    tx.query<{ id: string; erased: boolean }>(
      `SELECT id, erased_at IS NOT NULL AS erased FROM messages
        WHERE tenant_id = $1 AND (data_subjects @> ARRAY[$2]::text[]
          OR (cardinality(data_subjects) = 0 AND cardinality($3::text[]) > 0
              AND jsonb_typeof(recipients) = 'array' AND EXISTS (
            SELECT 1 FROM jsonb_array_elements(recipients) r WHERE lower(trim(r->>'email')) = ANY($3::text[]))))
        ORDER BY created_at, id`,
      [tenantId, dataSubject, [...addresses]],
    ),
  );
  let position: Position | null = null;
  for (const { id, erased } of rows) {
    if (!erased)
      ({ position } = await deps.store.appendToStream(
        messageStream(id),
        [
          {
            event_id: randomUUID(),
            type: "MessagePersonalDataErased",
            data: { message_id: id, data_subject: dataSubject, erased_at: metadata.occurred_at },
            metadata: { ...metadata, tenant_id: tenantId },
          },
        ],
        { expected_revision: "stream_exists" },
      ));
    await destroySubjectKey(deps.sql, tenantId, messageStream(id));
  }
  return position;
}
