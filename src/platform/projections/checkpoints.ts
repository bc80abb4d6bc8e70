import type { Sql } from "../db.ts";
import { comparePositions, type Position } from "../eventstore/eventStore.ts";

export interface Checkpoint {
  version: number;
  position: Position;
}

export async function loadCheckpoint(sql: Sql, name: string, forUpdate = false): Promise<Checkpoint | null> {
  const [row] = await sql.query(
    // Locking the row starts a projector batch; the same round trip turns off the WAL-flush wait
    // for that transaction (read models are replayable from the log).
    `SELECT version, commit_position::text AS c, prepare_position::text AS p
       ${forUpdate ? ", set_config('synchronous_commit', 'off', true) AS async_commit" : ""}
     FROM projection_checkpoints WHERE name = $1 ${forUpdate ? "FOR UPDATE" : ""}`,
    [name],
  );
  return row ? { version: row.version, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } } : null;
}

export async function saveCheckpoint(
  sql: Sql,
  name: string,
  position: Position,
  applied: number,
): Promise<void> {
  await sql.query(
    `UPDATE projection_checkpoints
     SET commit_position = $2, prepare_position = $3, events_applied = events_applied + $4,
         last_error = NULL, status = 'running', updated_at = now()
     WHERE name = $1`,
    [name, position.commit.toString(), position.prepare.toString(), applied],
  );
}

export const samePosition = (a: Position, b: Position) => comparePositions(a, b) === 0;
