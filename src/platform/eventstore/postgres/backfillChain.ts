import type { Sql } from "../../db.ts";
import { chainHashes } from "../chain.ts";

/** SQLSTATE of pms_event_chain (migration 120) for an append to a stream not chained yet. */
export const UNCHAINED = "PMS20";

/**
 * Chains the events of these streams written before migration 120 (hash NULL), from the first such
 * revision on, each stream in one UPDATE. Idempotent: two runs on a stream write the same hashes,
 * and only rows still NULL are touched, so a backfill stopped anywhere resumes where it was.
 */
export async function chainStreams(sql: Sql, stream_names: string[]): Promise<number> {
  let chained = 0;
  for (const stream_name of new Set(stream_names)) {
    const rows = await sql.query<{
      event_id: string;
      stream_revision: string;
      type: string;
      schema_version: number;
      data: unknown;
      metadata: any;
      hash: string | null;
    }>(
      `SELECT event_id::text, stream_revision, type, schema_version, data, metadata, hash FROM events
       WHERE stream_name = $1 AND stream_revision >= coalesce(
         (SELECT min(stream_revision) - 1 FROM events WHERE stream_name = $1 AND hash IS NULL), 1e18)
       ORDER BY stream_revision`,
      [stream_name],
    );
    if (rows.length === 0) continue;
    // The row before the first unchained one, when there is one, carries the previous hash.
    const previous = rows[0].hash;
    const todo = previous === null ? rows : rows.slice(1);
    if (todo.length === 0) continue;
    const first = BigInt(todo[0].stream_revision);
    const links = chainHashes(stream_name, first, previous, todo);
    const result = await sql.query(
      `UPDATE events e SET previous_hash = l.previous_hash, hash = l.hash
       FROM unnest($2::bigint[], $3::text[], $4::text[]) AS l(stream_revision, previous_hash, hash)
       WHERE e.stream_name = $1 AND e.stream_revision = l.stream_revision AND e.hash IS NULL
       RETURNING 1`,
      [
        stream_name,
        todo.map((r) => r.stream_revision),
        links.map((l) => l.previous_hash),
        links.map((l) => l.hash),
      ],
    );
    chained += result.length;
  }
  return chained;
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
  for (;;) {
    const names = await sql.query<{ stream_name: string }>(
      "SELECT DISTINCT stream_name FROM events WHERE hash IS NULL LIMIT $1",
      [options.streams ?? 500],
    );
    if (names.length === 0) return total;
    total += await chainStreams(
      sql,
      names.map((r) => r.stream_name),
    );
    options.progress?.(total);
  }
}
