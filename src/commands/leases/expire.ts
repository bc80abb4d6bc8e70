import { type LeaseEvent, leaseStream } from "../../events/leases.ts";
import type { Sql } from "../../platform/db.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError } from "../../platform/errors.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { type CommandContext, runCommand } from "../../platform/runCommand.ts";
import { type LeaseCommand, type LeaseState, leaseDecider } from "./decider.ts";
import { estateOccupancyOf } from "./occupancy.ts";

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

/** The lease decider, deciding nothing when there is nothing to expire. */
const expiryDecider: Decider<LeaseState, LeaseCommand | null, LeaseEvent> = {
  ...leaseDecider,
  decide: (command, state) => (command === null ? [] : leaseDecider.decide(command, state)),
};

async function expireOne(
  store: EventStore,
  lease: { id: string; tenant_id: string; end_date: string },
  today: string,
) {
  const context: CommandContext = {
    store,
    tenant_id: lease.tenant_id,
    metadata: {
      tenant_id: lease.tenant_id,
      actor_key_id: null,
      correlation_id: `${LEASE_EXPIRY_QUEUE}-${today}`,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    },
  };
  try {
    const result = await runCommand(
      context,
      leaseStream(lease.id),
      expiryDecider,
      (state: LeaseState): LeaseCommand | null => {
        // The read model may lag a renewal: decide on the stream's own end date.
        if (state.status !== "ACTIVE" || state.terms.end_date === null || state.terms.end_date >= today)
          return null;
        return {
          type: "ChangeLeaseStatus",
          lease_id: lease.id,
          status: "EXPIRED",
          effective_date: state.terms.end_date,
          reason: "End date passed",
        };
      },
      { reserving: estateOccupancyOf(lease.id) },
    );
    return result.events.length > 0;
  } catch (error) {
    // Another worker or a client moved the lease first: nothing left to expire here.
    if (error instanceof ApiError) return false;
    throw error;
  }
}
