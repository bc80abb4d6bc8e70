import type { RecordedEvent } from "../eventStore.ts";
import { upcast } from "../upcast.ts";

export const EVENT_COLUMNS = `event_id::text, type, schema_version, data, metadata, stream_name,
  stream_revision, position, transaction_id::text AS transaction_id, created_at, previous_hash, hash`;

/** A row as the port's event, upcast to its type's current shape (upcast.ts). */
export function toRecordedEvent(row: any): RecordedEvent {
  return upcast({
    event_id: row.event_id,
    type: row.type,
    schema_version: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    stream_name: row.stream_name,
    stream_revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) },
    created_at: row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at),
    previous_hash: row.previous_hash,
    hash: row.hash,
  });
}
