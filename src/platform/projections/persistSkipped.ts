import { samePosition } from "./checkpoints.ts";
import { reload } from "./claimProjections.ts";
import type { Projector } from "./projector.ts";

/** Projections that read past their checkpoint row only by skipping events. */
export const unrecordedSkips = (p: Projector) =>
  [...p.runners.values()].filter((r) => !samePosition(r.position, r.persisted));

/** Moves the checkpoints of projections that only skipped events, in one statement. */
export async function persistSkipped(p: Projector): Promise<void> {
  const moved = unrecordedSkips(p);
  if (moved.length === 0) return;
  // Without waiting for the WAL flush, as a batch commits (a lost move is replayed as skips):
  // the loop awaits this statement, and a flush behind the appends' own took milliseconds.
  const rows = await p.sql.query<{ name: string }>(
    `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
     UPDATE projection_checkpoints AS c
     SET commit_position = m.to_commit, prepare_position = m.to_prepare, updated_at = now()
     FROM async_commit, jsonb_to_recordset($1::jsonb)
       AS m(name text, version integer, from_commit bigint, from_prepare bigint, to_commit bigint, to_prepare bigint)
     WHERE c.name = m.name AND c.version = m.version
       AND c.commit_position = m.from_commit AND c.prepare_position = m.from_prepare
     RETURNING c.name`,
    [
      JSON.stringify(
        moved.map((r) => ({
          name: r.projection.name,
          version: r.projection.version,
          from_commit: r.persisted.commit.toString(),
          from_prepare: r.persisted.prepare.toString(),
          to_commit: r.position.commit.toString(),
          to_prepare: r.position.prepare.toString(),
        })),
      ),
    ],
  );
  const done = new Set(rows.map((r) => r.name));
  for (const runner of moved) {
    if (done.has(runner.projection.name)) runner.persisted = runner.position;
    else await reload(p, runner);
  }
}
