import type { Sql } from "../../db.ts";
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type StreamWrite,
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

/** One attempt of the single statement: the result, or why the store refused it. */
type Attempt =
  | { ok: AppendResult }
  /** The expected revision did not hold: the stream is at `actual`. */
  | { refused: "revision"; actual: bigint | "no_stream" }
  /** A unique index refused the insert (the statement's transaction is now aborted). */
  | { refused: "unique" };

async function tryAppend(
  sql: Sql,
  stream_name: string,
  events: NewEvent[],
  expected_revision: ExpectedRevision,
  notify: boolean,
): Promise<Attempt> {
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
      notify,
    ]);
  } catch (error) {
    if ((error as { code?: string }).code !== "23505") throw error;
    return { refused: "unique" };
  }
  if (row.next_revision === null || row.next_revision === undefined) {
    const actual = row.current_revision === null ? "no_stream" : BigInt(row.current_revision as number);
    return { refused: "revision", actual };
  }
  return {
    ok: {
      next_revision: BigInt(row.next_revision as number),
      position: { commit: BigInt(row.transaction_id as string), prepare: BigInt(row.position as number) },
    },
  };
}

/** A refused append: an idempotent replay of the same events answers as the first time, else the error. */
async function settleRefusal(
  sql: Sql,
  stream_name: string,
  events: NewEvent[],
  expected_revision: ExpectedRevision,
  actual?: bigint | "no_stream",
): Promise<AppendResult> {
  const replay = await findIdempotentReplay(sql, stream_name, events, expected_revision);
  if (replay) return replay;
  throw new WrongExpectedRevisionError(
    stream_name,
    expected_revision,
    actual ?? (await currentRevision(sql, stream_name)),
  );
}

export async function appendToStream(
  sql: Sql,
  stream_name: string,
  events: NewEvent[],
  expected_revision: ExpectedRevision,
  options: { notify?: boolean } = {},
): Promise<AppendResult> {
  const attempt = await tryAppend(sql, stream_name, events, expected_revision, options.notify ?? true);
  if ("ok" in attempt) return attempt.ok;
  // A unique index refused the insert: a concurrent append won, or these event ids exist already.
  return settleRefusal(
    sql,
    stream_name,
    events,
    expected_revision,
    attempt.refused === "revision" ? attempt.actual : undefined,
  );
}

/** Carries a refusal out of the transaction so that it rolls back. */
class Refused extends Error {
  constructor(
    readonly index: number,
    readonly actual: bigint | "no_stream" | undefined,
  ) {
    super("append refused");
  }
}

/**
 * Several streams, all or nothing, in one transaction (one commit, one WAL flush): the same
 * single statement per stream. A refusal rolls everything back; then, outside the transaction,
 * a retry of the very same writes answers as the first time, else the failing stream's
 * WrongExpectedRevisionError is thrown.
 */
export async function appendToStreams(sql: Sql, writes: StreamWrite[]): Promise<AppendResult[]> {
  if (writes.length === 0) return [];
  const names = new Set(writes.map((w) => w.stream_name));
  if (names.size !== writes.length) throw new Error("appendToStreams takes each stream once");
  try {
    return await sql.transaction(async (tx) => {
      const results: AppendResult[] = [];
      for (const [i, w] of writes.entries()) {
        const attempt = await tryAppend(tx, w.stream_name, w.events, w.expected_revision, false);
        if (!("ok" in attempt)) {
          throw new Refused(i, attempt.refused === "revision" ? attempt.actual : undefined);
        }
        results.push(attempt.ok);
      }
      return results;
    });
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    const replays = await Promise.all(
      writes.map((w) => findIdempotentReplay(sql, w.stream_name, w.events, w.expected_revision)),
    );
    if (replays.every((r) => r !== null)) return replays as AppendResult[];
    const failed = writes[error.index];
    // The failing stream's own replay can't be the answer when another stream's isn't one.
    throw new WrongExpectedRevisionError(
      failed.stream_name,
      failed.expected_revision,
      error.actual ?? (await currentRevision(sql, failed.stream_name)),
    );
  }
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
