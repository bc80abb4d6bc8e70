import { comparePositions, type Position } from "../eventstore/eventStore.ts";
import { loadCheckpoint } from "./checkpoints.ts";
import { persistSkipped } from "./persistSkipped.ts";
import { createProjector, type Projector, type ProjectorOptions, wakeAll } from "./projector.ts";
import { projectorLoop } from "./projectorLoop.ts";
import { watchProjections } from "./watchProjections.ts";

export { CheckpointAheadError } from "./claimProjections.ts";
export type { BatchTiming } from "./projector.ts";

export interface ProjectionRuntime {
  /** Resolves true once every projection has passed `position`, false on timeout. */
  waitFor(position: Position, timeoutMs?: number): Promise<boolean>;
  /** Events the projection still has to read (capped), or null when it cannot be counted. */
  lagOf(name: string, head: Position | null): Promise<number | null>;
  /** Resolves once every projection's tables exist (built here or by another instance). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One reader for all projections of this process: it reads a batch of the log once, and the
 * projections apply their own events and move their checkpoints all in one transaction (a
 * failing one drops out and retries alone; applyGroup.ts). When no projection has anything in
 * the batch, only the checkpoints move later, all of them in one statement (persistSkipped.ts).
 * One instance per projection across processes (advisory lock); a version change rebuilds into
 * fresh tables and swaps (claimProjections.ts). The loop itself: projectorLoop.ts.
 */
export function runProjections(options: ProjectorOptions): ProjectionRuntime {
  const p = createProjector(options);
  const unsubscribe = p.store.onAppended(() => wakeAll(p));
  const running = projectorLoop(p);
  return {
    async waitFor(position, timeoutMs = 10_000) {
      const started = Date.now();
      const mine = await waitLocal(p, position, timeoutMs);
      return mine && othersCaughtUp(p, position, Math.max(0, timeoutMs - (Date.now() - started)));
    },
    async ready() {
      await p.firstClaim;
      if (p.fatal) throw p.fatal;
      const others = p.projections.filter((projection) => !p.runners.has(projection.name));
      if (others.length > 0) await watchProjections(p.sql, p.store, others).ready();
    },
    lagOf: (name, head) => lagOf(p, name, head),
    async stop() {
      p.stopped = true;
      unsubscribe();
      for (const w of p.wakers) w();
      for (const w of p.waiters) w();
      await running;
      await persistSkipped(p).catch(() => {});
      for (const runner of p.runners.values()) await runner.release?.();
      p.runners.clear();
    },
  };
}

const caughtUp = (p: Projector, target: Position) =>
  [...p.runners.values()].every((r) => comparePositions(r.position, target) >= 0);

/** Projections another instance runs: their checkpoint rows tell. */
function othersCaughtUp(p: Projector, position: Position, timeoutMs: number): Promise<boolean> {
  const others = p.projections.filter((projection) => !p.runners.has(projection.name));
  if (others.length === 0) return Promise.resolve(true);
  return watchProjections(p.sql, p.store, others).waitFor(position, timeoutMs);
}

/** Resolves true once this process's projections have passed `position`, false on timeout. */
function waitLocal(p: Projector, position: Position, timeoutMs: number): Promise<boolean> {
  if (caughtUp(p, position)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = () => {
      if (caughtUp(p, position)) finish(true);
    };
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      p.waiters.delete(check);
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    p.waiters.add(check);
  });
}

async function lagOf(p: Projector, name: string, head: Position | null): Promise<number | null> {
  if (!head) return 0;
  const runner = p.runners.get(name);
  const checkpoint = runner ? { position: runner.position } : await loadCheckpoint(p.sql, name);
  if (!checkpoint) return null;
  if (comparePositions(checkpoint.position, head) >= 0) return 0;
  if (p.store.engine === "eventstoredb") return null;
  const [row] = await p.sql.query(
    `SELECT count(*) AS n FROM (SELECT 1 FROM events
         WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) LIMIT 1000000) behind`,
    [
      (checkpoint.position.commit < 0n ? 0n : checkpoint.position.commit).toString(),
      checkpoint.position.prepare.toString(),
    ],
  );
  return Number(row.n);
}
