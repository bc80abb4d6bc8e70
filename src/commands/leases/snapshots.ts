import { type LeaseEvent, leaseEventTypes } from "../../events/leases.ts";
import type { Sql } from "../../platform/db.ts";
import type { RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { eventsOf } from "../../platform/projections/projection.ts";
import {
  emptyReplay,
  LEASE_SNAPSHOT_EVERY,
  LEASE_SNAPSHOT_VERSION,
  readLeaseSnapshot,
  replayLeaseEvent,
} from "../../queries/leaseReplay.ts";

/** Whether an append of `appended` events that brought the lease to `revision` passed a snapshot revision. */
export const passesSnapshot = (revision: number, appended: number) =>
  Math.floor((revision + 1) / LEASE_SNAPSHOT_EVERY) >
  Math.floor((revision + 1 - appended) / LEASE_SNAPSHOT_EVERY);

/**
 * Stores the lease's replay at its latest revision (docs/leases.md, "Audit replay"), folded from
 * the previous snapshot and the events since. A cache of the log: a failure here loses only speed.
 * `stream`: the whole stream of the caller's lease as a command just left it (not read again).
 */
export async function snapshotLease(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  stream: readonly RecordedEvent[],
): Promise<void> {
  const previous = await readLeaseSnapshot(sql, tenantId, leaseId, null);
  const from = previous?.revision ?? -1;
  const recorded = stream.filter((e) => e.stream_revision > BigInt(from));
  if (!previous && (recorded.length === 0 || recorded[0].metadata.tenant_id !== tenantId)) return;
  const replay = previous ?? emptyReplay();
  for (const e of eventsOf<LeaseEvent>(recorded, leaseEventTypes)) replayLeaseEvent(replay, e);
  if (replay.max_occurred_at === null || replay.revision <= from) return;
  await sql.query(
    `INSERT INTO lease_snapshots (tenant_id, lease_id, version, revision, max_occurred_at, state)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [
      tenantId,
      leaseId,
      LEASE_SNAPSHOT_VERSION,
      replay.revision,
      replay.max_occurred_at,
      JSON.stringify(replay),
    ],
  );
}
