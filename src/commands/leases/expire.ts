import { leaseStream } from "../../events/leases.ts";
import type { Sql } from "../../platform/db.ts";
import { ApiError } from "../../platform/errors.ts";
import { type EventStore, WrongExpectedRevisionError } from "../../platform/eventstore/eventStore.ts";
import { loadStream } from "../../platform/http/handleCommand.ts";
import { leaseDecider } from "./decider.ts";
import { appendWithOccupancy } from "./occupancy.ts";

export const LEASE_EXPIRY_QUEUE = "lease-expiry";

/**
 * Turns every ACTIVE lease whose `end_date` is before `today` into EXPIRED through
 * `LeaseExpired` (DESIGN.md §6 Leases: the scheduled expiry), releasing its estate. A renewal
 * is an amendment moving `end_date`, so only leases still past their end are taken.
 * Idempotent and safe with two workers: each lease is decided on its stream and appended at
 * its expected revision; a lease another worker expired first is no longer ACTIVE and is skipped.
 * Candidates come from the read model (across tenants: the worker is not a tenant).
 */
export async function expireLeases(
  deps: { sql: Sql; store: EventStore },
  today = new Date().toISOString().slice(0, 10),
): Promise<{ expired: string[] }> {
  const due = await deps.sql.query<{ id: string; tenant_id: string; end_date: string }>(
    "SELECT id, tenant_id, end_date FROM leases WHERE status = 'ACTIVE' AND end_date < $1::date ORDER BY end_date, id",
    [today],
  );
  const expired: string[] = [];
  for (const lease of due) {
    if (await expireOne(deps.store, lease, today)) expired.push(lease.id);
  }
  return { expired };
}

async function expireOne(
  store: EventStore,
  lease: { id: string; tenant_id: string; end_date: string },
  today: string,
) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const loaded = await loadStream(store, leaseStream(lease.id), lease.tenant_id, leaseDecider);
    if (loaded.foreign || loaded.state.status !== "ACTIVE") return false;
    // The read model may lag a renewal: decide on the stream's own end date.
    const end = loaded.state.terms.end_date;
    if (end === null || end >= today) return false;
    try {
      const events = leaseDecider.decide(
        {
          type: "ChangeLeaseStatus",
          lease_id: lease.id,
          status: "EXPIRED",
          effective_date: end,
          reason: "End date passed",
        },
        loaded.state,
      );
      await appendWithOccupancy(store, {
        lease_id: lease.id,
        estate_id: loaded.state.terms.estate_id,
        tenant_id: lease.tenant_id,
        lease_revision: loaded.revision,
        events,
        metadata: {
          tenant_id: lease.tenant_id,
          actor_key_id: null,
          correlation_id: `${LEASE_EXPIRY_QUEUE}-${today}`,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      });
      return true;
    } catch (error) {
      if (error instanceof ApiError) return false;
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  return false;
}
