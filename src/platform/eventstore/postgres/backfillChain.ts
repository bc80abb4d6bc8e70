import type { Sql } from "../../db.ts";
import { chainHashes } from "../chain.ts";

/** SQLSTATE of pms_event_chain (migration 120) for an append to a stream not chained yet. */
export const UNCHAINED = "PMS20";

/**
 * Chains the events of these streams written before migration 120 (hash NULL), from each stream's
 * first such revision on: one read and one UPDATE for all of them. Idempotent: two runs write the
 * same hashes, and only rows still NULL are touched, so a backfill stopped anywhere resumes there.
 */
export async function chainStreams(sql: Sql, stream_names: string[]): Promise<number> {
  if (stream_names.length === 0) return 0;
  // Each stream from the event before its first unchained one (it carries the previous hash).
  const rows = await sql.query<{
    event_id: string;
    stream_name: string;
    stream_revision: string;
    type: string;
    schema_version: number;
    data: unknown;
    metadata: any;
    hash: string | null;
  }>(
    `WITH firsts AS (
       SELECT stream_name, min(stream_revision) AS first FROM events
       WHERE stream_name = ANY($1::text[]) AND hash IS NULL GROUP BY stream_name
     )
     SELECT e.event_id::text, e.stream_name, e.stream_revision::text, e.type, e.schema_version, e.data,
       e.metadata, e.hash
     FROM firsts f JOIN events e ON e.stream_name = f.stream_name AND e.stream_revision >= f.first - 1
     ORDER BY e.stream_name, e.stream_revision`,
    [[...new Set(stream_names)]],
  );
  const updates = {
    names: [] as string[],
    revisions: [] as string[],
    previous: [] as (string | null)[],
    hashes: [] as string[],
  };
  for (let at = 0; at < rows.length; ) {
    let end = at;
    while (end < rows.length && rows[end].stream_name === rows[at].stream_name) end++;
    const stream = rows.slice(at, end);
    at = end;
    const previous = stream[0].hash;
    const todo = previous === null ? stream : stream.slice(1);
    if (todo.length === 0) continue;
    const links = chainHashes(todo[0].stream_name, BigInt(todo[0].stream_revision), previous, todo);
    for (const [i, row] of todo.entries()) {
      updates.names.push(row.stream_name);
      updates.revisions.push(row.stream_revision);
      updates.previous.push(links[i].previous_hash);
      updates.hashes.push(links[i].hash);
    }
  }
  if (updates.names.length === 0) return 0;
  const result = await sql.query(
    `UPDATE events e SET previous_hash = l.previous_hash, hash = l.hash
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS l(stream_name, stream_revision, previous_hash, hash)
     WHERE e.stream_name = l.stream_name AND e.stream_revision = l.stream_revision AND e.hash IS NULL
     RETURNING 1`,
    [updates.names, updates.revisions, updates.previous, updates.hashes],
  );
  return result.length;
}

/**
 * The backfill of `pms audit backfill` (docs/audit.md, "Backfill"): every stream with unchained
 * events, `streams` at a time, until none is left. Safe beside a running service and resumable.
 */
export async function backfillChains(
  sql: Sql,
  options: { streams?: number; progress?: (chained: number) => void } = {},
): Promise<number> {
  let total = 0;
  let idle = 0;
  for (;;) {
    const names = await sql.query<{ stream_name: string }>(
      "SELECT DISTINCT stream_name FROM events WHERE hash IS NULL LIMIT $1",
      [options.streams ?? 500],
    );
    if (names.length === 0) return total;
    const chained = await chainStreams(
      sql,
      names.map((r) => r.stream_name),
    );
    // Nothing chained in a round (another run did it) is fine once; again and again is a fault.
    idle = chained === 0 ? idle + 1 : 0;
    if (idle > 3) throw new Error("the backfill chains nothing more, yet unchained events remain");
    total += chained;
    options.progress?.(total);
  }
}
