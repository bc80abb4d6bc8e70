import { createHash } from "node:crypto";
import {
  type LesseeData,
  type LesseeEmailEvent,
  type LesseeEvent,
  lesseeEmailStream,
  lesseeStream,
  normalizeEmail,
} from "../../events/lessees.ts";
import { fold } from "../../platform/decider.ts";
import { ApiError, conflict, type ErrorDetail, validationError } from "../../platform/errors.ts";
import {
  latestPosition,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { commitReserving, type Reserving, type Uniqueness } from "../../platform/reserveUnique.ts";
import { type CommandContext, loadStreams, toNewEvents } from "../../platform/runCommand.ts";
import { emailTaken, type LesseeState, lesseeDecider, lesseeRuleDetails } from "./decider.ts";
import { INVALID_DATA } from "./schemas.ts";

/**
 * Lessee writes beyond one stream: unique emails per tenant through the platform's reservation
 * mechanism (docs/architecture.md, "Invariants across streams") and the bulk operations.
 */

/** Email reservations: stream `lessee_email-<tenant>-k<keyed hash of the email>`, holder a lessee. */
export const lesseeEmails: Uniqueness = {
  stream: (tenantId, email, store) => lesseeEmailStream(tenantId, email, store.pseudonym),
  holderStream: lesseeStream,
  holds(events, key) {
    const state = fold(lesseeDecider, events as RecordedEvent<LesseeEvent>[]);
    return state.status === "active" && !state.erased_at && normalizeEmail(state.lessee.email) === key;
  },
  // The stream's name is the email's keyed hash: the events need not repeat the email.
  reserved: (lessee_id, _email, lessee_revision) => ({
    type: "LesseeEmailReserved",
    data: { lessee_id, lessee_revision },
  }),
  released: (lessee_id) => ({ type: "LesseeEmailReleased", data: { lessee_id } }),
  read(event) {
    const e = event as LesseeEmailEvent;
    if (e.type === "LesseeEmailReserved")
      return { reserved: e.data.lessee_id, holder_revision: e.data.lessee_revision };
    if (e.type === "LesseeEmailReleased") return { released: e.data.lessee_id };
    return null;
  },
  abandoned: (lessee_id, email) =>
    lesseeDecider.decide({ type: "AbandonLesseeRegistration", lessee_id, email }, { status: "absent" })[0],
  taken: emailTaken,
  grace_ms: 1000,
};

/** The emails a lessee's new events take and give up (for `handleCommand`'s `reserving`). */
export const lesseeEmailsOf =
  (lesseeId: string, field = "email") =>
  (before: LesseeState, events: LesseeEvent[]): Reserving | null => {
    const reserve: Reserving["reserve"] = [];
    const release: string[] = [];
    for (const e of events) {
      if (e.type === "LesseeRegistered") reserve.push({ key: normalizeEmail(e.data.email), field });
      if (e.type === "LesseeEmailChanged") {
        const [next, previous] = [normalizeEmail(e.data.email), normalizeEmail(e.data.previous_email)];
        if (next !== previous) {
          reserve.push({ key: next, field });
          release.push(previous);
        }
      }
      // Deleted or erased: the email is free again (an erased lessee's is gone with its key).
      if (
        (e.type === "LesseeDeleted" || e.type === "PersonalDataErased") &&
        before.status === "active" &&
        !before.erased_at
      )
        release.push(normalizeEmail(before.lessee.email));
    }
    if (reserve.length === 0 && release.length === 0) return null;
    return { uniqueness: lesseeEmails, holder_id: lesseeId, reserve, release };
  };

export interface WriteResult {
  lessee_id: string;
  revision: bigint | null;
  position: Position | null;
}

const PARALLEL = 8;
const ATTEMPTS = 3;
const indexOf = (field: string) => Number(/^\[(\d+)\]/.exec(field)?.[1] ?? 0);

/**
 * POST /api/lessees/bulk, all or nothing: every item is validated and every email checked
 * before anything is written, then every reservation and registration commits at once (one
 * statement where the engine has multi-stream appends). Lessee and event ids derive from the
 * request, so a retry after a failure part-way completes the batch instead of duplicating it.
 */
export async function registerLessees(ctx: CommandContext, items: LesseeData[]): Promise<WriteResult[]> {
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
  for (let attempt = 1; ; attempt++) {
    const { ids, loaded } = await bulkIds(ctx, items);
    const pending = items.flatMap((data, i) => (loaded[i].state.status === "absent" ? [{ data, i }] : []));
    const writes = pending.map(({ data, i }) => {
      const lesseeId = ids[i];
      const events = lesseeDecider.decide(
        { type: "RegisterLessee", lessee_id: lesseeId, data, now: ctx.metadata.occurred_at },
        loaded[i].state,
      );
      return {
        stream_name: lesseeStream(lesseeId),
        events: toNewEvents(ctx.metadata, events, (n) =>
          deterministicUuid("lessee-registered", lesseeId, String(n)),
        ),
        expected_revision: "no_stream" as const,
        holder_id: lesseeId,
        reserve: [{ key: normalizeEmail(data.email), field: `[${i}].email` }],
        release: [],
      };
    });
    try {
      const appended = await commitReserving(ctx, lesseeEmails, writes);
      const results: WriteResult[] = ids.map((id, i) => ({
        lessee_id: id,
        revision: loaded[i].revision,
        position: null,
      }));
      pending.forEach(({ i }, n) => {
        results[i] = {
          lessee_id: ids[i],
          revision: appended[n].next_revision,
          position: appended[n].position,
        };
      });
      return results;
    } catch (error) {
      // A concurrent retry of this very request registered some first: the next round skips them.
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= ATTEMPTS) throw error;
    }
  }
}

