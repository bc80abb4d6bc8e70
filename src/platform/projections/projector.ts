import type { Sql } from "../db.ts";
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
} from "../eventstore/eventStore.ts";
import type { BatchMemory, Projection, Row } from "./projection.ts";
import type { Aside } from "./quarantine.ts";

/** Events read from the log per batch. */
export const BATCH = 1000;

/**
 * How often, at most, the checkpoints of projections that only skipped events are written
 * (persistSkipped): a skip changes no table, so read-your-writes in this process does not wait
 * for it; instances that watch checkpoint rows see a skip at most this much later.
 */
export const SKIPS_EVERY_MS = 100;

/** Rows kept per projection between batches (about 1 kB each for a lease). */
export const KEPT_ROWS = 10_000;

export interface Logger {
  info(msg: string): void;
  /** Routine steps (a fresh database's first builds); info when absent. */
  debug?(msg: string): void;
  error(obj: unknown, msg: string): void;
}

/**
 * Where one live batch spent its time (performance.now() stamps), for measuring the
 * read-your-writes wait (docs/performance.md). `acquired`: a connection taken (in a batched
 * transaction BEGIN is still held); `applied`: every projection's statements issued, before
 * COMMIT (in a batched transaction the writes and checkpoint moves still held, sent with it).
 */
export interface BatchTiming {
  events: number;
  last: Position;
  woken: number;
  readStart: number;
  readEnd: number;
  acquired: number | null;
  applied: number | null;
  committed: number | null;
  notified: number;
}

export interface ProjectorOptions {
  sql: Sql;
  store: EventStore;
  projections: Projection[];
  log: Logger;
  /** Called after each live batch with its timings (benchmarks). */
  onBatch?: (timing: BatchTiming) => void;
  /**
   * Reads the log for live batches; by default the store. The service passes a read over the
   * projector's own pool, so the read does not queue behind request traffic for a connection of
   * the store's pool (docs/performance.md, "Read-your-writes").
   */
  readAll?: EventStore["readAll"];
  /** The safety poll when idle (a missed wake-up costs at most this); tests lengthen it. */
  idlePollMs?: number;
}

/** One projection run by this process. */
export interface Runner {
  projection: Projection;
  handled: Set<string>;
  release: (() => Promise<void>) | null;
  /** Where this projection has read to (applied, or skipped as not its events). */
  position: Position;
  /** What its checkpoint row says, as we last wrote or read it. */
  persisted: Position;
  failures: number;
  retryAt: number;
  /** Rows a `keepRows` projection holds between live batches (BatchMemory), at most KEPT_ROWS. */
  kept: Map<string, Row | null>;
  /** Streams with events in the quarantine (quarantine.ts): their later events wait there too. */
  held: Set<string>;
}

/** A projection in a batch's group: its part of the batch and its memory of rows. */
export interface Member {
  runner: Runner;
  slice: RecordedEvent[];
  memory: BatchMemory;
  /** What a careful apply changed in the quarantine (null: applied as a batch). */
  aside: Aside | null;
}

/** What the projector's parts share: its options, its runners and its wake-up machinery. */
export interface Projector extends ProjectorOptions {
  readLog: EventStore["readAll"];
  /** Stamps of the current batch, filled as it goes when onBatch is given. */
  stamps: { woken: number; acquired: number | null; applied: number | null };
  stopped: boolean;
  /** Why the projector refused to start (checkpoints ahead of the log), for ready() to report. */
  fatal: Error | null;
  runners: Map<string, Runner>;
  /** Read-your-writes waiters, called after each batch. */
  waiters: Set<() => void>;
  /** Sleepers, woken by an append. */
  wakers: Set<() => void>;
  /** Counts wake-ups, so an append landing between a read and the sleep is not missed. */
  appends: number;
  /** Resolves once the first claim round is over (ready() waits for it). */
  firstClaim: Promise<void>;
  claimed: () => void;
}

export function createProjector(options: ProjectorOptions): Projector {
  let claimed: () => void = () => {};
  const firstClaim = new Promise<void>((resolve) => {
    claimed = resolve;
  });
  return {
    ...options,
    readLog: options.readAll ?? ((o) => options.store.readAll(o)),
    stamps: { woken: 0, acquired: null, applied: null },
    stopped: false,
    fatal: null,
    runners: new Map(),
    waiters: new Set(),
    wakers: new Set(),
    appends: 0,
    firstClaim,
    claimed,
  };
}

/** An append happened: count it and wake the sleepers. */
export function wakeAll(p: Projector): void {
  p.appends++;
  if (p.onBatch) p.stamps.woken = performance.now();
  for (const w of p.wakers) w();
}

export function notifyWaiters(p: Projector): void {
  for (const w of p.waiters) w();
}

/**
 * Sleeps up to `ms`, woken by an append. `seen`: the append count when the loop last read the
 * log; an append since then (e.g. while the skips were persisted or the open-transaction check
 * ran) means there may be events to read, so no sleep at all (docs/performance.md).
 */
export function sleep(p: Projector, ms: number, seen?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // stop() wakes the sleepers it finds; a loop going to sleep after that must not wait.
    if (p.stopped || (seen !== undefined && p.appends !== seen)) return resolve();
    const done = () => {
      clearTimeout(timer);
      p.wakers.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    p.wakers.add(done);
  });
}

/** The events of a batch this runner has not read yet. */
export const sliceFor = (runner: Runner, events: RecordedEvent[]) =>
  events.filter((e) => comparePositions(e.position, runner.position) > 0);
