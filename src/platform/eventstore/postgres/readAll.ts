import type { Sql } from "../../db.ts";
import { isoSql } from "../../formatDates.ts";
import type { Position, ReadAllOptions, RecordedEvent } from "../eventStore.ts";
import { upcast } from "../upcast.ts";
import { EVENT_COLUMNS, toRecordedEvent } from "./readEvents.ts";

/**
 * The readable horizon past other databases' transactions: below the oldest transaction still
 * running that may write this database's events. A transaction of another database on the same
 * server cannot, yet it holds pg_snapshot_xmin back for everyone (a long one elsewhere would stall
 * every projection here, docs/performance.md). An in-progress xid is skipped only when
 * pg_stat_activity shows it held by a backend of another database; anything unknown (a prepared
 * transaction, a backend not listed) still counts. Costs ~1 ms (pg_stat_activity): only for a
 * reader already held back.
 */
const BELOW_OURS = `(
  WITH snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
  elsewhere AS MATERIALIZED (
    SELECT backend_xid::text::bigint AS xid FROM pg_stat_activity
    WHERE backend_xid IS NOT NULL AND datid IS NOT NULL
      AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
  )
  SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(snap.s) AS x
     WHERE (x::text::bigint % 4294967296) NOT IN (SELECT xid FROM elsewhere)),
    pg_snapshot_xmax(snap.s))
  FROM snap)`;
const BELOW_ALL = "pg_snapshot_xmin(pg_current_snapshot())";

/**
 * Log order is (transaction_id, position). Nothing at or past the oldest transaction still
 * running is returned, so an event whose transaction commits late is never skipped.
 * ORDER BY names `events.` columns: a bare `transaction_id` would mean the selected text alias,
 * sorting xids as strings ("10" < "9") and ruling out the (transaction_id, position) index.
 */
export async function readAll(sql: Sql, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const rows = await sql.query(logPage(EVENT_COLUMNS, options), logPageParams(options), { prepare: true });
  return rows.map(toRecordedEvent);
}

/** One page of the log in log order past `after`, below the readable horizon (text and params). */
const logPage = (columns: string, options: ReadAllOptions) =>
  `SELECT ${columns} FROM events
     WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
       AND transaction_id < ${options.past_other_databases ? BELOW_OURS : BELOW_ALL}
     ORDER BY events.transaction_id, events.position
     LIMIT $3`;
const logPageParams = (options: ReadAllOptions) => {
  const after = options.after ?? { commit: 0n, prepare: -1n };
  return [
    (after.commit < 0n ? 0n : after.commit).toString(),
    after.prepare.toString(),
    options.max_count ?? 1000,
  ];
};

/**
 * The last event `readAll` returns now (with the same `past_other_databases`). The lag reports
 * (admin API, health, metrics) read past other databases, as a held-back projector does: else a
 * transaction open in another database hides events the projector has applied, and a stuck
 * projection shows lag 0.
 */
export async function headPosition(
  sql: Sql,
  options: Pick<ReadAllOptions, "past_other_databases"> = {},
): Promise<Position | null> {
  const [row] = await sql.query(
    `SELECT position, transaction_id::text AS transaction_id FROM events
     WHERE transaction_id < ${options.past_other_databases ? BELOW_OURS : BELOW_ALL}
     ORDER BY events.transaction_id DESC, events.position DESC LIMIT 1`,
  );
  return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) } : null;
}

// Select order of `readAllLean`'s rows.
const LEAN_COLUMNS = `event_id::text, type, schema_version, data, metadata, stream_name, stream_revision,
  position, transaction_id::text, ${isoSql("created_at")}, previous_hash, hash`;

/**
 * `readAll` for a rebuild (docs/performance.md, "Rebuild / catch-up"): the same events, decoded
 * with fewer objects per event, as a rebuild is bound by node's CPU (GC above all). Rows come as
 * arrays and `created_at` as the ISO text `toRecordedEvent` would make of it (no Date).
 */
export async function readAllLean(sql: Sql, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const rows = await sql.query<unknown[]>(logPage(LEAN_COLUMNS, options), logPageParams(options), {
    prepare: true,
    arrays: true,
  });
  const events = new Array<RecordedEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as [
      string,
      string,
      number,
      any,
      any,
      string,
      number,
      number,
      string,
      string,
      string | null,
      string | null,
    ];
    const event: RecordedEvent = {
      event_id: r[0],
      type: r[1],
      schema_version: r[2],
      data: r[3],
      metadata: r[4],
      stream_name: r[5],
      stream_revision: BigInt(r[6]),
      position: { commit: BigInt(r[8]), prepare: BigInt(r[7]) },
      created_at: r[9],
      previous_hash: r[10],
      hash: r[11],
    };
    events[i] = upcast(event);
  }
  return events;
}

export const EVENTS_PAST = `SELECT (SELECT 1 FROM events WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
  ORDER BY transaction_id, position LIMIT 1) IS NOT NULL AS more`;

/**
 * Whether any event, readable or not yet (behind an open transaction), lies past `after`. The
 * first row in log order, not EXISTS: as a prepared statement, EXISTS gets a generic plan that
 * scans the whole table (the planner guesses a third of it matches) and, with nothing past
 * `after`, reads it all, on every empty projector read (docs/performance.md, "Grouped appends").
 */
export async function eventsPast(sql: Sql, after: Position): Promise<boolean> {
  const [row] = await sql.query(
    EVENTS_PAST,
    [(after.commit < 0n ? 0n : after.commit).toString(), after.prepare.toString()],
    { prepare: true },
  );
  return row.more as boolean;
}
