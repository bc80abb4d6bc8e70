import { leaseStream } from "../../events/leases.ts";
import { legalToday } from "../../law/calendar.ts";
import { UNDER_LOI_89_462 } from "../../law/leaseTypes.ts";
import type { Sql } from "../../platform/db.ts";
import { ApiError } from "../../platform/errors.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { type CommandContext, runCommand } from "../../platform/runCommand.ts";
import { lessorKindOf, OWNER_KIND_SQL } from "../../queries/leaseCompliance.ts";
import { type LeaseCommand, leaseDecider } from "./decider.ts";
import { estateOccupancyOf } from "./occupancy.ts";

export const LEASE_EXPIRY_QUEUE = "lease-expiry";

/**
 * Every ACTIVE lease of loi n° 89-462 whose `end_date` is before `today` (the legal day, Paris)
 * reaches its term (docs/design.md §6 Leases, the lease decider's ReachLeaseTerm): a bail mobilité or a
 * student lease expires through `LeaseExpired`, releasing its estate; an unfurnished or furnished
 * lease is renewed tacitly through `LeaseRenewed`, its end date moved, still ACTIVE.
 * Idempotent and safe with two workers: each lease is decided on its stream and appended at
 * its expected revision; a lease another worker expired first is no longer ACTIVE and is skipped.
 * Candidates come from the read model (across tenants: the worker is not a tenant).
 */
export async function expireLeases(
  deps: { sql: Sql; store: EventStore },
  today = legalToday(),
): Promise<{ expired: string[]; renewed: string[] }> {
  const due = await deps.sql.query<Omit<Due, "owner_category">>(
    `SELECT id, tenant_id, end_date, lease_type FROM leases
     WHERE status = 'ACTIVE' AND end_date < $1::date AND lease_type = ANY($2::text[])
     ORDER BY end_date, id`,
    [today, UNDER_LOI_89_462],
  );
  const owners = await ownerCategoriesOf(
    deps.sql,
    due.filter((l) => l.lease_type === "UNFURNISHED"),
  );
  const expired: string[] = [];
  const renewed: string[] = [];
  for (const lease of due) {
    const outcome = await reachTerm(
      deps.store,
      { ...lease, owner_category: owners.get(lease.id) ?? null },
      today,
    );
    if (outcome === "LeaseExpired") expired.push(lease.id);
    if (outcome === "LeaseRenewed") renewed.push(lease.id);
  }
  return { expired, renewed };
}

interface Due {
  id: string;
  tenant_id: string;
  end_date: string;
  lease_type: string;
  owner_category: string | null;
}

/**
 * The owner's category of each lease whose renewal length depends on its lessor (art. 10), from the
 * estates and owners read models; asked only when there is one (expiry alone needs only `leases`).
 */
async function ownerCategoriesOf(sql: Sql, leases: { id: string }[]): Promise<Map<string, string>> {
  if (leases.length === 0) return new Map();
  const rows = await sql.query<{ id: string; category: string }>(
    `SELECT l.id, ${OWNER_KIND_SQL} AS category FROM leases l
     JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
     JOIN owners o ON o.tenant_id = e.tenant_id AND o.id = e.owner_id
     WHERE l.id = ANY($1::uuid[])`,
    [leases.map((l) => l.id)],
  );
  return new Map(rows.map((r) => [r.id, r.category]));
}

async function reachTerm(store: EventStore, lease: Due, today: string) {
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
      leaseDecider,
      // The read model may lag a renewal: the decider judges the stream's own end date.
      (): LeaseCommand => ({
        type: "ReachLeaseTerm",
        lease_id: lease.id,
        today,
        lessor: lessorKindOf(lease.owner_category),
      }),
      { reserving: estateOccupancyOf(lease.id) },
    );
    return result.events[0]?.type ?? null;
  } catch (error) {
    // Another worker or a client moved the lease first: nothing left to do here.
    if (error instanceof ApiError) return null;
    throw error;
  }
}
