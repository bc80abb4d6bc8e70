import { setTimeout as delay } from "node:timers/promises";
import type { DomainEvent } from "./decider.ts";
import { conflict } from "./errors.ts";
import {
  type AppendResult,
  certainlyUnwritten,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "./eventstore/eventStore.ts";
import { deterministicUuid } from "./ids.ts";
import { mapLimit } from "./mapLimit.ts";
import type { CommandContext } from "./runCommand.ts";

/**
 * Unique values across aggregates (docs/architecture.md, "Invariants across streams"): a
 * reservation stream per (tenant, key) says which holder owns the key, appended with an expected
 * revision, so it holds on every engine. Lessee emails use it; "one occupying lease per estate"
 * is the same shape (key: the estate id, holder: the lease).
 *
 * A reservation binds while its holder holds the key, or while the holder stream still sits at
 * the revision it was reserved at (the holder's append may be in flight). Once the holder stream
 * moved past it without holding the key, the reservation is stale and may be taken. A new
 * holder whose stream never appeared (crash between the two appends) is waited for `grace_ms`,
 * then fenced with the `abandoned` event at "no stream" so it can never be written.
 *
 * Where the engine has `appendToStreams` (PostgreSQL, embedded) reservations, fences, releases
 * and the holders' own events commit in one statement: nothing half-written can remain. Elsewhere
 * (EventStoreDB) reservations go first, then the holders; a refusal releases what was reserved.
 */
export interface Uniqueness {
  /** The reservation stream of a key in a tenant (`store`: its `pseudonym`, for keys that are personal data). */
  stream(tenantId: string, key: string, store: EventStore): string;
  holderStream(holderId: string): string;
  /** Whether the holder, as its stream reads now, holds the key. */
  holds(holderEvents: RecordedEvent[], key: string): boolean;
  reserved(holderId: string, key: string, holderRevision: number): DomainEvent;
  released(holderId: string, key: string): DomainEvent;
  /** Reads a reservation stream's event: whom it reserves the key for, or releases it from. */
  read(event: DomainEvent): { reserved: string; holder_revision: number } | { released: string } | null;
  /** The event that fences a holder stream that never appeared. */
  abandoned(holderId: string, key: string): DomainEvent;
  /** The refusal when other holders bind keys; `fields` name them (e.g. `email`, `[3].email`). */
  taken(fields: string[]): Error;
  /** How long a reservation without its holder stream counts as a write in flight. */
  grace_ms: number;
}

/** What one holder's write takes and gives up. */
export interface Reserving {
  uniqueness: Uniqueness;
  holder_id: string;
  reserve: { key: string; field: string }[];
  release: string[];
}

/** A holder's own append plus its keys. */
export interface HolderWrite extends StreamWrite {
  holder_id: string;
  reserve: { key: string; field: string }[];
  release: string[];
}

/** The holder of a reservation stream as read. */
export interface Reservation {
  stream: string;
  revision: bigint | null;
  holder: string | null;
  holder_revision: number;
  reserved_at: string | null;
}

export async function readReservation(
  context: CommandContext,
  u: Uniqueness,
  key: string,
): Promise<Reservation> {
  const stream = u.stream(context.tenant_id, key, context.store);
  const reservation: Reservation = {
    stream,
    revision: null,
    holder: null,
    holder_revision: -1,
    reserved_at: null,
  };
  for (const e of await context.store.readStream(stream)) {
    reservation.revision = e.stream_revision;
    const read = u.read(e);
    if (read && "reserved" in read) {
      reservation.holder = read.reserved;
      reservation.holder_revision = read.holder_revision;
      // The store's time of the write, for reports; fencing never compares it (waitForHolder).
      reservation.reserved_at = e.created_at;
    } else if (read && read.released === reservation.holder) {
      reservation.holder = null;
    }
  }
  return reservation;
}

type HolderStatus = "binding" | "stale" | "unregistered";

async function holderStatus(context: CommandContext, u: Uniqueness, r: Reservation, key: string) {
  const events = await context.store.readStream(u.holderStream(r.holder!));
  if (events.length > 0 && events[0].metadata.tenant_id !== context.tenant_id) return "stale";
  if (u.holds(events, key)) return "binding";
  if (events.length === 0) return r.holder_revision < 0 ? "unregistered" : "stale";
  return Number(events[events.length - 1].stream_revision) > r.holder_revision ? "stale" : "binding";
}

/** Whether the key is free for `holderId` as read now, without writing anything. */
export async function isAvailable(
  context: CommandContext,
  u: Uniqueness,
  key: string,
  holderId: string,
): Promise<boolean> {
  const r = await readReservation(context, u, key);
  if (r.holder === null || r.holder === holderId) return true;
  return (await holderStatus(context, u, r, key)) !== "binding";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * True when the holder's stream appeared within the grace period. The period runs from this
 * reader's first sight of the reservation, on its own clock: never from a time the reserving
 * process stamped (its request may have started long before, a bulk of 1000 still reserving),
 * nor compared across machines' clocks. A holder whose write follows its reservation within
 * `grace_ms` cannot be fenced.
 */
async function waitForHolder(context: CommandContext, u: Uniqueness, r: Reservation): Promise<boolean> {
  const deadline = performance.now() + u.grace_ms;
  for (;;) {
    if ((await context.store.readStream(u.holderStream(r.holder!), { max_count: 1 })).length > 0) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(25, left));
  }
}

const revisionOf = (expected: ExpectedRevision) => (typeof expected === "bigint" ? Number(expected) : -1);

interface Claim {
  write: HolderWrite;
  key: string;
  field: string;
}

/** The appends that give `claim` its key: none (already held), or the reservation and maybe a fence. */
type Plan = { taken: true } | { taken: false; writes: StreamWrite[] };

async function planClaim(
  context: CommandContext,
  u: Uniqueness,
  claim: Claim,
  read: Reservation | null,
): Promise<Plan> {
  const holderId = claim.write.holder_id;
  const holderRevision = revisionOf(claim.write.expected_revision);
  let r = read ?? (await readReservation(context, u, claim.key));
  if (r.holder === holderId && r.holder_revision === holderRevision) return { taken: false, writes: [] };
  const writes: StreamWrite[] = [];
  if (r.holder !== null && r.holder !== holderId) {
    let status: HolderStatus = await holderStatus(context, u, r, claim.key);
    if (status === "unregistered" && (await waitForHolder(context, u, r))) {
      r = await readReservation(context, u, claim.key);
      status = r.holder === null ? "stale" : await holderStatus(context, u, r, claim.key);
    }
    if (status === "binding") return { taken: true };
    if (status === "unregistered") {
      const fence = u.abandoned(r.holder!, claim.key);
      writes.push({
        stream_name: u.holderStream(r.holder!),
        // One id per fenced stream: an unconfirmed fence settles by reading it back (settleWrites.ts).
        events: [
          {
            event_id: deterministicUuid("abandoned", u.holderStream(r.holder!), claim.key),
            type: fence.type,
            data: fence.data,
            metadata: context.metadata,
          },
        ],
        expected_revision: "no_stream",
      });
    }
  }
  const event = u.reserved(holderId, claim.key, holderRevision);
  writes.push({
    stream_name: r.stream,
    events: [
      {
        // The holder's revision too: a claim again at the same place for a holder that moved
        // meanwhile is a new reservation, not a replay of the old one (docs/eventstoredb.md).
        event_id: deterministicUuid(
          "reserved",
          r.stream,
          String(r.revision ?? -1n),
          holderId,
          String(holderRevision),
        ),
        type: event.type,
        data: event.data,
        metadata: context.metadata,
      },
    ],
    expected_revision: r.revision ?? "no_stream",
  });
  return { taken: false, writes };
}

/** The append that gives `key` back, or null when `holderId` does not hold it. */
async function planRelease(
  context: CommandContext,
  u: Uniqueness,
  key: string,
  holderId: string,
): Promise<StreamWrite | null> {
  const r = await readReservation(context, u, key);
  if (r.holder !== holderId || r.revision === null) return null;
  const event = u.released(holderId, key);
  const released: NewEvent = {
    event_id: deterministicUuid("released", r.stream, String(r.revision), holderId),
    type: event.type,
    data: event.data,
    metadata: context.metadata,
  };
  return { stream_name: r.stream, events: [released], expected_revision: r.revision };
}

const PARALLEL = 8;
const ATTEMPTS = 10;

const concurrent = (fields: string[]) =>
  conflict(
    "A unique value is being reserved concurrently; retry",
    fields.map((field) => ({ field, message: "Concurrent reservation" })),
  );

/**
 * Appends each holder's events together with the reservations of the keys it takes and the
 * releases of the keys it gives up. Throws `u.taken(fields)` when other holders bind keys (nothing
 * written), and WrongExpectedRevisionError naming a holder stream when a holder moved (the
 * caller's retry). Results are the holders' appends, in order.
 */
export async function commitReserving(
  context: CommandContext,
  u: Uniqueness,
  writes: HolderWrite[],
): Promise<AppendResult[]> {
  const claims: Claim[] = writes.flatMap((write) =>
    write.reserve.map(({ key, field }) => ({ write, key, field })),
  );
  return context.store.appendToStreams
    ? commitAtOnce(context, u, writes, claims)
    : commitInChunks(context, u, writes, claims);
}

const holderStreams = (writes: HolderWrite[]) => new Set(writes.map((w) => w.stream_name));

const holderAppend = ({ stream_name, events, expected_revision }: HolderWrite): StreamWrite => ({
  stream_name,
  events,
  expected_revision,
});

/** One commit for everything; a lost race on a reservation stream plans again from fresh reads. */
async function commitAtOnce(context: CommandContext, u: Uniqueness, writes: HolderWrite[], claims: Claim[]) {
  const holders = holderStreams(writes);
  // A new key is the common case: the first try assumes fresh reservation streams, unread.
  const fresh = (claim: Claim): Reservation => ({
    stream: u.stream(context.tenant_id, claim.key, context.store),
    revision: null,
    holder: null,
    holder_revision: -1,
    reserved_at: null,
  });
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const plans = await mapLimit(claims, PARALLEL, (claim) =>
      planClaim(context, u, claim, attempt === 1 ? fresh(claim) : null),
    );
    const taken = claims.filter((_, i) => plans[i].taken).map((c) => c.field);
    if (taken.length > 0) throw u.taken(taken);
    const releases = await mapLimit(
      writes.flatMap((w) => w.release.map((key) => ({ key, holder: w.holder_id }))),
      PARALLEL,
      ({ key, holder }) => planRelease(context, u, key, holder),
    );
    const others = [
      ...plans.flatMap((p) => (p.taken ? [] : p.writes)),
      ...releases.filter((w): w is StreamWrite => w !== null),
    ];
    try {
      // Every statement carries its whole batch as one JSON parameter: a bulk of 1000 fits.
      const results = await context.store.appendToStreams!([...others, ...writes.map(holderAppend)]);
      return results.slice(others.length);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || holders.has(error.stream_name)) throw error;
    }
  }
  throw concurrent(claims.map((c) => c.field));
}

