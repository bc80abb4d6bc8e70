import { comparePositions, type Position, type RecordedEvent } from "../eventstore/eventStore.ts";
import { applyToGroup } from "./applyGroup.ts";
import { samePosition } from "./checkpoints.ts";
import { claim } from "./claimProjections.ts";
import { persistSkipped, unrecordedSkips } from "./persistSkipped.ts";
import { BATCH, notifyWaiters, type Projector, type Runner, SKIPS_EVERY_MS, sleep } from "./projector.ts";

/** A read started by the last batch as it committed, to be used by the next round. */
interface ReadAhead {
  after: Position;
  past: boolean;
  seen: number;
  events: Promise<RecordedEvent[]>;
}

/** What the loop carries from one round to the next. */
interface LoopState {
  readAhead: ReadAhead | null;
  lastClaim: number;
  /** Until when reads go past other databases' open transactions (readAll.ts). */
  readPastUntil: number;
  lastPersist: number;
}

/** A batch read from the log, with when it was read and the append count it saw. */
interface Batch {
  events: RecordedEvent[];
  readStart: number;
  readEnd: number;
  past: boolean;
  seen: number;
}

/** The projector's loop: one round after another until stopped; a failing round waits 500 ms. */
export async function projectorLoop(p: Projector): Promise<void> {
  const s: LoopState = { readAhead: null, lastClaim: 0, readPastUntil: 0, lastPersist: 0 };
  while (!p.stopped) {
    try {
      await round(p, s);
    } catch (error) {
      p.log.error(error, "projection reader failed; retrying");
      await sleep(p, 500);
    }
  }
}

/** Claims what is still unclaimed (every 2 s at most), then reads a batch and applies it. */
async function round(p: Projector, s: LoopState): Promise<void> {
  if (p.runners.size < p.projections.length && Date.now() - s.lastClaim > 2000) {
    s.lastClaim = Date.now();
    await claim(p);
    p.claimed();
  }
  const now = Date.now();
  const active = [...p.runners.values()].filter((r) => r.retryAt <= now);
  if (active.length === 0) return sleep(p, p.runners.size === 0 ? 2000 : 100);
  const from = active.reduce(
    (min, r) => (comparePositions(r.position, min) < 0 ? r.position : min),
    active[0].position,
  );
  const batch = await readBatch(p, s, from);
  if (batch) await project(p, s, active, now, batch);
}

/** The next batch from `from`, or null when the loop slept instead (or must read again). */
async function readBatch(p: Projector, s: LoopState, from: Position): Promise<Batch | null> {
  const readStart = performance.now();
  // While another database's transaction holds the plain read back, read past it directly
  // for a while, not a plain read, a check and a second read per batch.
  const past = Date.now() < s.readPastUntil;
  // The read the last batch started as it committed, if it reads from here (it does unless a
  // projection fell behind or failed): one round trip less per busy round.
  const ahead = s.readAhead;
  const early = ahead && samePosition(ahead.after, from) && ahead.past === past ? ahead : null;
  s.readAhead = null;
  const seen = early ? early.seen : p.appends;
  const events = early
    ? await early.events
    : await p.readLog({ after: from, max_count: BATCH, past_other_databases: past });
  if (events.length > 0) return { events, readStart, readEnd: performance.now(), past, seen };
  const held = await whenEmpty(p, s, from, past, seen);
  return held && { events: held, readStart, readEnd: performance.now(), past, seen };
}

/**
 * The log read empty: sleep until an append (or the idle poll), unless events are held back by
 * an open transaction; then, perhaps one of another database, which cannot write this log, read
 * past those (readAll.ts), else poll until it ends. Answers the events read past, or null.
 */
async function whenEmpty(
  p: Projector,
  s: LoopState,
  from: Position,
  past: boolean,
  seen: number,
): Promise<RecordedEvent[] | null> {
  if (p.appends !== seen) return null;
  // Skips are recorded at most every SKIPS_EVERY_MS here too: under load the log often reads
  // empty between batches, and a statement then would delay the next append's batch.
  const persistIn = await persistSkippedIfDue(p, s);
  if (!(await blockedBehindOpenTransaction(p, from))) {
    const idle = p.runners.size < p.projections.length ? 2000 : (p.idlePollMs ?? 1000);
    const wait = persistIn > 0 && unrecordedSkips(p).length > 0 ? Math.min(idle, persistIn) : idle;
    await sleep(p, wait, seen);
    return null;
  }
  const events = past ? [] : await p.readLog({ after: from, max_count: BATCH, past_other_databases: true });
  if (events.length === 0) {
    await sleep(p, 2, seen);
    return null;
  }
  s.readPastUntil = Date.now() + 1000;
  return events;
}

/** Committed events past `after` that readAll may not return yet because an older transaction is open. */
async function blockedBehindOpenTransaction(p: Projector, after: Position): Promise<boolean> {
  if (p.store.engine !== "postgres") return false;
  const { eventsPast } = await import("../eventstore/postgres/readAll.ts");
  return eventsPast(p.sql, after);
}

/** persistSkipped, at most every SKIPS_EVERY_MS: answers the ms until it is due (0: it ran). */
async function persistSkippedIfDue(p: Projector, s: LoopState): Promise<number> {
  const wait = s.lastPersist + SKIPS_EVERY_MS - Date.now();
  if (wait > 0) return wait;
  s.lastPersist = Date.now();
  await persistSkipped(p);
  return 0;
}

/**
 * Healthy projections share one transaction per batch; a failing one retries alone (a group of
 * one, by the same path). Then waiters are told, the batch's timings reported, skips recorded.
 */
async function project(p: Projector, s: LoopState, active: Runner[], now: number, batch: Batch) {
  const { events, past } = batch;
  const last = events[events.length - 1].position;
  await applyToGroup(
    p,
    active.filter((r) => r.failures === 0),
    events,
    () => {
      // The next read goes out with this batch's COMMIT, on the projector's read connection
      // (docs/performance.md, "Projector round trips"): events committed before it starts.
      const next = p.readLog({ after: last, max_count: BATCH, past_other_databases: past });
      // Handled where it is used; one left unused (the loop stopped, or read from elsewhere)
      // must not be an unhandled rejection.
      next.catch(() => {});
      s.readAhead = { after: last, past, seen: p.appends, events: next };
    },
  );
  const committed = p.stamps.acquired === null ? null : performance.now();
  for (const runner of active.filter((r) => r.failures > 0 && r.retryAt <= now)) {
    await applyToGroup(p, [runner], events);
  }
  // Waiters first: a skipped event changes no table, so read-your-writes need not wait
  // for the statement (and its commit) that records the skip.
  notifyWaiters(p);
  if (p.onBatch) {
    const { readStart, readEnd } = batch;
    p.onBatch({
      events: events.length,
      last,
      ...p.stamps,
      readStart,
      readEnd,
      committed,
      notified: performance.now(),
    });
  }
  p.stamps = { woken: p.stamps.woken, acquired: null, applied: null };
  // Skips change no table: record them at most every SKIPS_EVERY_MS, off the hot path.
  await persistSkippedIfDue(p, s);
}
