import type { Sql } from "../../db.ts";
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  WrongExpectedRevisionError,
} from "../eventStore.ts";

/**
 * One statement, so one round trip in autocommit: the revision check and the insert are
 * atomic, and a concurrent append at the same revision hits the unique index and fails.
 * The notify wakes projectors in other processes when the transaction commits.
 */
const APPEND = `
WITH current AS (
  SELECT max(stream_revision) AS revision FROM events WHERE stream_name = $1
), allowed AS (
  SELECT revision FROM current
  WHERE CASE $3::text
    WHEN 'no_stream' THEN revision IS NULL
    WHEN 'stream_exists' THEN revision IS NOT NULL
    WHEN 'any' THEN true
    ELSE revision = $4::bigint
  END
), inserted AS (
  INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
  SELECT e.event_id, $1, coalesce(allowed.revision, -1) + e.idx + 1, e.type, e.schema_version, e.data, e.metadata
  FROM allowed, jsonb_to_recordset($2::jsonb)
    AS e(idx integer, event_id uuid, type text, schema_version integer, data jsonb, metadata jsonb)
  ORDER BY e.idx
  RETURNING position, stream_revision, transaction_id
)
SELECT (SELECT revision FROM current) AS current_revision,
       (SELECT max(stream_revision) FROM inserted) AS next_revision,
       (SELECT max(position) FROM inserted) AS position,
       (SELECT max(transaction_id)::text FROM inserted) AS transaction_id,
       (SELECT CASE WHEN count(*) > 0 AND $5::boolean THEN pg_notify('pms_events', '') END FROM inserted) AS notified`;

export async function appendToStream(
  sql: Sql,
  stream_name: string,
  events: NewEvent[],
  expected_revision: ExpectedRevision,
  options: { notify?: boolean } = {},
): Promise<AppendResult> {
  if (events.length === 0) throw new Error("appendToStream needs at least one event");
  const mode = typeof expected_revision === "bigint" ? "exact" : expected_revision;
  const payload = JSON.stringify(
    events.map((e, idx) => ({
      idx,
      event_id: e.event_id,
      type: e.type,
      schema_version: e.schema_version ?? 1,
      data: e.data,
      metadata: e.metadata,
    })),
  );
  let row: Record<string, unknown>;
  try {
    [row] = await sql.query(APPEND, [
      stream_name,
      payload,
      mode,
      typeof expected_revision === "bigint" ? expected_revision.toString() : null,
      options.notify ?? true,
    ]);
  } catch (error) {
    if ((error as { code?: string }).code !== "23505") throw error;
    // A unique index refused the insert: a concurrent append won, or these event ids exist already.
    const replay = await findIdempotentReplay(sql, stream_name, events, expected_revision);
    if (replay) return replay;
    const actual = await currentRevision(sql, stream_name);
    throw new WrongExpectedRevisionError(stream_name, expected_revision, actual);
  }
  if (row.next_revision === null || row.next_revision === undefined) {
    const replay = await findIdempotentReplay(sql, stream_name, events, expected_revision);
    if (replay) return replay;
    const actual = row.current_revision === null ? "no_stream" : BigInt(row.current_revision as number);
    throw new WrongExpectedRevisionError(stream_name, expected_revision, actual);
  }
  return {
    next_revision: BigInt(row.next_revision as number),
    position: { commit: BigInt(row.transaction_id as string), prepare: BigInt(row.position as number) },
  };
}

async function currentRevision(sql: Sql, stream_name: string): Promise<bigint | "no_stream"> {
  const [row] = await sql.query(
    "SELECT max(stream_revision) AS revision FROM events WHERE stream_name = $1",
    [stream_name],
  );
  return row.revision === null ? "no_stream" : BigInt(row.revision);
}

/** The same events (by id) already appended right after the expected revision: answer as the first time. */
async function findIdempotentReplay(
  sql: Sql,
  stream_name: string,
  events: NewEvent[],
  expected: ExpectedRevision,
): Promise<AppendResult | null> {
  const rows = await sql.query<{
    event_id: string;
    stream_name: string;
    stream_revision: number;
    position: number;
    transaction_id: string;
  }>(
    `SELECT event_id::text, stream_name, stream_revision, position, transaction_id::text
     FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY stream_revision`,
    [events.map((e) => e.event_id)],
  );
  if (rows.length !== events.length) return null;
  const first = BigInt(rows[0].stream_revision);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.stream_name !== stream_name || r.event_id !== events[i].event_id) return null;
    if (BigInt(r.stream_revision) !== first + BigInt(i)) return null;
  }
  const fits =
    expected === "any" ||
    expected === "stream_exists" ||
    (expected === "no_stream" && first === 0n) ||
    (typeof expected === "bigint" && first === expected + 1n);
  if (!fits) return null;
  const last = rows[rows.length - 1];
  return {
    next_revision: BigInt(last.stream_revision),
    position: { commit: BigInt(last.transaction_id), prepare: BigInt(last.position) },
  };
}
