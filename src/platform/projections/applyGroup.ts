import { metrics } from "../collectMetrics.ts";
import { HeldStatementsError, type Sql } from "../db.ts";
import type { RecordedEvent } from "../eventstore/eventStore.ts";
import {
  CHECKPOINT_MOVED,
  loadCheckpoint,
  lockCheckpoints,
  moveCheckpoints,
  samePosition,
} from "./checkpoints.ts";
import { reload } from "./claimProjections.ts";
import type { BatchMemory, Row } from "./projection.ts";
import { KEPT_ROWS, type Member, type Projector, type Runner, sliceFor } from "./projector.ts";
import { applyCarefully, isOperationFor, needsCare, newAside, settleAside } from "./quarantine.ts";

/** Which projection was applying when a statement failed (set around each `applyBatch`). */
type Applying = { runner: Runner | null };

/** What a batch's transaction did: the members it applied, and those whose checkpoint moved. */
type Outcome = { applied: Member[]; stale: Runner[] };

/**
 * One transaction for the batch and every projection of the group: rows of all of them and
 * all their checkpoints commit together (one commit instead of one per projection). A
 * projection that throws is taken out, the transaction rolled back and replayed without it
 * (docs/performance.md). Rows held by a rebuild's swap are skipped this round, not waited on.
 */
export async function applyToGroup(
  p: Projector,
  group: Runner[],
  events: RecordedEvent[],
  /** Called as the batch's last round trip (its COMMIT) is about to be sent. */
  committing: () => void = () => {},
): Promise<void> {
  let members = membersOf(group, events);
  // Statements held and sent a few at a time (db.ts `batched`); after a failure in such a group,
  // which statement failed is unknown: the batch is replayed statement by statement to find it.
  let batched = true;
  // The next log read starts once per batch, with its first COMMIT sent: a replay reuses it.
  let readAhead = false;
  for (;;) {
    members = withoutIdle(members);
    if (members.length === 0) return;
    // The careful path (quarantine.ts) needs each statement's answer: no held statements.
    if (members.some(careful)) batched = false;
    const applying: Applying = { runner: null };
    try {
      const outcome = await p.sql.transaction(
        async (tx) => {
          if (p.onBatch) p.stamps.acquired = performance.now();
          const outcome = batched
            ? await applyHeld(p, tx, members, applying)
            : await applyInOneTransaction(p, tx, members, applying);
          if (!readAhead) committing();
          readAhead = true;
          return outcome;
        },
        { batched },
      );
      return await settle(p, outcome);
    } catch (error) {
      forget(members);
      const cause = error instanceof HeldStatementsError ? error.cause : error;
      if ((cause as { code?: string })?.code === CHECKPOINT_MOVED) return checkpointsMoved(p, members);
      // Batched, the failing statement may be unknown (held ones) and the checkpoints are not
      // checked before the writes: the batch is replayed statement by statement, which checks
      // them first (a swap, another instance) and names the projection that fails.
      if (batched) {
        batched = false;
        continue;
      }
      const culprit = applying.runner;
      if (!culprit) throw error;
      // Applied again at once event by event (careful), the event that fails is quarantined;
      // a careful attempt that fails too (the database away) backs off and retries alone.
      const member = members.find((m) => m.runner === culprit);
      if (member && !careful(member)) {
        culprit.failures++;
        p.log.error(error, `projection ${culprit.projection.name} failed; applying its events one by one`);
        continue;
      }
      await failed(p, culprit, error);
      members = members.filter((m) => m.runner !== culprit);
    }
  }
}

/** The group's projections that have unread events in the batch, each with its slice. */
function membersOf(group: Runner[], events: RecordedEvent[]): Member[] {
  return group
    .map((runner) => ({
      runner,
      slice: sliceFor(runner, events),
      memory: { kept: runner.kept, staged: new Map<string, Row | null>() },
      aside: null,
    }))
    .filter((m) => m.slice.length > 0);
}

/**
 * Projections with nothing of theirs in the batch stay out of its transaction (no lock, no
 * checkpoint write): they read past it now, and their skip is recorded later by persistSkipped,
 * as when no one is busy.
 */
function withoutIdle(members: Member[]): Member[] {
  const busy = members.filter((m) =>
    m.slice.some((e) => m.runner.handled.has(e.type) || isOperationFor(m.runner.projection, e)),
  );
  for (const m of members) {
    if (!busy.includes(m)) m.runner.position = m.slice[m.slice.length - 1].position;
  }
  return busy;
}

