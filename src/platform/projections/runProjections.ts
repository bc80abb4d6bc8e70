import { HeldStatementsError, type Sql } from "../db.ts";
import type { RecordedEvent } from "../eventstore/eventStore.ts";
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
  START,
} from "../eventstore/eventStore.ts";
import {
  CHECKPOINT_MOVED,
  type Checkpoint,
  loadCheckpoint,
  lockCheckpoints,
  moveCheckpoints,
  samePosition,
} from "./checkpoints.ts";
import type { BatchMemory, Projection, Row } from "./projection.ts";
import { rebuildProjection } from "./rebuildProjection.ts";
import { watchProjections } from "./watchProjections.ts";

const BATCH = 1000;

/**
 * Checkpoints beyond the end of the log (docs/operations.md, "Backup and restore"): the read
 * models are ahead of the log they were built from. The projector refuses to start rather than
 * skip what the log holds up to them.
 */
export class CheckpointAheadError extends Error {
  constructor(
    readonly projections: { name: string; position: Position }[],
    readonly head: Position,
  ) {
    super(
      `Projection checkpoints are beyond the end of the event log (${positionToString(head)}): ${projections
        .map((p) => `${p.name} at ${positionToString(p.position)}`)
        .join(", ")}. The log was restored from an older backup while the read models were kept. ` +
        "If the log comes from another PostgreSQL server, run `pms log adopt`; otherwise rebuild each from the log: " +
        projections.map((p) => `\`pms projections rebuild ${p.name}\``).join(", "),
    );
    this.name = "CheckpointAheadError";
  }
}

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

interface Logger {
  info(msg: string): void;
  /** Routine steps (a fresh database's first builds); info when absent. */
  debug?(msg: string): void;
  error(obj: unknown, msg: string): void;
}

interface Runner {
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
}

/** A projection in a batch's group: its part of the batch and its memory of rows. */
interface Member {
  runner: Runner;
  slice: RecordedEvent[];
  memory: BatchMemory;
}

/**
 * How often, at most, the checkpoints of projections that only skipped events are written
 * (persistSkipped): a skip changes no table, so read-your-writes in this process does not wait
 * for it; instances that watch checkpoint rows see a skip at most this much later.
 */
const SKIPS_EVERY_MS = 100;

/** Rows kept per projection between batches (about 1 kB each for a lease). */
const KEPT_ROWS = 10_000;

/**
 * One reader for all projections of this process: it reads a batch of the log once, and the
 * projections apply their own events and move their checkpoints all in one transaction (a
 * failing one drops out and retries alone). When no projection has anything in the batch,
 * only the checkpoints move later, all of them in one statement. One instance per projection across processes (advisory lock); a version change
 * rebuilds into fresh tables and swaps; a failing projection backs off without holding the
 * others.
 */
