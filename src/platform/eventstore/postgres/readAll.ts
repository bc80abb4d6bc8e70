import type { Sql } from "../../db.ts";
import type { Position, ReadAllOptions, RecordedEvent } from "../eventStore.ts";
import { EVENT_COLUMNS, toRecordedEvent } from "./readEvents.ts";

/**
 * Log order is (transaction_id, position). Nothing at or past the oldest transaction still
 * running is returned, so an event whose transaction commits late is never skipped.
 * ORDER BY names `events.` columns: a bare `transaction_id` would mean the selected text alias,
 * sorting xids as strings ("10" < "9") and ruling out the (transaction_id, position) index.
 */
export async function readAll(sql: Sql, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const after = options.after ?? { commit: 0n, prepare: -1n };
  const rows = await sql.query(
    `SELECT ${EVENT_COLUMNS} FROM events
     WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY events.transaction_id, events.position
     LIMIT $3`,
    [(after.commit < 0n ? 0n : after.commit).toString(), after.prepare.toString(), options.max_count ?? 1000],
    { prepare: true },
  );
  return rows.map(toRecordedEvent);
}

export async function headPosition(sql: Sql): Promise<Position | null> {
  const [row] = await sql.query(
    `SELECT position, transaction_id::text AS transaction_id FROM events
     WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY events.transaction_id DESC, events.position DESC LIMIT 1`,
  );
  return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) } : null;
}