/** Holders per chunk of a batch appended in turn: its holders follow their reservations closely. */
const CHUNK = 4 * PARALLEL;

/**
 * A batch in chunks of CHUNK holders, each reserved then written before the next: a holder is
 * written a few round trips after its reservation whatever the batch's size, well within
 * `grace_ms`, so another writer can never fence it as abandoned mid-batch (a bulk of 1000 would
 * otherwise hold reservations without holders for its whole first phase). Every key is checked
 * before the first chunk: a taken one refuses the batch with nothing written. A key lost to a race
 * after that check leaves the earlier chunks written: the holders' ids derive from the request,
 * so its retry completes the batch (docs/eventstoredb.md, "Multi-stream appends").
 */
async function commitInChunks(
  context: CommandContext,
  u: Uniqueness,
  writes: HolderWrite[],
  claims: Claim[],
) {
  const plans = await mapLimit(claims, PARALLEL, (claim) => planClaim(context, u, claim, null));
  const taken = claims.filter((_, i) => plans[i].taken).map((c) => c.field);
  if (taken.length > 0) throw u.taken(taken);
  if (writes.length <= CHUNK) return commitInTurn(context, u, writes, claims, plans);
  const results: AppendResult[] = [];
  for (let from = 0; from < writes.length; from += CHUNK) {
    const chunk = new Set(writes.slice(from, from + CHUNK));
    const mine = claims.filter((c) => chunk.has(c.write));
    // Planned again: a chunk's keys may have moved while the earlier chunks were written.
    const fresh = await mapLimit(mine, PARALLEL, (claim) => planClaim(context, u, claim, null));
    results.push(...(await commitInTurn(context, u, [...chunk], mine, fresh)));
  }
  return results;
}