/**
 * A member applied event by event in savepoints (quarantine.ts): after a failure, or when its
 * slice holds an operator's retry or skip, or events of a stream held in the quarantine.
 */
const careful = (m: Member) =>
  m.runner.failures > 0 || needsCare(m.runner.projection, m.runner.held, m.slice);

/** After the commit: the applied read on, the stale continue from their checkpoint. */
async function settle(p: Projector, outcome: Outcome): Promise<void> {
  for (const m of outcome.applied) {
    m.runner.position = m.slice[m.slice.length - 1].position;
    m.runner.persisted = m.runner.position;
    m.runner.failures = 0;
    keep(m.memory);
    if (m.aside) {
      settleAside(m.runner.held, m.aside);
      if (m.aside.quarantined > 0) {
        metrics.quarantinedEvents.inc({ projection: m.runner.projection.name }, m.aside.quarantined);
        p.log.error(
          { projection: m.runner.projection.name, events: m.aside.quarantined },
          `projection ${m.runner.projection.name}: ${m.aside.quarantined} event(s) quarantined`,
        );
      }
    }
  }
  for (const runner of outcome.stale) await reload(p, runner);
}

/** After a rollback, rows remembered from it or before may be wrong: all are dropped. */
function forget(members: Member[]): void {
  for (const m of members) {
    m.memory.staged.clear();
    m.memory.kept.clear();
  }
}

/**
 * Another instance or a rebuild moved a checkpoint, or a swap holds one: nothing was written. A
 * moved projection continues from its checkpoint; the others wait a round (a swap in progress),
 * and the next round reads from there.
 */
async function checkpointsMoved(p: Projector, members: Member[]): Promise<void> {
  for (const m of members) {
    const current = await loadCheckpoint(p.sql, m.runner.projection.name);
    if (
      !current ||
      current.version !== m.runner.projection.version ||
      !samePosition(current.position, m.runner.persisted)
    )
      await reload(p, m.runner, current);
    else m.runner.retryAt = Date.now() + 50;
  }
}

/** Backs off and retries alone, with its own checkpoint, until a batch succeeds again. */
async function failed(p: Projector, runner: Runner, error: unknown): Promise<void> {
  const { projection } = runner;
  runner.kept.clear();
  runner.failures++;
  runner.retryAt = Date.now() + Math.min(100 * 2 ** runner.failures, 5000);
  p.log.error(error, `projection ${projection.name} failed; retrying alone`);
  await p.sql
    .query("UPDATE projection_checkpoints SET last_error = $2, updated_at = now() WHERE name = $1", [
      projection.name,
      String((error as Error)?.message ?? error),
    ])
    .catch(() => {});
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
async function applyHeld(p: Projector, tx: Sql, members: Member[], applying: Applying): Promise<Outcome> {
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
  if (p.onBatch) p.stamps.applied = performance.now();
  return { applied: members, stale: [] };
}

/** The replay statement by statement: checkpoints locked and checked before any write. */
async function applyInOneTransaction(
  p: Projector,
  tx: Sql,
  members: Member[],
  applying: Applying,
): Promise<Outcome> {
  const current = await lockCheckpoints(
    tx,
    members.map((m) => m.runner.projection.name),
  );
  const stale: Runner[] = [];
  const applied: Member[] = [];
  for (const m of members) {
    const { projection } = m.runner;
    const checkpoint = current.get(projection.name);
    if (!checkpoint) {
      // A rebuild is swapping this one in: let it finish rather than spin on the locked row.
      m.runner.retryAt = Date.now() + 50;
      continue;
    }
    if (checkpoint.version !== projection.version || !samePosition(checkpoint.position, m.runner.persisted)) {
      stale.push(m.runner);
      continue;
    }
    if (careful(m)) {
      // Rows kept between batches may not survive a savepoint's rollback: none are used or kept.
      m.runner.kept.clear();
      m.aside = newAside();
      applying.runner = m.runner;
      await applyCarefully(
        { tx, store: p.store, projection, handled: m.runner.handled, held: m.runner.held, aside: m.aside },
        m.slice,
      );
      applying.runner = null;
      applied.push(m);
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
  if (p.onBatch) p.stamps.applied = performance.now();
  return { applied, stale };
}
