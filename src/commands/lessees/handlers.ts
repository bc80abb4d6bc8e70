import { createHash, randomUUID } from "node:crypto";
import {
  type LesseeData,
  type LesseeEmailEvent,
  type LesseeEvent,
  lesseeEmailStream,
  lesseeStream,
  normalizeEmail,
} from "../../events/lessees.ts";
import { ApiError, conflict, type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import {
  comparePositions,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type LesseeState, lesseeDecider, lesseeRuleDetails } from "./decider.ts";
import { INVALID_DATA, type LesseeUpdateInput } from "./schemas.ts";

/**
 * The write side of lessees beyond one stream: email uniqueness through reservation streams
 * (DESIGN.md §1) and the bulk operations. Everything here works on the event store port
 * only, so it holds on every engine.
 *
 * Reservation protocol, per tenant and lower-cased email, stream `lessee_email-…`:
 * 1. append LesseeEmailReserved {lessee_id, lessee_revision} with the stream's expected revision;
 * 2. append the lessee event that carries the email, at `lessee_revision` (-1: new stream);
 * 3. on a change or delete, release the old email.
 * A reservation binds while its lessee holds the email, or while the lessee stream still sits
 * at `lessee_revision` (its step 2 may be in flight). Once the lessee stream has moved past it
 * without holding the email (crash between 2 and 3, failed step 2), the reservation is stale
 * and may be taken. A new lessee whose stream never appeared (crash between 1 and 2) is
 * waited for briefly, then fenced with LesseeRegistrationAbandoned so it can never register.
 */

export interface WriteContext {
  store: EventStore;
  tenantId: string;
  metadata: EventMetadata;
}

/** How long an unregistered reservation is presumed to be a create in flight. */
export const ORPHAN_GRACE_MS = 1000;

export const emailTaken = (field = "email") =>
  conflict("A lessee with this email already exists", [{ field, message: "Email already in use" }]);

export interface LoadedLessee {
  state: LesseeState;
  revision: bigint | null;
  events: RecordedEvent[];
  /** The stream belongs to another tenant: it reads as absent to this caller. */
  foreign: boolean;
}

export async function loadLessee(
  store: EventStore,
  tenantId: string,
  lesseeId: string,
): Promise<LoadedLessee> {
  const events = await store.readStream(lesseeStream(lesseeId));
  if (events.length > 0 && events[0].metadata.tenant_id !== tenantId) {
    return { state: lesseeDecider.initialState(), revision: null, events: [], foreign: true };
  }
  const state = events.reduce(
    (s, e) => lesseeDecider.evolve(s, { type: e.type, data: e.data } as LesseeEvent),
    lesseeDecider.initialState(),
  );
  return {
    state,
    revision: events.length ? events[events.length - 1].stream_revision : null,
    events,
    foreign: false,
  };
}

/** The current holder of an email reservation stream. */
interface Reservation {
  stream: string;
  revision: bigint | null;
  holder: string | null;
  lessee_revision: number;
  reserved_at: string | null;
}

async function readReservation(store: EventStore, stream: string): Promise<Reservation> {
  const events = await store.readStream(stream);
  const reservation: Reservation = {
    stream,
    revision: null,
    holder: null,
    lessee_revision: -1,
    reserved_at: null,
  };
  for (const e of events) {
    reservation.revision = e.stream_revision;
    const event = { type: e.type, data: e.data } as LesseeEmailEvent;
    if (event.type === "LesseeEmailReserved") {
      reservation.holder = event.data.lessee_id;
      reservation.lessee_revision = event.data.lessee_revision;
      reservation.reserved_at = e.metadata.occurred_at;
    } else if (event.type === "LesseeEmailReleased" && event.data.lessee_id === reservation.holder) {
      reservation.holder = null;
    }
  }
  return reservation;
}

type HolderStatus = "binding" | "stale" | "unregistered";

async function holderStatus(ctx: WriteContext, reservation: Reservation, key: string): Promise<HolderStatus> {
  const holder = await loadLessee(ctx.store, ctx.tenantId, reservation.holder!);
  if (holder.foreign) return "stale";
  if (holder.state.status === "active" && normalizeEmail(holder.state.lessee.email) === key) return "binding";
  if (holder.revision === null) return reservation.lessee_revision < 0 ? "unregistered" : "stale";
  return Number(holder.revision) > reservation.lessee_revision ? "stale" : "binding";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the reservation is free for `lesseeId` as read, without writing (bulk pre-check). */
async function availableIn(ctx: WriteContext, reservation: Reservation, key: string, lesseeId: string) {
  if (reservation.holder === null || reservation.holder === lesseeId) return true;
  return (await holderStatus(ctx, reservation, key)) !== "binding";
}

/**
 * Reserves `key` (a normalised email) for the lessee, whose stream is at `lesseeRevision`
 * (-1: not yet created). Throws 409 on `field` when another lessee holds it.
 */
export async function reserveEmail(
  ctx: WriteContext,
  key: string,
  lesseeId: string,
  lesseeRevision: number,
  field = "email",
  alreadyRead?: Reservation,
): Promise<void> {
  const stream = lesseeEmailStream(ctx.tenantId, key);
  for (let attempt = 0; attempt < 10; attempt++) {
    const reservation = attempt === 0 && alreadyRead ? alreadyRead : await readReservation(ctx.store, stream);
    if (reservation.holder === lesseeId && reservation.lessee_revision === lesseeRevision) return;
    if (reservation.holder !== null && reservation.holder !== lesseeId) {
      const status = await holderStatus(ctx, reservation, key);
      if (status === "binding") throw emailTaken(field);
      if (status === "unregistered") {
        // Most often a create in flight: give it the grace period to register.
        if (!(await waitForStream(ctx, reservation))) {
          const fenced = await fenceRegistration(ctx, reservation.holder, key);
          if (!fenced) continue;
        } else {
          continue;
        }
      }
    }
    try {
      await ctx.store.appendToStream(
        stream,
        [reservedEvent(ctx, stream, reservation.revision, key, lesseeId, lesseeRevision)],
        { expected_revision: reservation.revision ?? "no_stream" },
      );
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw conflict("The email is being reserved concurrently; retry", [
    { field, message: "Concurrent reservation" },
  ]);
}

/** The reservation appended over a stream at `revision` (null: new stream); its id makes retries idempotent. */
function reservedEvent(
  ctx: WriteContext,
  stream: string,
  revision: bigint | null,
  key: string,
  lesseeId: string,
  lesseeRevision: number,
): NewEvent {
  return {
    event_id: deterministicUuid("lessee-email-reserved", stream, String(revision ?? -1n), lesseeId),
    type: "LesseeEmailReserved",
    data: { lessee_id: lesseeId, email: key, lessee_revision: lesseeRevision },
    metadata: ctx.metadata,
  };
}

/** True when the holder's stream appeared within the grace period. */
async function waitForStream(ctx: WriteContext, reservation: Reservation): Promise<boolean> {
  const reservedAt = reservation.reserved_at ? Date.parse(reservation.reserved_at) : Number.NaN;
  const age = Number.isFinite(reservedAt) ? Date.now() - reservedAt : 0;
  const deadline = Date.now() + Math.min(ORPHAN_GRACE_MS, Math.max(0, ORPHAN_GRACE_MS - age));
  for (;;) {
    const events = await ctx.store.readStream(lesseeStream(reservation.holder!), { max_count: 1 });
    if (events.length > 0) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(25, left));
  }
}

/** Makes an orphaned registration impossible; false when it registered after all. */
async function fenceRegistration(ctx: WriteContext, lesseeId: string, key: string): Promise<boolean> {
  const events = lesseeDecider.decide(
    { type: "AbandonLesseeRegistration", lessee_id: lesseeId, email: key },
    {
      status: "absent",
    },
  );
  try {
    await ctx.store.appendToStream(
      lesseeStream(lesseeId),
      events.map((e) => ({ event_id: randomUUID(), type: e.type, data: e.data, metadata: ctx.metadata })),
      { expected_revision: "no_stream" },
    );
    return true;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return false;
    throw error;
  }
}

/** Best effort: a release lost in a crash leaves a stale reservation, which the protocol takes over. */
export async function releaseEmail(ctx: WriteContext, key: string, lesseeId: string): Promise<void> {
  const stream = lesseeEmailStream(ctx.tenantId, key);
  for (let attempt = 0; attempt < 5; attempt++) {
    const reservation = await readReservation(ctx.store, stream);
    if (reservation.holder !== lesseeId || reservation.revision === null) return;
    try {
      await ctx.store.appendToStream(
        stream,
        [
          {
            event_id: deterministicUuid(
              "lessee-email-released",
              stream,
              String(reservation.revision),
              lesseeId,
            ),
            type: "LesseeEmailReleased",
            data: { lessee_id: lesseeId, email: key },
            metadata: ctx.metadata,
          },
        ],
        { expected_revision: reservation.revision },
      );
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) return;
    }
  }
}

const toNewEvents = (
  ctx: WriteContext,
  events: LesseeEvent[],
  eventId: (index: number) => string = () => randomUUID(),
): NewEvent[] =>
  events.map((e, i) => ({ event_id: eventId(i), type: e.type, data: e.data, metadata: ctx.metadata }));

async function append(
  ctx: WriteContext,
  lesseeId: string,
  events: LesseeEvent[],
  expected: bigint | null,
  eventId?: (index: number) => string,
) {
  return ctx.store.appendToStream(lesseeStream(lesseeId), toNewEvents(ctx, events, eventId), {
    expected_revision: expected ?? "no_stream",
  });
}

export interface WriteResult {
  lessee_id: string;
  revision: bigint | null;
  position: Position | null;
}

/**
 * POST /api/lessees: validate, reserve the email, register. `lesseeId` is a new id.
 *
 * A new email is the common case, so the reservation is first tried as the start of its stream
 * without reading it; only when the stream exists does the full protocol read it (holder checks,
 * orphan takeover, fencing). Where the store appends to several streams in one commit, that
 * first try writes the reservation and the registration together: no orphan can arise, and one
 * commit (one WAL flush) instead of two.
 */
export async function registerLessee(
  ctx: WriteContext,
  data: LesseeData,
  lesseeId = randomUUID(),
): Promise<WriteResult> {
  const events = lesseeDecider.decide(
    { type: "RegisterLessee", lessee_id: lesseeId, data, now: ctx.metadata.occurred_at },
    lesseeDecider.initialState(),
  );
  const key = normalizeEmail(data.email);
  const stream = lesseeEmailStream(ctx.tenantId, key);
  const reserved = reservedEvent(ctx, stream, null, key, lesseeId, -1);
  let optimistic = false;
  if (ctx.store.appendToStreams) {
    try {
      const [, result] = await ctx.store.appendToStreams([
        { stream_name: stream, events: [reserved], expected_revision: "no_stream" },
        {
          stream_name: lesseeStream(lesseeId),
          events: toNewEvents(ctx, events),
          expected_revision: "no_stream",
        },
      ]);
      return { lessee_id: lesseeId, revision: result.next_revision, position: result.position };
    } catch (error) {
      // Nothing was written: the email has a reservation stream already, so run the full protocol.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  } else {
    try {
      await ctx.store.appendToStream(stream, [reserved], { expected_revision: "no_stream" });
      optimistic = true;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  if (!optimistic) await reserveEmail(ctx, key, lesseeId, -1);
  try {
    const result = await append(ctx, lesseeId, events, null);
    return { lessee_id: lesseeId, revision: result.next_revision, position: result.position };
  } catch (error) {
    // Fenced: our reservation was taken over as an orphan, so the email went to another lessee.
    if (error instanceof WrongExpectedRevisionError) throw emailTaken();
    await releaseEmail(ctx, key, lesseeId).catch(() => {});
    throw error;
  }
}

/** PUT /api/lessees/{id}: merge, reserve a new email first, append, release the old one. */
export async function updateLessee(
  ctx: WriteContext,
  lesseeId: string,
  changes: LesseeUpdateInput,
  ifMatch: bigint | undefined,
): Promise<WriteResult> {
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadLessee(ctx.store, ctx.tenantId, lesseeId);
    if (loaded.foreign || loaded.state.status !== "active") throw notFound("Lessee", lesseeId);
    if (ifMatch !== undefined && loaded.revision !== ifMatch) throw preconditionFailedError();
    const previousKey = normalizeEmail(loaded.state.lessee.email);
    const events = lesseeDecider.decide(
      { type: "UpdateLessee", lessee_id: lesseeId, changes, now: ctx.metadata.occurred_at },
      loaded.state,
    );
    if (events.length === 0) return { lessee_id: lesseeId, revision: loaded.revision, position: null };
    const emailChange = events.find((e) => e.type === "LesseeEmailChanged");
    const newKey = emailChange ? normalizeEmail(emailChange.data.email) : previousKey;
    const reserving = newKey !== previousKey;
    if (reserving) await reserveEmail(ctx, newKey, lesseeId, Number(loaded.revision));
    try {
      const result = await append(ctx, lesseeId, events, loaded.revision);
      if (reserving) await releaseEmail(ctx, previousKey, lesseeId);
      return { lessee_id: lesseeId, revision: result.next_revision, position: result.position };
    } catch (error) {
      if (reserving) await releaseEmail(ctx, newKey, lesseeId).catch(() => {});
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (ifMatch !== undefined) throw preconditionFailedError();
      if (attempt >= 4) throw conflict("The lessee was changed concurrently; retry");
    }
  }
}

const preconditionFailedError = () =>
  new ApiError("PreconditionFailed", "If-Match does not match the current ETag");

/** DELETE /api/lessees/{id}: refused while the lessee is on an active lease. */
export async function deleteLessee(
  ctx: WriteContext,
  lesseeId: string,
  activeLeaseCount: () => Promise<number>,
  ifMatch: bigint | undefined,
): Promise<WriteResult> {
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadLessee(ctx.store, ctx.tenantId, lesseeId);
    if (loaded.foreign || loaded.state.status !== "active") throw notFound("Lessee", lesseeId);
    if (ifMatch !== undefined && loaded.revision !== ifMatch) throw preconditionFailedError();
    const email = loaded.state.lessee.email;
    const events = lesseeDecider.decide(
      { type: "DeleteLessee", lessee_id: lesseeId, active_lease_count: await activeLeaseCount() },
      loaded.state,
    );
    try {
      const result = await append(ctx, lesseeId, events, loaded.revision);
      await releaseEmail(ctx, normalizeEmail(email), lesseeId);
      return { lessee_id: lesseeId, revision: result.next_revision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (ifMatch !== undefined) throw preconditionFailedError();
      if (attempt >= 4) throw conflict("The lessee was changed concurrently; retry");
    }
  }
}

/**
 * Runs fn over items with at most `limit` in flight, results in order. After a failure no new
 * item starts, and the first error is thrown only once the started ones have settled, so a
 * caller's compensation sees every write that happened.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
) {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}

const PARALLEL = 8;

const latest = (positions: (Position | null)[]) =>
  positions.reduce<Position | null>((a, b) => (b && (!a || comparePositions(b, a) > 0) ? b : a), null);

/**
 * POST /api/lessees/bulk, all or nothing: every item is validated and every email checked
 * before anything is written. Lessee and event ids derive from the request, so a retry after
 * a failure part-way registers the rest instead of duplicating the first ones.
 */
export async function registerLessees(ctx: WriteContext, items: LesseeData[]): Promise<WriteResult[]> {
  const details: ErrorDetail[] = items.flatMap((item, i) =>
    lesseeRuleDetails(item, ctx.metadata.occurred_at, `[${i}]`),
  );
  const firstOf = new Map<string, number>();
  items.forEach((item, i) => {
    const key = normalizeEmail(item.email);
    const first = firstOf.get(key);
    if (first === undefined) firstOf.set(key, i);
    else
      details.push({ field: `[${i}].email`, message: `Duplicate email in the batch (same as [${first}])` });
  });
  if (details.length > 0) {
    details.sort((a, b) => indexOf(a.field) - indexOf(b.field));
    throw validationError(INVALID_DATA, details);
  }

  const { ids, loaded } = await bulkIds(ctx, items);
  const keys = items.map((item) => normalizeEmail(item.email));
  const reservations = await mapLimit(keys, PARALLEL, (key) =>
    readReservation(ctx.store, lesseeEmailStream(ctx.tenantId, key)),
  );
  const available = await mapLimit(keys, PARALLEL, (key, i) =>
    availableIn(ctx, reservations[i], key, ids[i]),
  );
  const taken = available.flatMap((ok, i) =>
    ok ? [] : [{ field: `[${i}].email`, message: "Email already in use" }],
  );
  if (taken.length > 0) throw conflict("A lessee with this email already exists", taken);

  const reserved: number[] = [];
  try {
    await mapLimit(keys, PARALLEL, async (key, i) => {
      await reserveEmail(ctx, key, ids[i], -1, `[${i}].email`, reservations[i]);
      reserved.push(i);
    });
  } catch (error) {
    // All or nothing: give back what this request reserved before answering.
    await mapLimit(reserved, PARALLEL, (i) => releaseEmail(ctx, keys[i], ids[i]).catch(() => {}));
    throw error;
  }

  return mapLimit(items, PARALLEL, async (data, i) => {
    const lesseeId = ids[i];
    const current = loaded[i];
    // Registered by an earlier attempt of this same request.
    if (current.state.status === "active")
      return { lessee_id: lesseeId, revision: current.revision, position: null };
    const events = lesseeDecider.decide(
      { type: "RegisterLessee", lessee_id: lesseeId, data, now: ctx.metadata.occurred_at },
      current.state,
    );
    try {
      const result = await append(ctx, lesseeId, events, null, (n) =>
        deterministicUuid("lessee-registered", lesseeId, String(n)),
      );
      return { lessee_id: lesseeId, revision: result.next_revision, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        // A concurrent retry of this very request registered it first: that is success too.
        const now = await loadLessee(ctx.store, ctx.tenantId, lesseeId);
        if (
          now.state.status === "active" &&
          now.events[0]?.event_id === deterministicUuid("lessee-registered", lesseeId, "0")
        ) {
          return { lessee_id: lesseeId, revision: now.revision, position: now.events[0].position };
        }
        throw emailTaken(`[${i}].email`);
      }
      throw error;
    }
  });
}

const indexOf = (field: string) => Number(/^\[(\d+)\]/.exec(field)?.[1] ?? 0);

/**
 * Ids of a bulk request: derived from the tenant and the normalised items. A generation whose
 * lessees were since deleted (the same batch posted again later) moves on to fresh ids.
 */
async function bulkIds(
  ctx: WriteContext,
  items: LesseeData[],
): Promise<{ ids: string[]; loaded: LoadedLessee[] }> {
  const requestHash = createHash("sha256").update(JSON.stringify(items)).digest("hex");
  for (let generation = 0; ; generation++) {
    const ids = items.map((_, i) =>
      deterministicUuid("lessee-bulk", ctx.tenantId, requestHash, String(generation), String(i)),
    );
    const loaded = await mapLimit(ids, PARALLEL, (id) => loadLessee(ctx.store, ctx.tenantId, id));
    if (loaded.every((s) => !s.foreign && (s.state.status === "absent" || s.state.status === "active"))) {
      return { ids, loaded };
    }
  }
}

/**
 * DELETE /api/lessees/bulk: every id must be a live lessee of the tenant (else 404) without
 * active leases (else 409) before any is deleted.
 */
export async function deleteLessees(
  ctx: WriteContext,
  requested: string[],
  activeLeaseCounts: (ids: string[]) => Promise<Map<string, number>>,
): Promise<Position | null> {
  // Details name the position in the request body; a repeated id is deleted once.
  const lesseeIds = [...new Set(requested)];
  const loadedById = new Map(
    (await mapLimit(lesseeIds, PARALLEL, (id) => loadLessee(ctx.store, ctx.tenantId, id))).map((l, i) => [
      lesseeIds[i],
      l,
    ]),
  );
  const loaded = lesseeIds.map((id) => loadedById.get(id)!);
  const unknown = requested.flatMap((id, i) => {
    const l = loadedById.get(id)!;
    return l.foreign || l.state.status !== "active"
      ? [{ field: `[${i}]`, message: `Lessee ${id} not found` }]
      : [];
  });
  if (unknown.length > 0) {
    throw new ApiError("NotFound", unknown[0].message, unknown);
  }
  const counts = await activeLeaseCounts(lesseeIds);
  const blocked = requested.flatMap((id, i) =>
    (counts.get(id) ?? 0) > 0 ? [{ field: `[${i}]`, message: `Lessee ${id} has active leases` }] : [],
  );
  if (blocked.length > 0) throw conflict("Cannot delete lessee with active leases", blocked);

  const positions = await mapLimit(lesseeIds, PARALLEL, async (id, i) => {
    let current = loaded[i];
    for (let attempt = 0; ; attempt++) {
      if (current.state.status !== "active") return null;
      const email = current.state.lessee.email;
      const events = lesseeDecider.decide(
        { type: "DeleteLessee", lessee_id: id, active_lease_count: counts.get(id) ?? 0 },
        current.state,
      );
      try {
        const result = await append(ctx, id, events, current.revision);
        await releaseEmail(ctx, normalizeEmail(email), id);
        return result.position;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= 4) throw error;
        current = await loadLessee(ctx.store, ctx.tenantId, id);
      }
    }
  });
  return latest(positions);
}

export const latestPosition = latest;