/** Reservations first (each retried on its own), then the holders, then releases (best effort). */
async function commitInTurn(
  context: CommandContext,
  u: Uniqueness,
  writes: HolderWrite[],
  claims: Claim[],
  plans: Plan[],
) {
  const { store } = context;
  const taken = claims.filter((_, i) => plans[i].taken).map((c) => c.field);
  if (taken.length > 0) throw u.taken(taken);
  const reserved: Claim[] = [];
  const giveBack = (list: Claim[]) =>
    mapLimit(list, PARALLEL, (c) => releaseKey(context, u, c.key, c.write.holder_id).catch(() => {}));
  try {
    await mapLimit(claims, PARALLEL, async (claim, i) => {
      let plan = plans[i];
      for (let attempt = 1; ; attempt++) {
        if (plan.taken) throw u.taken([claim.field]);
        try {
          for (const w of plan.writes) await store.appendToStream(w.stream_name, w.events, w);
          if (plan.writes.length > 0) reserved.push(claim);
          return;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
          if (attempt >= ATTEMPTS) throw concurrent([claim.field]);
        }
        plan = await planClaim(context, u, claim, null);
      }
    });
  } catch (error) {
    await giveBack(reserved);
    throw error;
  }
  const appended = new Set<HolderWrite>();
  const failed = new Map<HolderWrite, unknown>();
  let results: AppendResult[];
  try {
    results = await mapLimit(writes, PARALLEL, async (w) => {
      try {
        const result = await store.appendToStream(w.stream_name, w.events, w);
        appended.add(w);
        return result;
      } catch (error) {
        failed.set(w, error);
        throw error;
      }
    });
  } catch (error) {
    // All or nothing as far as this engine allows: keys go back for holders certainly not
    // written (never tried, or refused). A holder whose append's outcome is unknown keeps them
    // (it may have committed, or still commit) until settled in the background: an existing
    // holder at its revision would otherwise bind them for good, never fenced.
    await giveBack(
      reserved.filter(
        (c) => !appended.has(c.write) && (!failed.has(c.write) || certainlyUnwritten(failed.get(c.write))),
      ),
    );
    for (const [w, failure] of failed)
      if (!certainlyUnwritten(failure))
        void settleHolder(
          context,
          u,
          w,
          reserved.filter((c) => c.write === w).map((c) => c.key),
        );
    throw error;
  }
  await mapLimit(
    writes.flatMap((w) => w.release.map((key) => ({ key, holder: w.holder_id }))),
    PARALLEL,
    ({ key, holder }) => releaseKey(context, u, key, holder).catch(() => {}),
  );
  return results;
}

