import { isDatabaseUnavailable, type Sql } from "../../db.ts";
import { canonical } from "../chain.ts";
import {
  type AppendResult,
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../eventStore.ts";
import { currentSchemaVersion } from "../upcast.ts";
import { chainStreams, UNCHAINED } from "./backfillChain.ts";

/**
 * An event id is unique across the whole log here (a unique index), not per stream: an id
 * already written to another stream refuses the append. Not a revision conflict, so a caller
 * retrying on WrongExpectedRevisionError does not loop on it (docs/decisions.md).
 */
export class DuplicateEventIdError extends Error {
  readonly event_id: string;
  readonly stream_name: string;
  readonly existing_stream: string;
  constructor(event_id: string, stream_name: string, existing_stream: string) {
    super(
      `Event id ${event_id} is already in stream ${existing_stream}; it cannot also be appended to ${stream_name}`,
    );
    this.event_id = event_id;
    this.stream_name = stream_name;
    this.existing_stream = existing_stream;
    this.name = "DuplicateEventIdError";
  }
}

/**
 * Units of writes in ONE statement (one round trip, one commit): each unit is several streams,
 * all or nothing. Each stream's revision is checked, and a unit's events are inserted only if every
 * check of that unit passes; a concurrent winner on any stream is refused by the unique index,
 * which fails the whole statement. `appendToStreams` is one unit; grouped appends
 * (groupAppends.ts) send the units of concurrent commands together.
 *
 * The batch comes as `json`, not `jsonb`: PostgreSQL only scans it and builds a jsonb value
 * per event's data, instead of a jsonb tree of the whole document first. Metadata objects come
 * once in $2 and events point to theirs by index (a bulk's 2,000 events share one). Both cut
 * the statement of a bulk of 1,000 lessees (docs/performance.md, "Bulk lessee create").
 * Data, metadata, stream names and types come also as RFC 8785 canonical text, from which
 * pms_event_chain (migration 120) builds each event's line and hash; data is sent only that way.
 */
const APPEND_UNITS = `
WITH input AS (
  SELECT * FROM json_to_recordset($1::json)
    AS w(ord integer, unit integer, stream_name text, stream_json text, mode text, expected bigint, events json,
      keys json)
), checked AS (
  SELECT i.*, c.revision, c.hash,
    coalesce(CASE i.mode
      WHEN 'no_stream' THEN c.revision IS NULL
      WHEN 'stream_exists' THEN c.revision IS NOT NULL
      WHEN 'any' THEN true
      ELSE c.revision = i.expected
    END, false) AS ok
  FROM input i
  LEFT JOIN LATERAL (
    SELECT e.stream_revision AS revision, e.hash FROM events e
    WHERE e.stream_name = i.stream_name ORDER BY e.stream_revision DESC LIMIT 1
  ) c ON true
), units AS (
  SELECT unit FROM checked GROUP BY unit HAVING bool_and(ok)
), inserted AS (
  -- The hash chain continues from the head read above (docs/audit.md).
  INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata,
    previous_hash, hash)
  SELECT e.o_event_id, c.stream_name, e.o_revision, e.o_type, e.o_schema_version,
    e.o_data::jsonb, $2::jsonb -> e.o_metadata, e.o_previous_hash, e.o_hash
  FROM checked c JOIN units u ON u.unit = c.unit,
    pms_event_chain(c.events, $3::text[], c.stream_json, c.revision, c.hash) AS e
  ORDER BY c.ord, e.o_idx
  RETURNING stream_name, stream_revision, position, transaction_id
), subject_keys AS (
  -- New data keys commit with the events sealed by them (docs/personal-data.md). Another key
  -- already kept for the subject (another writer's, or destroyed) fails the statement: PMS21.
  INSERT INTO personal_data_keys (tenant_id, subject, wrapped_key)
  SELECT DISTINCT k.t, k.s, decode(k.w, 'base64')
  FROM checked c JOIN units u ON u.unit = c.unit, json_to_recordset(c.keys) AS k(t uuid, s text, w text)
  ON CONFLICT (tenant_id, subject) DO UPDATE SET wrapped_key = CASE
    WHEN personal_data_keys.wrapped_key = EXCLUDED.wrapped_key THEN EXCLUDED.wrapped_key
    ELSE pms_subject_key_clash(EXCLUDED.tenant_id, EXCLUDED.subject) END
), per_stream AS (
  -- Grouped once and joined: a subquery over inserted per stream was quadratic (1,000 lessees in bulk: 0.8 s).
  SELECT stream_name, max(stream_revision) AS next_revision, max(position) AS position
  FROM inserted GROUP BY stream_name
)
SELECT c.ord, c.ok, c.revision AS current_revision, p.next_revision, p.position,
  (SELECT max(i.transaction_id)::text FROM inserted i) AS transaction_id
FROM checked c LEFT JOIN per_stream p ON p.stream_name = c.stream_name ORDER BY c.ord`;

/** Why the statement refused a unit: the first write whose revision did not hold (-1: a unique index). */
interface Refusal {
  index: number;
  actual?: bigint | "no_stream";
}

type UnitOutcome = { ok: AppendResult[] } | { refused: Refusal };

async function tryUnits(sql: Sql, units: StreamWrite[][]): Promise<UnitOutcome[]> {
  for (const writes of units) {
    const names = new Set(writes.map((w) => w.stream_name));
    if (names.size !== writes.length) throw new Error("appendToStreams takes each stream once");
    if (writes.some((w) => w.events.length === 0)) throw new Error("an append needs at least one event");
  }
  const metadata = metadataIndex();
  let ord = 0;
  const payload = JSON.stringify(
    units.flatMap((writes, unit) =>
      writes.map((w) => ({
        ord: ord++,
        unit,
        stream_name: w.stream_name,
        stream_json: canonical(w.stream_name),
        mode: typeof w.expected_revision === "bigint" ? "exact" : w.expected_revision,
        expected: typeof w.expected_revision === "bigint" ? w.expected_revision.toString() : null,
        events: w.events.map((e, idx) => ({
          idx,
          event_id: e.event_id,
          type: e.type,
          type_json: canonical(e.type),
          schema_version: e.schema_version ?? currentSchemaVersion(e.type),
          data: canonical(e.data ?? null),
          metadata: metadata.of(e.metadata),
        })),
        keys: w.subject_keys?.length
          ? w.subject_keys.map((k) => ({ t: k.tenant_id, s: k.subject, w: k.wrapped_key.toString("base64") }))
          : null,
      })),
    ),
  );
  const rows = await sql.query(
    APPEND_UNITS,
    [payload, JSON.stringify(metadata.list), metadata.list.map(canonical)],
    { prepare: true },
  );
  let at = 0;
  return units.map((writes) => {
    const mine = rows.slice(at, at + writes.length);
    at += writes.length;
    const failed = mine.findIndex((r) => !r.ok);
    if (failed < 0) {
      return {
        ok: mine.map((r) => ({
          next_revision: BigInt(r.next_revision),
          position: { commit: BigInt(r.transaction_id), prepare: BigInt(r.position) },
        })),
      };
    }
    const actual = mine[failed].current_revision;
    return { refused: { index: failed, actual: actual === null ? "no_stream" : BigInt(actual) } };
  });
}

/**
 * Each unit's answer, or its error as a value: a unit refused alone never fails the others. When
 * the statement of several units fails as a whole because of what one unit holds (a unique index,
 * a bad value), each unit is tried again alone, with the same event ids, so one that did commit
 * answers as a replay. A database that cannot take the statement (isDatabaseUnavailable) fails
 * every unit at once: trying each again would only queue more statements on it.
 */
export async function appendUnits(sql: Sql, units: StreamWrite[][]): Promise<(AppendResult[] | Error)[]> {
  let outcomes: UnitOutcome[];
  try {
    outcomes = await tryUnits(sql, units).catch(async (error) => {
      // A stream written before the chain existed: chain it (resumable backfill), then append.
      if ((error as { code?: string }).code !== UNCHAINED) throw error;
      await chainStreams(
        sql,
        units.flatMap((writes) => writes.map((w) => w.stream_name)),
      );
      return tryUnits(sql, units);
    });
  } catch (error) {
    if (units.length > 1 && !isDatabaseUnavailable(error as { code?: unknown })) {
      return Promise.all(
        units.map((writes) =>
          appendUnits(sql, [writes]).then(
            ([result]) => result,
            (e: unknown) => asError(e),
          ),
        ),
      );
    }
    if ((error as { code?: string }).code !== "23505") throw error;
    outcomes = [{ refused: { index: -1 } }];
  }
  return Promise.all(
    outcomes.map((o, i) =>
      "ok" in o ? o.ok : settleUnitRefusal(sql, units[i], o.refused).then((r) => r, asError),
    ),
  );
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

export async function appendToStreams(sql: Sql, writes: StreamWrite[]): Promise<AppendResult[]> {
  if (writes.length === 0) return [];
  const [result] = await appendUnits(sql, [writes]);
  if (result instanceof Error) throw result;
  return result;
}

/** A refused unit: an idempotent replay of the same writes answers as the first time, else the error. */
async function settleUnitRefusal(sql: Sql, writes: StreamWrite[], refused: Refusal): Promise<AppendResult[]> {
  const written = await writtenWithIds(
    sql,
    writes.flatMap((w) => w.events),
  );
  const replays = writes.map((w) => replayOf(written, w.stream_name, w.events, w.expected_revision));
  if (replays.every((r) => r !== null)) return replays as AppendResult[];
  refuseForeignIds(written, writes);
  // A concurrent winner: name the first stream no longer at its expected revision.
  let index = refused.index;
  let actual = refused.actual;
  if (index < 0) {
    index = 0;
    for (const [i, w] of writes.entries()) {
      const now = await currentRevision(sql, w.stream_name);
      if (!fits(w.expected_revision, now)) {
        index = i;
        actual = now;
        break;
      }
    }
  }
  const failed = writes[index];
  throw new WrongExpectedRevisionError(
    failed.stream_name,
    failed.expected_revision,
    actual ?? (await currentRevision(sql, failed.stream_name)),
  );
}

/** Each distinct metadata object once (by identity: a command's events share theirs), by index. */
function metadataIndex() {
  const list: EventMetadata[] = [];
  const index = new Map<EventMetadata, number>();
  const of = (metadata: EventMetadata) => {
    let i = index.get(metadata);
    if (i === undefined) {
      i = list.push(metadata) - 1;
      index.set(metadata, i);
    }
    return i;
  };
  return { list, of };
}

function fits(expected: ExpectedRevision, actual: bigint | "no_stream"): boolean {
  if (expected === "any") return true;
  if (expected === "no_stream") return actual === "no_stream";
  if (expected === "stream_exists") return actual !== "no_stream";
  return actual === expected;
}

async function currentRevision(sql: Sql, stream_name: string): Promise<bigint | "no_stream"> {
  const [row] = await sql.query(
    "SELECT max(stream_revision) AS revision FROM events WHERE stream_name = $1",
    [stream_name],
  );
  return row.revision === null ? "no_stream" : BigInt(row.revision);
}

interface WrittenEvent {
  event_id: string;
  stream_name: string;
  stream_revision: number;
  position: number;
  transaction_id: string;
}

/** The events already in the log with any of these ids, in stream-revision order. */
function writtenWithIds(sql: Sql, events: NewEvent[]): Promise<WrittenEvent[]> {
  return sql.query<WrittenEvent>(
    `SELECT event_id::text, stream_name, stream_revision, position, transaction_id::text
     FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY stream_name, stream_revision`,
    [events.map((e) => e.event_id)],
  );
}

/** An id of these writes already in another stream: say so, not "wrong revision". */
function refuseForeignIds(written: WrittenEvent[], writes: { stream_name: string; events: NewEvent[] }[]) {
  const target = new Map<string, string>();
  for (const w of writes) for (const e of w.events) target.set(e.event_id.toLowerCase(), w.stream_name);
  for (const row of written) {
    const stream = target.get(row.event_id);
    if (stream !== undefined && stream !== row.stream_name)
      throw new DuplicateEventIdError(row.event_id, stream, row.stream_name);
  }
}

/** The same events (by id) already appended right after the expected revision: answer as the first time. */
function replayOf(
  written: WrittenEvent[],
  stream_name: string,
  events: NewEvent[],
  expected: ExpectedRevision,
): AppendResult | null {
  const ids = new Set(events.map((e) => e.event_id.toLowerCase()));
  const rows = written.filter((r) => ids.has(r.event_id));
  if (rows.length !== events.length) return null;
  const first = BigInt(rows[0].stream_revision);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.stream_name !== stream_name || r.event_id !== events[i].event_id.toLowerCase()) return null;
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
