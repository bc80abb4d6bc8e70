import type { Sql } from "../../db.ts";

/**
 * A log restored from another PostgreSQL server (pg_dump/pg_restore, or embedded data moved to an
 * external server) keeps that server's transaction ids and position sequence. The log is read in
 * (transaction_id, position) order below pg_snapshot_xmin, so events whose transaction id is ahead
 * of this server's counter stay unread and new events sort before them (docs/operations.md,
 * "Backup and restore"; docs/decisions.md, "Restored log").
 */

/** `pms log adopt` fixes it; the start refuses until then (docs/decisions.md). */
export const ADOPT_COMMAND = "pms log adopt";

/** Serialises adoptions with each other (the migrations hold 7261001). */
const ADOPT_LOCK = 7261002;

/** The transaction id every adopted event gets: below every normal one (3 and up), so below any horizon. */
const ADOPTED_XID = "1";

export interface ForeignLog {
  /** Events whose transaction id this server has not reached yet (never readable as they are). */
  events_from_the_future: number;
  /** The position sequence is behind max(position): the next append would collide. */
  sequence_behind: boolean;
}

/**
 * Why this database's log was not written by this server, or null for a log that was. Cheap:
 * max(transaction_id) and max(position) come from their indexes. `pg_snapshot_xmax` is the next
 * transaction id this server will hand out; asking it assigns none.
 */
export async function findForeignLog(sql: Sql): Promise<ForeignLog | null> {
  const [row] = await sql.query(
    `SELECT (SELECT max(transaction_id) FROM events) >= pg_snapshot_xmax(pg_current_snapshot()) AS ahead,
            (SELECT max(position) FROM events) AS max_position,
            s.last_value::text AS last_value, s.is_called
     FROM events_position_seq s`,
  );
  const maxPosition = row.max_position === null ? null : BigInt(row.max_position);
  const lastValue = BigInt(row.last_value);
  const sequence_behind =
    maxPosition !== null && (maxPosition > lastValue || (maxPosition === lastValue && !row.is_called));
  if (!row.ahead && !sequence_behind) return null;
  const [count] = row.ahead
    ? await sql.query(
        "SELECT count(*)::int AS n FROM events WHERE transaction_id >= pg_snapshot_xmax(pg_current_snapshot())",
      )
    : [{ n: 0 }];
  return { events_from_the_future: count.n, sequence_behind };
}

export class ForeignLogError extends Error {
  readonly found: ForeignLog;
  constructor(found: ForeignLog) {
    super(
      `The event log was restored from another PostgreSQL server (${found.events_from_the_future} event(s) with a transaction id ahead of this server${found.sequence_behind ? ", position sequence behind the log" : ""}): stop every role and run \`${ADOPT_COMMAND}\` once before starting (docs/operations.md, "Backup and restore").`,
    );
    this.found = found;
    this.name = "ForeignLogError";
  }
}

/** Refuses to open a log this server cannot read in order (the start and the offline commands). */
export async function assertLogAdopted(sql: Sql): Promise<void> {
  const found = await findForeignLog(sql);
  if (found) throw new ForeignLogError(found);
}

export interface Adoption {
  /** Events given the adopted transaction id (0: the log was already this server's). */
  events: number;
  /** The position sequence was moved up to max(position). */
  sequence_moved: boolean;
  /** Checkpoints deleted, so each projection is rebuilt from the log at the next projector start. */
  checkpoints_reset: number;
}

/**
 * Makes a restored log this server's, in one transaction: every event gets one transaction id
 * below any horizon, so the log's order becomes its position order (a valid total order: each
 * stream's revisions and any write that saw another were inserted after it, hence with a larger
 * position; docs/decisions.md), the position sequence is moved up to max(position), and the
 * checkpoints are deleted: each projector then rebuilds its projection into fresh tables and swaps
 * them in (rebuildProjection), so the read models equal a rebuild from the log. A log written by
 * this server is left untouched, so running it twice changes nothing.
 */
export async function adoptLog(sql: Sql): Promise<Adoption> {
  return sql.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [ADOPT_LOCK]);
    // Appends wait until we commit; reads go on (the service should be stopped anyway).
    await tx.exec("LOCK TABLE events IN EXCLUSIVE MODE");
    const found = await findForeignLog(tx);
    if (!found) return { events: 0, sequence_moved: false, checkpoints_reset: 0 };
    let events = 0;
    if (found.events_from_the_future > 0) {
      // Every event, not only those ahead: restored events the counter has already passed must
      // not sort after the others by transaction id; one id for all leaves position order.
      const updated = await tx.query<{ n: number }>(
        `WITH moved AS (UPDATE events SET transaction_id = $1::text::xid8
           WHERE transaction_id <> $1::text::xid8 RETURNING 1)
         SELECT count(*)::int AS n FROM moved`,
        [ADOPTED_XID],
      );
      events = updated[0].n;
    }
    if (found.sequence_behind) {
      await tx.query("SELECT setval('events_position_seq', (SELECT max(position) FROM events), true)");
    }
    const reset = await tx.query<{ n: number }>(
      "WITH gone AS (DELETE FROM projection_checkpoints RETURNING 1) SELECT count(*)::int AS n FROM gone",
    );
    return { events, sequence_moved: found.sequence_behind, checkpoints_reset: reset[0].n };
  });
}