export function runProjections(options: {
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
}): ProjectionRuntime {
  const { sql, store, projections, log, onBatch } = options;
  const readLog = options.readAll ?? ((o: Parameters<EventStore["readAll"]>[0]) => store.readAll(o));
  // Stamps of the current batch, filled as it goes when onBatch is given.
  let stamps = { woken: 0, acquired: null as number | null, applied: null as number | null };
  let stopped = false;
  /** Why the projector refused to start (checkpoints ahead of the log), for ready() to report. */
  let fatal: Error | null = null;
  const runners = new Map<string, Runner>();
  const waiters = new Set<() => void>();
  const wakers = new Set<() => void>();
  const notifyWaiters = () => {
    for (const w of waiters) w();
  };
  // Counts wake-ups, so an append landing between a read and the sleep is not missed.
  let appends = 0;
  const wakeAll = () => {
    appends++;
    if (onBatch) stamps.woken = performance.now();
    for (const w of wakers) w();
  };
  const unsubscribe = store.onAppended(wakeAll);

  const sliceFor = (runner: Runner, events: RecordedEvent[]) =>
    events.filter((e) => comparePositions(e.position, runner.position) > 0);

  /**
   * Sleeps up to `ms`, woken by an append. `seen`: the append count when the loop last read the
   * log; an append since then (e.g. while the skips were persisted or the open-transaction check
   * ran) means there may be events to read, so no sleep at all (docs/performance.md).
   */
  const sleep = (ms: number, seen?: number) =>
    new Promise<void>((resolve) => {
      // stop() wakes the sleepers it finds; a loop going to sleep after that must not wait.
      if (stopped || (seen !== undefined && appends !== seen)) return resolve();
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });

  /** Committed events past `after` that readAll may not return yet because an older transaction is open. */
  const blockedBehindOpenTransaction = async (after: Position) => {
    if (store.engine !== "postgres") return false;
    const { eventsPast } = await import("../eventstore/postgres/readAll.ts");
    return eventsPast(sql, after);
  };

  /** The log's head as this projector can read it, looked up once per claim round. */
  let head: Promise<Position> | null = null;
  const logHead = () => {
    head ??= store.headPosition({ past_other_databases: true }).then((p) => p ?? START);
    return head;
  };

  /** Takes the lock of each projection not yet run here; builds those whose version changed. */
  async function claim(): Promise<void> {
    head = null;
    const ahead: { name: string; position: Position }[] = [];
    for (const projection of projections) {
      if (stopped || runners.has(projection.name)) continue;
      const release = await sql.tryLock(`projection:${projection.name}`).catch(() => null);
      if (!release) continue;
      try {
        let checkpoint = await loadCheckpoint(sql, projection.name);
        // A checkpoint past the log's end: the log was restored from an older backup while the
        // read models were kept. Going on would skip every event written up to it again.
        if (checkpoint && comparePositions(checkpoint.position, await logHead()) > 0) {
          ahead.push({ name: projection.name, position: checkpoint.position });
          await release();
          continue;
        }
        if (!checkpoint || checkpoint.version !== projection.version) {
          // A first build is routine; a changed version replays the log, worth an operator's eye.
          const say = checkpoint ? log.info : (log.debug ?? log.info);
          say(`projection ${projection.name}: building version ${projection.version}`);
          await rebuildProjection(sql, store, projection, say);
          checkpoint = await loadCheckpoint(sql, projection.name);
        }
        const position = checkpoint?.position ?? START;
        runners.set(projection.name, {
          projection,
          handled: new Set(projection.handles),
          release,
          position,
          persisted: position,
          failures: 0,
          retryAt: 0,
          kept: new Map(),
        });
      } catch (error) {
        log.error(error, `projection ${projection.name} could not start`);
        await release();
      }
    }
    if (ahead.length > 0) {
      fatal = new CheckpointAheadError(ahead, await logHead());
      log.error(fatal, "projections refused to start");
      stopped = true;
    }
    notifyWaiters();
  }

  /**
   * After a rebuild swapped tables under us: continue from the checkpoint it wrote (`read`: that
   * checkpoint as the caller just read it, else read here).
   */
  async function reload(runner: Runner, read?: Checkpoint | null): Promise<void> {
    runner.kept.clear();
    const current = read !== undefined ? read : await loadCheckpoint(sql, runner.projection.name);
    if (!current || current.version !== runner.projection.version) {
      await rebuildProjection(sql, store, runner.projection, log.info);
      return reload(runner);
    }
    runner.position = current.position;
    runner.persisted = current.position;
  }

  /** Backs off and retries alone, with its own checkpoint, until a batch succeeds again. */
  async function failed(runner: Runner, error: unknown): Promise<void> {
    const { projection } = runner;
    runner.kept.clear();
    runner.failures++;
    runner.retryAt = Date.now() + Math.min(100 * 2 ** runner.failures, 5000);
    log.error(error, `projection ${projection.name} failed; retrying alone`);
    await sql
      .query("UPDATE projection_checkpoints SET last_error = $2, updated_at = now() WHERE name = $1", [
        projection.name,
        String((error as Error)?.message ?? error),
      ])
      .catch(() => {});
  }

  /**
   * One transaction for the batch and every projection of the group: rows of all of them and
   * all their checkpoints commit together (one commit instead of one per projection). A
   * projection that throws is taken out, the transaction rolled back and replayed without it
   * (docs/performance.md). Rows held by a rebuild's swap are skipped this round, not waited on.
   */
  async function applyToGroup(
    group: Runner[],
    events: RecordedEvent[],
    /** Called as the batch's last round trip (its COMMIT) is about to be sent. */
    committing: () => void = () => {},
  ): Promise<void> {
    let members: Member[] = group
      .map((runner) => ({
        runner,
        slice: sliceFor(runner, events),
        memory: { kept: runner.kept, staged: new Map<string, Row | null>() },
      }))
      .filter((m) => m.slice.length > 0);
    // Statements held and sent a few at a time (db.ts `batched`); after a failure in such a group,
    // which statement failed is unknown: the batch is replayed statement by statement to find it.
    let batched = true;
    // The next log read starts once per batch, with its first COMMIT sent: a replay reuses it.
    let readAhead = false;
    for (;;) {
      // Projections with nothing of theirs in the batch stay out of its transaction (no lock, no
      // checkpoint write): their skip is recorded later by persistSkipped, as when no one is busy.
      const busy = members.filter((m) => m.slice.some((e) => m.runner.handled.has(e.type)));
      for (const m of members) {
        if (!busy.includes(m)) m.runner.position = m.slice[m.slice.length - 1].position;
      }
      members = busy;
      if (busy.length === 0) return;
      const applying: { runner: Runner | null } = { runner: null };
      try {
        const outcome = await sql.transaction(
          async (tx) => {
            if (onBatch) stamps.acquired = performance.now();
            const outcome = batched
              ? await applyHeld(tx, members, applying)
              : await applyInOneTransaction(tx, members, applying);
            if (!readAhead) committing();
            readAhead = true;
            return outcome;
          },
          { batched },
        );
        for (const m of outcome.applied) {
          m.runner.position = m.slice[m.slice.length - 1].position;
          m.runner.persisted = m.runner.position;
          m.runner.failures = 0;
          keep(m.memory);
        }
        for (const runner of outcome.stale) await reload(runner);
        return;
      } catch (error) {
        for (const m of members) {
          m.memory.staged.clear();
          m.memory.kept.clear();
        }
        const cause = error instanceof HeldStatementsError ? error.cause : error;
        if ((cause as { code?: string })?.code === CHECKPOINT_MOVED) {
          // Another instance or a rebuild moved a checkpoint, or a swap holds one: nothing was
          // written. A moved projection continues from its checkpoint; the others wait a round
          // (a swap in progress), and the next round reads from there.
          for (const m of members) {
            const current = await loadCheckpoint(sql, m.runner.projection.name);
            if (
              !current ||
              current.version !== m.runner.projection.version ||
              !samePosition(current.position, m.runner.persisted)
            )
              await reload(m.runner, current);
            else m.runner.retryAt = Date.now() + 50;
          }
          return;
        }
        // Batched, the failing statement may be unknown (held ones) and the checkpoints are not
        // checked before the writes: the batch is replayed statement by statement, which checks
        // them first (a swap, another instance) and names the projection that fails.
        if (batched) {
          batched = false;
          continue;
        }
        const culprit = applying.runner;
        if (!culprit) throw error;
        await failed(culprit, error);
        members = members.filter((m) => m.runner !== culprit);
      }
    }
  }

  /** Each member's checkpoint move: from where it was last written to the end of its slice. */
  const movesOf = (members: Member[]) =>
    members.map((m) => ({
      name: m.runner.projection.name,
      version: m.runner.projection.version,
      from: m.runner.persisted,
      position: m.slice[m.slice.length - 1].position,
      applied: m.slice.length,
    }));

  /** A committed batch's rows become the kept ones, the oldest dropped past KEPT_ROWS. */
  function keep(memory: BatchMemory): void {
    for (const [k, row] of memory.staged) {
      memory.kept.delete(k);
      memory.kept.set(k, row);
    }
    memory.staged.clear();
    for (const k of memory.kept.keys()) {
      if (memory.kept.size <= KEPT_ROWS) break;
      memory.kept.delete(k);
    }
  }

  /**
   * The batch's transaction in a few round trips (db.ts `batched`): no lock first, the rows'
   * writes and the checkpoint moves held and sent with the next read or with COMMIT (a write too
   * large to inline goes at once, after them); the moves compare-and-set, failing the transaction
   * if a checkpoint moved meanwhile (checkpoints.ts).
   */
  async function applyHeld(tx: Sql, members: Member[], applying: { runner: Runner | null }) {
    // Held, so its answer is not awaited: the rows it cannot lock fail the moves at the end.
    await lockCheckpoints(
      tx,
      members.map((m) => m.runner.projection.name),
      { deferred: true },
    );
    for (const m of members) {
      applying.runner = m.runner;
      await m.runner.projection.applyBatch(
        tx,
        m.slice.filter((e) => m.runner.handled.has(e.type)),
        m.memory,
      );
      applying.runner = null;
    }
    await moveCheckpoints(tx, movesOf(members));
    if (onBatch) stamps.applied = performance.now();
    return { applied: members, stale: [] as Runner[] };
  }

  async function applyInOneTransaction(tx: Sql, members: Member[], applying: { runner: Runner | null }) {
    const current = await lockCheckpoints(
      tx,
      members.map((m) => m.runner.projection.name),
    );
    const stale: Runner[] = [];
    const applied: typeof members = [];
    for (const m of members) {
      const { projection } = m.runner;
      const checkpoint = current.get(projection.name);
      if (!checkpoint) {
        // A rebuild is swapping this one in: let it finish rather than spin on the locked row.
        m.runner.retryAt = Date.now() + 50;
        continue;
      }
      if (
        checkpoint.version !== projection.version ||
        !samePosition(checkpoint.position, m.runner.persisted)
      ) {
        stale.push(m.runner);
        continue;
      }
      const mine = m.slice.filter((e) => m.runner.handled.has(e.type));
      if (mine.length > 0) {
        applying.runner = m.runner;
        await projection.applyBatch(tx, mine, m.memory);
        applying.runner = null;
      }
      applied.push(m);
    }
    await moveCheckpoints(tx, movesOf(applied));
    if (onBatch) stamps.applied = performance.now();
    return { applied, stale };
  }

  /** Projections that read past their checkpoint row only by skipping events. */
  const unrecordedSkips = () => [...runners.values()].filter((r) => !samePosition(r.position, r.persisted));

  /** Moves the checkpoints of projections that only skipped events, in one statement. */
  async function persistSkipped(): Promise<void> {
    const moved = unrecordedSkips();
    if (moved.length === 0) return;
    // Without waiting for the WAL flush, as a batch commits (a lost move is replayed as skips):
    // the loop awaits this statement, and a flush behind the appends' own took milliseconds.
    const rows = await sql.query<{ name: string }>(
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
      else await reload(runner);
    }
  }

  let claimedOnce: () => void = () => {};
  const firstClaim = new Promise<void>((resolve) => {
    claimedOnce = resolve;
  });

  async function loop(): Promise<void> {
    // The next read, started by the last batch as it committed (a holder: set in a callback).
    const readAhead: {
      next: { after: Position; past: boolean; seen: number; events: Promise<RecordedEvent[]> } | null;
    } = { next: null };
    let lastClaim = 0;
    let readPastUntil = 0;
    let lastPersist = 0;
    /** persistSkipped, at most every SKIPS_EVERY_MS: answers the ms until it is due (0: it ran). */
    const persistSkippedIfDue = async () => {
      const wait = lastPersist + SKIPS_EVERY_MS - Date.now();
      if (wait > 0) return wait;
      lastPersist = Date.now();
      await persistSkipped();
      return 0;
    };
    while (!stopped) {
      try {
        if (runners.size < projections.length && Date.now() - lastClaim > 2000) {
          lastClaim = Date.now();
          await claim();
          claimedOnce();
        }
        const now = Date.now();
        const active = [...runners.values()].filter((r) => r.retryAt <= now);
        if (active.length === 0) {
          await sleep(runners.size === 0 ? 2000 : 100);
          continue;
        }
        const from = active.reduce(
          (min, r) => (comparePositions(r.position, min) < 0 ? r.position : min),
          active[0].position,
        );
        const readStart = performance.now();
        // While another database's transaction holds the plain read back, read past it directly
        // for a while, not a plain read, a check and a second read per batch.
        const past = Date.now() < readPastUntil;
        // The read the last batch started as it committed, if it reads from here (it does unless a
        // projection fell behind or failed): one round trip less per busy round.
        const ahead = readAhead.next;
        const early = ahead && samePosition(ahead.after, from) && ahead.past === past ? ahead : null;
        readAhead.next = null;
        const seen = early ? early.seen : appends;
        let events = early
          ? await early.events
          : await readLog({ after: from, max_count: BATCH, past_other_databases: past });
        let readEnd = performance.now();
        if (events.length === 0) {
          if (appends !== seen) continue;
          // Skips are recorded at most every SKIPS_EVERY_MS here too: under load the log often reads
          // empty between batches, and a statement then would delay the next append's batch.
          const persistIn = await persistSkippedIfDue();
          if (!(await blockedBehindOpenTransaction(from))) {
            const idle = runners.size < projections.length ? 2000 : (options.idlePollMs ?? 1000);
            await sleep(
              persistIn > 0 && unrecordedSkips().length > 0 ? Math.min(idle, persistIn) : idle,
              seen,
            );
            continue;
          }
          // Held back by an open transaction: perhaps one of another database, which cannot
          // write this log; read past those (readAll.ts), else poll until it ends.
          events = past ? [] : await readLog({ after: from, max_count: BATCH, past_other_databases: true });
          readEnd = performance.now();
          if (events.length === 0) {
            await sleep(2, seen);
            continue;
          }
          readPastUntil = Date.now() + 1000;
        }
        // Healthy projections share one transaction per batch; a failing one retries alone.
        const last = events[events.length - 1].position;
        await applyToGroup(
          active.filter((r) => r.failures === 0),
          events,
          () => {
            // The next read goes out with this batch's COMMIT, on the projector's read connection
            // (docs/performance.md, "Projector round trips"): events committed before it starts.
            const next = readLog({ after: last, max_count: BATCH, past_other_databases: past });
            // Handled where it is used; one left unused (the loop stopped, or read from elsewhere)
            // must not be an unhandled rejection.
            next.catch(() => {});
            readAhead.next = { after: last, past, seen: appends, events: next };
          },
        );
        const committed = stamps.acquired === null ? null : performance.now();
        // A failing projection retries alone: a group of one, by the same path as the others.
        for (const runner of active.filter((r) => r.failures > 0 && r.retryAt <= now)) {
          await applyToGroup([runner], events);
        }
        // Waiters first: a skipped event changes no table, so read-your-writes need not wait
        // for the statement (and its commit) that records the skip.
        notifyWaiters();
        if (onBatch) {
          onBatch({
            events: events.length,
            last: events[events.length - 1].position,
            ...stamps,
            readStart,
            readEnd,
            committed,
            notified: performance.now(),
          });
        }
        stamps = { woken: stamps.woken, acquired: null, applied: null };
        // Skips change no table: record them at most every SKIPS_EVERY_MS, off the hot path.
        await persistSkippedIfDue();
      } catch (error) {
        log.error(error, "projection reader failed; retrying");
        await sleep(500);
      }
    }
  }

  const running = loop();

  const caughtUp = (target: Position) =>
    [...runners.values()].every((r) => comparePositions(r.position, target) >= 0);

  /** Projections another instance runs: their checkpoint rows tell. */
  const othersCaughtUp = (position: Position, timeoutMs: number) => {
    const others = projections.filter((p) => !runners.has(p.name));
    if (others.length === 0) return Promise.resolve(true);
    return watchProjections(sql, store, others).waitFor(position, timeoutMs);
  };

  return {
    async waitFor(position, timeoutMs = 10_000) {
      const started = Date.now();
      const mine = await waitLocal(position, timeoutMs);
      return mine && othersCaughtUp(position, Math.max(0, timeoutMs - (Date.now() - started)));
    },
    async ready() {
      await firstClaim;
      if (fatal) throw fatal;
      const others = projections.filter((p) => !runners.has(p.name));
      if (others.length > 0) await watchProjections(sql, store, others).ready();
    },
    lagOf,
    stop,
  };

  function waitLocal(position: Position, timeoutMs: number): Promise<boolean> {
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
  }

  async function lagOf(name: string, head: Position | null): Promise<number | null> {
    if (!head) return 0;
    const runner = runners.get(name);
    const checkpoint = runner ? { position: runner.position } : await loadCheckpoint(sql, name);
    if (!checkpoint) return null;
    if (comparePositions(checkpoint.position, head) >= 0) return 0;
    if (store.engine === "eventstoredb") return null;
    const [row] = await sql.query(
      `SELECT count(*) AS n FROM (SELECT 1 FROM events
           WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) LIMIT 1000000) behind`,
      [
        (checkpoint.position.commit < 0n ? 0n : checkpoint.position.commit).toString(),
        checkpoint.position.prepare.toString(),
      ],
    );
    return Number(row.n);
  }

  async function stop(): Promise<void> {
    stopped = true;
    unsubscribe();
    for (const w of wakers) w();
    for (const w of waiters) w();
    await running;
    await persistSkipped().catch(() => {});
    for (const runner of runners.values()) await runner.release?.();
    runners.clear();
  }
}