/**
 * Ids of a bulk request: derived from the tenant and the normalised items. An item whose lessee
 * was since deleted (the same batch posted again later), or fenced off (its registration lost
 * its email's reservation: reserveUnique.ts), moves on to a fresh id alone: the items already
 * registered keep theirs, so a retry completes the batch rather than starting it over.
 */
async function bulkIds(ctx: CommandContext, items: LesseeData[]) {
  const requestHash = createHash("sha256").update(JSON.stringify(items)).digest("hex");
  const generations = items.map(() => 0);
  for (;;) {
    const ids = items.map((_, i) =>
      deterministicUuid("lessee-bulk", ctx.tenant_id, requestHash, String(generations[i]), String(i)),
    );
    const loaded = await loadStreams(
      ctx.store,
      ids.map(lesseeStream),
      ctx.tenant_id,
      lesseeDecider,
      PARALLEL,
    );
    const spent = loaded.flatMap((s, i) =>
      s.foreign || (s.state.status !== "absent" && s.state.status !== "active") ? [i] : [],
    );
    if (spent.length === 0) return { ids, loaded };
    for (const i of spent) generations[i]++;
  }
}

/**
 * DELETE /api/lessees/bulk: every id must be a live lessee of the tenant (else 404) without
 * active leases (else 409) before any is deleted; the deletions and email releases then commit
 * together where the engine has multi-stream appends (PostgreSQL). On EventStoreDB each lessee is
 * its own append: a concurrent edit of one leaves the others deleted, so the deletions' event ids
 * derive from the request (its set of ids) and a lessee this very request deleted counts as
 * deleted, not unknown: the request's own retry, or the client's, completes the batch
 * (docs/eventstoredb.md, "Multi-stream appends"). `activeLeaseCounts` is the route's fact lookup.
 */
export async function deleteLessees(
  ctx: CommandContext,
  requested: string[],
  activeLeaseCounts: (ids: string[]) => Promise<Map<string, number>>,
): Promise<Position | null> {
  const lesseeIds = [...new Set(requested)];
  const requestHash = createHash("sha256")
    .update(JSON.stringify([...lesseeIds].sort()))
    .digest("hex");
  const deletionIds = (id: string) => (n: number) =>
    deterministicUuid("lessee-bulk-deleted", ctx.tenant_id, requestHash, id, String(n));
  for (let attempt = 1; ; attempt++) {
    const loaded = await loadStreams(
      ctx.store,
      lesseeIds.map(lesseeStream),
      ctx.tenant_id,
      lesseeDecider,
      PARALLEL,
    );
    const byId = new Map(lesseeIds.map((id, i) => [id, loaded[i]]));
    const deletedHere = (id: string) => byId.get(id)!.events.find((e) => e.event_id === deletionIds(id)(0));
    // Details name the position in the request body; a repeated id is deleted once.
    const unknown = requested.flatMap((id, i) => {
      const l = byId.get(id)!;
      return (l.foreign || l.state.status !== "active") && !deletedHere(id)
        ? [{ field: `[${i}]`, message: `Lessee ${id} not found` }]
        : [];
    });
    if (unknown.length > 0) throw new ApiError("NotFound", unknown[0].message, unknown);
    const pending = lesseeIds.filter((id) => byId.get(id)!.state.status === "active");
    const done = latestPosition(lesseeIds.map((id) => deletedHere(id)?.position ?? null));
    if (pending.length === 0) return done;
    const counts = await activeLeaseCounts(pending);
    const blocked = requested.flatMap((id, i) =>
      (counts.get(id) ?? 0) > 0 ? [{ field: `[${i}]`, message: `Lessee ${id} has active leases` }] : [],
    );
    if (blocked.length > 0) throw conflict("Cannot delete lessee with active leases", blocked);
    const writes = pending.map((id) => {
      const { state, revision } = byId.get(id)!;
      const events = lesseeDecider.decide(
        { type: "DeleteLessee", lessee_id: id, active_lease_count: counts.get(id) ?? 0 },
        state,
      );
      return {
        stream_name: lesseeStream(id),
        events: toNewEvents(ctx.metadata, events, deletionIds(id)),
        expected_revision: revision ?? ("no_stream" as const),
        ...lesseeEmailsOf(id)(state, events)!,
      };
    });
    try {
      const appended = await commitReserving(ctx, lesseeEmails, writes);
      return latestPosition([done, ...appended.map((r) => r.position)]);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= ATTEMPTS) throw error;
    }
  }
}
