import type { Sql } from "../db.ts";
import { chainStreams } from "../eventstore/postgres/backfillChain.ts";

/**
 * Email reservation streams were named by the unkeyed SHA-256 of the email
 * (`lessee_email-<tenant>-<sha256>`): anyone holding a guess could test it against the log, even
 * after the lessee's erasure. They are now named by a keyed hash (`…-k<hmac>`, lesseeEmailStream).
 * At start, before anything is served, this renames the old ones in the PostgreSQL `events` table:
 * the new name is computed from the old hash alone (no email, no key of the subject needed, so
 * erased lessees' streams are renamed too), and each renamed stream is chained again in the same
 * transaction (docs/audit.md). Batches commit on their own; a start stopped midway renames the rest
 * at the next one; a done row in `personal_data_migration` keeps later starts from scanning.
 */

const DONE = "keyed-reservation-names";
const LEGACY = "^(lessee_email-.+)-([0-9a-f]{64})$";
const BATCH = 500;

export async function renameLegacyReservations(
  sql: Sql,
  pseudonym: (value: string) => string,
): Promise<number> {
  const [done] = await sql.query("SELECT 1 FROM personal_data_migration WHERE name = $1", [DONE]);
  if (done) return 0;
  let renamed = 0;
  for (;;) {
    const count = await sql.transaction(async (tx) => {
      const rows = await tx.query<{ stream_name: string; prefix: string; hash: string }>(
        `SELECT DISTINCT stream_name, (regexp_match(stream_name, $1))[1] AS prefix,
                (regexp_match(stream_name, $1))[2] AS hash
           FROM events WHERE split_part(stream_name, '-', 1) = 'lessee_email' AND stream_name ~ $1
          LIMIT $2`,
        [LEGACY, BATCH],
      );
      if (rows.length === 0) return 0;
      const to = rows.map((r) => `${r.prefix}-k${pseudonym(r.hash)}`);
      await tx.query(
        `UPDATE events e SET stream_name = r.new_name, hash = NULL, previous_hash = NULL
           FROM unnest($1::text[], $2::text[]) AS r(old_name, new_name)
          WHERE e.stream_name = r.old_name`,
        [rows.map((r) => r.stream_name), to],
      );
      await chainStreams(tx, to);
      return rows.length;
    });
    renamed += count;
    if (count < BATCH) break;
  }
  await sql.query("INSERT INTO personal_data_migration (name) VALUES ($1) ON CONFLICT DO NOTHING", [DONE]);
  return renamed;
}
