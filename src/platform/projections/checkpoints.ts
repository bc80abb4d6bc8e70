import type { Sql } from "../db.ts";
import { comparePositions, type Position } from "../eventstore/eventStore.ts";

export interface Checkpoint {
  version: number;
  position: Position;
}

export async function loadCheckpoint(sql: Sql, name: string): Promise<Checkpoint | null> {
  const [row] = await sql.query(
    `SELECT version, commit_position::text AS c, prepare_position::text AS p
     FROM projection_checkpoints WHERE name = $1`,
    [name],
  );
  return row ? { version: row.version, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } } : null;
}

export const samePosition = (a: Position, b: Position) => comparePositions(a, b) === 0;

/**
 * Locks the checkpoint rows of a group of projections for one projector batch, skipping rows a
 * rebuild's swap holds (those wait for the next round), and turns off the WAL-flush wait for
 * the transaction in the same round trip (read models are replayable from the log).
 */
export async function lockCheckpoints(
  tx: Sql,
  names: string[],
  options: { deferred?: boolean } = {},
): Promise<Map<string, Checkpoint>> {
  const rows = await tx.query(
    `SELECT name, version, commit_position::text AS c, prepare_position::text AS p,
            set_config('synchronous_commit', 'off', true) AS async_commit
     FROM projection_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE SKIP LOCKED`,
    [names],
    { prepare: true, deferred: options.deferred },
  );
  return new Map(
    rows.map((row) => [
      row.name as string,
      { version: row.version, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } },
    ]),
  );
}

/** SQLSTATE of `pms_checkpoints_moved` (migration 073): a checkpoint moved under a batch. */
export const CHECKPOINT_MOVED = "PMS01";

/**
 * Moves the checkpoints of a group in one statement, each only from where the runtime last wrote
 * it (compare-and-set; held in a batched transaction, `deferred`): when one moved meanwhile
 * (another instance, a rebuild's swap), `pms_checkpoints_moved` fails the whole transaction with
 * CHECKPOINT_MOVED. The batch's rows are locked first by a held `lockCheckpoints` (the order a
 * rebuild's swap takes too), so it needs no round trip for the lock (docs/performance.md).
 */
export async function moveCheckpoints(
  tx: Sql,
  moves: { name: string; version: number; from: Position; position: Position; applied: number }[],
): Promise<void> {
  if (moves.length === 0) return;
  await tx.query(
    `WITH moved AS (
       UPDATE projection_checkpoints AS c
       SET commit_position = m.commit_position, prepare_position = m.prepare_position,
           events_applied = c.events_applied + m.applied, last_error = NULL, status = 'running', updated_at = now()
       FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
         AS m(name, version, from_commit, from_prepare, commit_position, prepare_position, applied)
       WHERE c.name = m.name AND c.version = m.version
         AND c.commit_position = m.from_commit AND c.prepare_position = m.from_prepare
         -- A row a rebuild's swap holds is not waited for (the swap may wait for this batch's
         -- tables): it counts as moved.
         AND c.name IN (SELECT name FROM projection_checkpoints WHERE name = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
       RETURNING 1)
     SELECT pms_checkpoints_moved($8, (SELECT count(*) FROM moved))`,
    [
      moves.map((m) => m.name),
      moves.map((m) => m.version),
      moves.map((m) => m.from.commit.toString()),
      moves.map((m) => m.from.prepare.toString()),
      moves.map((m) => m.position.commit.toString()),
      moves.map((m) => m.position.prepare.toString()),
      moves.map((m) => m.applied),
      moves.length,
    ],
    { prepare: true, deferred: true },
  );
}
