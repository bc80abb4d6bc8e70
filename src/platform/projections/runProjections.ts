import { notifier, type Sql } from "../db.ts";
import { comparePositions, type EventStore, type Position, START } from "../eventstore/eventStore.ts";
import { advanceCheckpoint, loadCheckpoint, samePosition, saveCheckpoint } from "./checkpoints.ts";
import type { Projection } from "./projection.ts";
import { rebuildProjection } from "./rebuildProjection.ts";

const BATCH = 1000;

export interface ProjectionRuntime {
  /** Resolves true once every projection has passed `position`, false on timeout. */
  waitFor(position: Position, timeoutMs?: number): Promise<boolean>;
  /** Events the projection still has to read (capped), or null when it cannot be counted. */
  lagOf(name: string, head: Position | null): Promise<number | null>;
  stop(): Promise<void>;
}

interface Logger {
  info(msg: string): void;
  error(obj: unknown, msg: string): void;
}

/**
 * Runs each projection in its own loop: read a batch after the checkpoint, apply it and move
 * the checkpoint in one transaction, sleep until woken by an append. One instance per
 * projection across processes (advisory lock); a version change rebuilds and swaps.
 */
export function runProjections(options: {
  sql: Sql;
  store: EventStore;
  projections: Projection[];
  log: Logger;
}): ProjectionRuntime {
  const { sql, store, projections, log } = options;
  let stopped = false;
  const positions = new Map<string, Position>();
  const waiters = new Set<() => void>();
  const wakers = new Set<() => void>();
  const notifyWaiters = () => {
    for (const w of waiters) w();
  };
  // Counts wake-ups, so an append landing between a read and the sleep is not missed.
  let appends = 0;
  const wakeAll = () => {
    appends++;
    for (const w of wakers) w();
  };
  const unsubscribe = store.onAppended(wakeAll);

  /** Committed events past `after` that readAll may not return yet because an older transaction is open. */
  const blockedBehindOpenTransaction = async (after: Position) => {
    if (store.engine !== "postgres") return false;
    const [row] = await sql.query(
      "SELECT EXISTS (SELECT 1 FROM events WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)) AS more",
      [(after.commit < 0n ? 0n : after.commit).toString(), after.prepare.toString()],
    );
    return row.more as boolean;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });

  async function runOne(projection: Projection): Promise<void> {
    let release: (() => Promise<void>) | null = null;
    while (!stopped && !release) {
      release = await sql.tryLock(`projection:${projection.name}`).catch(() => null);
      if (!release) await sleep(2000);
    }
    if (stopped) return;
    try {
      let checkpoint = await loadCheckpoint(sql, projection.name);
      if (!checkpoint || checkpoint.version !== projection.version) {
        log.info(`projection ${projection.name}: building version ${projection.version}`);
        await rebuildProjection(sql, store, projection, log.info);
        checkpoint = await loadCheckpoint(sql, projection.name);
      }
      let position = checkpoint?.position ?? START;
      positions.set(projection.name, position);
      notifyWaiters();
      const handled = new Set(projection.handles);
      // After the commit, not inside it: see `notifier`.
      const checkpointMoved = notifier(sql, "pms_checkpoints", projection.name);
      let failures = 0;
      while (!stopped) {
        try {
          const seen = appends;
          const events = await store.readAll({ after: position, max_count: BATCH });
          if (events.length === 0) {
            if (appends !== seen) continue;
            await sleep((await blockedBehindOpenTransaction(position)) ? 2 : 1000);
            continue;
          }
          const last = events[events.length - 1].position;
          const mine = events.filter((e) => handled.has(e.type));
          // Nothing to apply (most batches, for most projections): one statement, not a transaction.
          const skipped =
            mine.length === 0 &&
            (await advanceCheckpoint(sql, projection.name, projection.version, position, last, events.length));
          const applied = skipped
            ? null
            : await sql.transaction(async (tx) => {
                const current = await loadCheckpoint(tx, projection.name, true);
                // A rebuild swapped tables under us: start again from its checkpoint.
                if (!current || current.version !== projection.version || !samePosition(current.position, position)) {
                  return current;
                }
                if (mine.length > 0) await projection.applyBatch(tx, mine);
                await saveCheckpoint(tx, projection.name, last, events.length);
                return null;
              });
          if (applied) {
            if (applied.version !== projection.version) {
              await rebuildProjection(sql, store, projection, log.info);
              position = (await loadCheckpoint(sql, projection.name))?.position ?? START;
            } else {
              position = applied.position;
            }
          } else {
            position = last;
          }
          failures = 0;
          positions.set(projection.name, position);
          notifyWaiters();
          checkpointMoved();
        } catch (error) {
          failures++;
          log.error(error, `projection ${projection.name} failed; retrying`);
          await sql
            .query("UPDATE projection_checkpoints SET last_error = $2, updated_at = now() WHERE name = $1", [
              projection.name,
              String((error as Error)?.message ?? error),
            ])
            .catch(() => {});
          await sleep(Math.min(100 * 2 ** failures, 5000));
        }
      }
    } finally {
      await release?.();
    }
  }

  const loops = projections.map((p) =>
    runOne(p).catch((error) => log.error(error, `projection ${p.name} stopped`)),
  );

  const caughtUp = (target: Position) =>
    projections.every((p) => {
      const at = positions.get(p.name);
      return at !== undefined && comparePositions(at, target) >= 0;
    });

  return {
    waitFor(position, timeoutMs = 10_000) {
      if (caughtUp(position)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const check = () => {
          if (caughtUp(position)) finish(true);
        };
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(check);
      });
    },
    async lagOf(name, head) {
      if (!head) return 0;
      const checkpoint = await loadCheckpoint(sql, name);
      if (!checkpoint) return null;
      if (comparePositions(checkpoint.position, head) >= 0) return 0;
      if (store.engine === "eventstoredb") return null;
      const [row] = await sql.query(
        `SELECT count(*) AS n FROM (SELECT 1 FROM events
           WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) LIMIT 1000000) behind`,
        [(checkpoint.position.commit < 0n ? 0n : checkpoint.position.commit).toString(), checkpoint.position.prepare.toString()],
      );
      return Number(row.n);
    },
    async stop() {
      stopped = true;
      unsubscribe();
      for (const w of wakers) w();
      for (const w of waiters) w();
      await Promise.all(loops);
    },
  };
}