/** Pauses between the tries of settleHolder, while the store stays unreachable (about 2 min in all). */
const SETTLE_PAUSES_MS = [0, 1000, 2000, 4000, 8000, 15_000, 30_000, 60_000];

/**
 * Settles a holder append whose outcome stayed unknown, once the store answers again, as
 * settleWrites would have: its first event there, it committed and holds its keys; nothing
 * there, the same append (same ids) goes again, which writes or replays it; another event there,
 * it can never commit, and the keys it reserved go back (unless the holder took them since).
 * Never throws; runs unawaited, on unref'd timers; answers what it found (for tests).
 */
export async function settleHolder(
  context: CommandContext,
  u: Uniqueness,
  w: HolderWrite,
  keys: string[],
): Promise<"written" | "released" | "unknown"> {
  const revision = revisionOf(w.expected_revision);
  for (const pause of SETTLE_PAUSES_MS) {
    await delay(pause, undefined, { ref: false });
    try {
      const [there] = await context.store.readStream(w.stream_name, {
        from_revision: BigInt(revision + 1),
        max_count: 1,
      });
      if (there?.event_id === w.events[0].event_id) return "written";
      if (!there) {
        await context.store.appendToStream(w.stream_name, w.events, w);
        return "written";
      }
      const holder = await context.store.readStream(w.stream_name);
      for (const key of keys) {
        const r = await readReservation(context, u, key);
        if (r.holder === w.holder_id && r.holder_revision === revision && !u.holds(holder, key))
          await releaseKey(context, u, key, w.holder_id);
      }
      return "released";
    } catch {
      // Unreachable still, or a refusal of the resend (another write took the place): read again.
    }
  }
  // Still unknown after every try: the reservation binds until the holder's stream moves on.
  return "unknown";
}

/** Gives a key back; a release lost in a crash leaves a stale reservation, which others take over. */
export async function releaseKey(
  context: CommandContext,
  u: Uniqueness,
  key: string,
  holderId: string,
): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const write = await planRelease(context, u, key, holderId);
    if (!write) return;
    try {
      await context.store.appendToStream(write.stream_name, write.events, write);
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}
