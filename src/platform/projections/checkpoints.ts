import type { Sql } from "../db.ts";
import { comparePositions, type Position, START } from "../eventstore/eventStore.ts";

export interface Checkpoint {
  version: number;
  position: Position;
}

export async function loadCheckpoint(sql: Sql, name: string, forUpdate = false): Promise<Checkpoint | null> {
  const [row] = await sql.query(
    `SELECT version, commit_position::text AS c, prepare_position::text AS p
     FROM projection_checkpoints WHERE name = $1 ${forUpdate ? "FOR UPDATE" : ""}`,
    [name],
  );
  return row ? { version: row.version, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } } : null;
}

export async function saveCheckpoint(sql: Sql, name: string, position: Position, applied: number): Promise<void> {
  await sql.query(
    `UPDATE projection_checkpoints
     SET commit_position = $2, prepare_position = $3, events_applied = events_applied + $4,
         last_error = NULL, status = 'running', updated_at = now()
     WHERE name = $1`,
    [name, position.commit.toString(), position.prepare.toString(), applied],
  );
}

/**
 * Moves the checkpoint from `from` to `to` in one statement, for a batch with nothing to apply.
 * False when the row is not at `from` in `version` (a rebuild swapped tables meanwhile): the
 * caller then takes the full transactional path, which sorts that out.
 */
export async function advanceCheckpoint(
  sql: Sql,
  name: string,
  version: number,
  from: Position,
  to: Position,
  applied: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE projection_checkpoints
     SET commit_position = $5, prepare_position = $6, events_applied = events_applied + $7,
         last_error = NULL, status = 'running', updated_at = now()
     WHERE name = $1 AND version = $2 AND commit_position = $3 AND prepare_position = $4
     RETURNING 1 AS moved`,
    [name, version, from.commit.toString(), from.prepare.toString(), to.commit.toString(), to.prepare.toString(), applied],
  );
  return rows.length > 0;
}

export const samePosition = (a: Position, b: Position) => comparePositions(a, b) === 0;
export const isStart = (p: Position) => samePosition(p, START);
