import type { Sql } from "../db.ts";
import { chainStreams } from "../eventstore/postgres/backfillChain.ts";
import type { PersonalDataCodec } from "./codec.ts";

/**
 * `pms privacy encrypt-existing` (docs/personal-data.md, "Events written before encryption"):
 * rewrites in place, in the PostgreSQL `events` table, the personal fields that events of lessees,
 * owners and contacts hold in plaintext, as the service now writes them (sealed with the
 * subject's key; nulls for a subject already erased). Only `data` changes: ids, positions, types
 * and metadata stay, so read models, checkpoints and idempotent retries are untouched, and reads
 * give the same values before and after. Resumable: each batch commits with its checkpoint (the
 * last position done), so a run stopped anywhere goes on from there; a second run finds nothing.
 * The hash chain (docs/audit.md) is over the events as stored: a stream whose events this rewrites
 * is chained again from its first rewritten event, in the same transaction, so it still verifies
 * (daily roots recorded before the run keep the old heads: run it before the first daily root).
 * Categories are done one after the other, each with its own checkpoint; `last_position` is the
 * furthest any of them reached.
 */

const NAME = "encrypt-existing";
/**
 * One checkpoint per stream category (`encrypt-existing:<category>`), so a category declared
 * personal later (lease signing streams) is scanned from the start. These five shared the one
 * checkpoint `encrypt-existing` before: theirs start where it stood.
 */
const FIRST_CATEGORIES = ["lessee", "lessee_email", "owner", "message", "contact"];

export interface EncryptionRun {
  scanned: number;
  encrypted: number;
  last_position: number;
  done: boolean;
}

export async function encryptExistingEvents(
  sql: Sql,
  codec: PersonalDataCodec,
  options: { categories: string[]; batch?: number; maxBatches?: number; log?: (line: string) => void },
): Promise<EncryptionRun> {
  const batch = options.batch ?? 500;
  const run: EncryptionRun = { scanned: 0, encrypted: 0, last_position: 0, done: false };
  await sql.query(
    `INSERT INTO personal_data_migration (name, last_position)
     SELECT $2 || ':' || c, CASE WHEN c = ANY($3::text[])
              THEN coalesce((SELECT last_position FROM personal_data_migration WHERE name = $2), 0) ELSE 0 END
       FROM unnest($1::text[]) AS c
     ON CONFLICT DO NOTHING`,
    [options.categories, NAME, FIRST_CATEGORIES],
  );
  let batches = 0;
  let categoriesDone = 0;
  for (const category of options.categories) {
    const name = `${NAME}:${category}`;
    let done = false;
    while (!done && (options.maxBatches === undefined || batches < options.maxBatches)) {
      done = await encryptBatch(name, category);
      batches++;
    }
    if (done) categoriesDone++;
  }
  run.done = categoriesDone === options.categories.length;
  return run;

  /** One batch of a category, committed with its checkpoint; true once the category is done. */
  function encryptBatch(name: string, category: string) {
    return sql.transaction(async (tx) => {
      // The row lock keeps two runs from working on the same batch.
      const [{ last_position }] = await tx.query<{ last_position: string }>(
        "SELECT last_position FROM personal_data_migration WHERE name = $1 FOR UPDATE",
        [name],
      );
      const rows = await tx.query<{
        position: string;
        event_id: string;
        stream_name: string;
        stream_revision: string;
        type: string;
        data: unknown;
        metadata: { tenant_id: string };
      }>(
        `SELECT position, event_id::text, stream_name, stream_revision::text, type, data, metadata FROM events
          WHERE position > $1 AND split_part(stream_name, '-', 1) = $2
          ORDER BY position LIMIT $3`,
        [last_position, category, batch],
      );
      run.last_position = Math.max(run.last_position, Number(last_position));
      if (rows.length === 0) return true;
      let encrypted = 0;
      const rewritten = new Map<string, string>();
      for (const row of rows) {
        if (!codec.hasPlaintext(row.stream_name, row.data)) continue;
        const [sealed] = await codec.encode(row.stream_name, [
          { event_id: row.event_id, type: row.type, data: row.data, metadata: row.metadata as never },
        ]);
        await tx.query("UPDATE events SET data = $2::jsonb WHERE position = $1", [
          row.position,
          JSON.stringify(sealed.data),
        ]);
        encrypted++;
        if (!rewritten.has(row.stream_name)) rewritten.set(row.stream_name, row.stream_revision);
      }
      if (rewritten.size > 0) {
        await tx.query(
          `UPDATE events e SET hash = NULL, previous_hash = NULL
             FROM unnest($1::text[], $2::bigint[]) AS r(stream_name, first_revision)
            WHERE e.stream_name = r.stream_name AND e.stream_revision >= r.first_revision`,
          [[...rewritten.keys()], [...rewritten.values()]],
        );
        await chainStreams(tx, [...rewritten.keys()]);
      }
      const last = rows[rows.length - 1].position;
      await tx.query(
        `UPDATE personal_data_migration SET last_position = $2, events_encrypted = events_encrypted + $3,
           updated_at = now() WHERE name = $1`,
        [name, last, encrypted],
      );
      run.scanned += rows.length;
      run.encrypted += encrypted;
      run.last_position = Math.max(run.last_position, Number(last));
      options.log?.(
        `encrypt-existing: ${category} up to position ${last}, ${run.encrypted} event(s) encrypted so far`,
      );
      return rows.length < batch;
    });
  }
}
