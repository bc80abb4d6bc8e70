import { createHash } from "node:crypto";
import { LEASE_TERM_FIELDS, type LeaseEvent, leaseEventTypes, leaseStream } from "../events/leases.ts";
import {
  ABSENT_LEASE,
  evolveLease,
  isLiveLease,
  type LeaseView,
  type LeaseViewState,
  leaseColumnsOf,
} from "../events/leaseView.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { tenantOf } from "../platform/http/auth.ts";
import type { readHistory } from "../platform/http/handleCommand.ts";
import { eventsOf } from "../platform/projections/projection.ts";
import { toLease } from "./leaseBodies.ts";
import type { Found } from "./places.ts";

/** A lease replayed from its stream: command answers, `as_of` (the audit view) and its snapshots. */

/**
 * The lease as its read model holds it once the projector has applied `events` (the whole lease
 * stream, in order): the same fold, so a command answers without reading the row back
 * (docs/performance.md, "Lease status changes").
 */
export function leaseFromEvents(events: readonly RecordedEvent[]): Found | null {
  const replay = emptyReplay();
  for (const e of eventsOf<LeaseEvent>(events, leaseEventTypes)) replayLeaseEvent(replay, e);
  const first = events[0]?.data as { lease_id?: string } | undefined;
  const found = first?.lease_id ? replayedLease(replay, first.lease_id) : null;
  return found && { body: found.body, revision: found.revision };
}

/**
 * A lease replayed from its events (`as_of`, snapshots, command answers): the lease's one fold
 * (src/events/leaseView.ts) and the stamps its row carries. JSON-safe (object keys keep
 * insertion order), so it is also what a snapshot stores.
 */
export interface LeaseReplay {
  lease: LeaseViewState;
  created_at: string | null;
  updated_at: string | null;
  /** The last revision folded in; -1 for none. */
  revision: number;
  /** The latest occurred_at folded in (concurrent commands may commit slightly out of time order). */
  max_occurred_at: string | null;
}

export const emptyReplay = (): LeaseReplay => ({
  lease: ABSENT_LEASE,
  created_at: null,
  updated_at: null,
  revision: -1,
  max_occurred_at: null,
});

/** Folds one event into `replay` (in place). */
export function replayLeaseEvent(replay: LeaseReplay, e: RecordedEvent<LeaseEvent>): LeaseReplay {
  replay.lease = evolveLease(replay.lease, e);
  const at = e.metadata.occurred_at;
  if (e.type === "LeaseCreated") replay.created_at = at;
  replay.updated_at = at;
  replay.revision = Number(e.stream_revision);
  if (replay.max_occurred_at === null || Date.parse(at) > Date.parse(replay.max_occurred_at))
    replay.max_occurred_at = at;
  return replay;
}

/** The lease `replay` holds, as the API shows it (and the read model holds it); null when none. */
function replayedLease(replay: LeaseReplay, id: string): (Found & { lease: LeaseView }) | null {
  const { lease } = replay;
  if (!isLiveLease(lease)) return null;
  const row = { ...leaseColumnsOf(lease), id, created_at: replay.created_at, updated_at: replay.updated_at };
  return { body: toLease(row), revision: replay.revision, lease };
}

/**
 * Snapshots of the replay (docs/leases.md, "Audit replay"): every LEASE_SNAPSHOT_EVERY revisions
 * the lease commands store one (src/commands/leases/snapshots.ts), so `as_of` folds at most that
 * many events after the latest snapshot wholly before the instant. Bump the version when the
 * replay changes: older snapshots are then ignored.
 */
export const LEASE_SNAPSHOT_EVERY = 100;
/** The replay's revision (3: the one fold) and its terms: a new term makes older snapshots ignored. */
export const LEASE_SNAPSHOT_VERSION = Number.parseInt(
  createHash("sha256")
    .update(`3\n${LEASE_TERM_FIELDS.join(",")}`)
    .digest("hex")
    .slice(0, 7),
  16,
);

/** The latest snapshot of the lease whose events all occurred at or before `at` (any, when null). */
export async function readLeaseSnapshot(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  at: Date | null,
): Promise<LeaseReplay | null> {
  const [found] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ state: LeaseReplay }>(
      `SELECT state FROM lease_snapshots
        WHERE tenant_id = $1 AND lease_id = $2 AND version = $3 AND ($4::timestamptz IS NULL OR max_occurred_at <= $4)
        ORDER BY revision DESC LIMIT 1`,
      [tenantId, leaseId, LEASE_SNAPSHOT_VERSION, at?.toISOString() ?? null],
    ),
  );
  return found?.state ?? null;
}

/** The lease as it stood at `asOf`, replayed from its stream (docs/design.md §1: the audit view). */
export async function leaseAsOf(request: Parameters<typeof readHistory>[0], id: string, asOf: string) {
  const tenantId = tenantOf(request);
  // A date or a timestamp without a zone is read as UTC (docs/design.md §4).
  const at = Date.parse(asOf.length === 10 || /[zZ]|[+-]\d\d:\d\d$/.test(asOf) ? asOf : `${asOf}Z`);
  const snapshot = await readLeaseSnapshot(request.server.platform.sql, tenantId, id, new Date(at));
  const events = eventsOf<LeaseEvent>(
    await request.server.platform.store.readStream(
      leaseStream(id),
      snapshot ? { from_revision: BigInt(snapshot.revision + 1) } : {},
    ),
    leaseEventTypes,
  );
  if (!snapshot && (events.length === 0 || events[0].metadata.tenant_id !== tenantId))
    throw notFound("Lease", id);
  const replay = snapshot ?? emptyReplay();
  for (const e of events) {
    if (Date.parse(e.metadata.occurred_at) > at) break;
    replayLeaseEvent(replay, e);
  }
  const found = replayedLease(replay, id);
  if (!found) throw notFound("Lease", `${id} as of ${asOf}`);
  const { lessees, amendments } = found.lease;
  return {
    body: {
      ...found.body,
      lessees: Object.values(lessees).map(({ association_id, ...a }) => ({ id: association_id, ...a })),
      amendments: Object.entries(amendments).map(([amendment_id, a]) => ({ id: amendment_id, ...a })),
    },
    revision: found.revision,
  };
}
