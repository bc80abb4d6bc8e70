import type { Sql } from "../../db.ts";
import type { RecordedEvent } from "../eventStore.ts";
import { EVENT_COLUMNS, toRecordedEvent } from "./readEvents.ts";

export async function readStream(
  sql: Sql,
  stream_name: string,
  options: { from_revision?: bigint; max_count?: number } = {},
): Promise<RecordedEvent[]> {
  const rows = await sql.query(
    `SELECT ${EVENT_COLUMNS} FROM events
     WHERE stream_name = $1 AND stream_revision >= $2
     ORDER BY stream_revision LIMIT $3`,
    [stream_name, (options.from_revision ?? 0n).toString(), options.max_count ?? 1_000_000],
  );
  return rows.map(toRecordedEvent);
}
