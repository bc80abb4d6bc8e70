import type { LeaseEvent, LeaseRole } from "../../../events/leases.ts";
import type { LeaseTenant } from "../../../events/leaseView.ts";
import { changedFields } from "../../../platform/decider.ts";
import { conflict, type ErrorDetail, notFound } from "../../../platform/errors.ts";
import {
  activePrimaries,
  checkDates,
  checkLessee,
  isDraft,
  type LeaseState,
  type LesseeFact,
  type LiveLease,
  live,
  notEnded,
  throwIfAny,
} from "./rules.ts";

/** A lease's tenants and guarantors: added, changed, their term ended, removed from a draft. */

export interface TenantTerm {
  lessee_id: string;
  role: LeaseRole;
  /** Absent: the lease's start on a draft, else today. */
  start_date?: string;
  end_date?: string | null;
}

export type TenantsCommand =
  | {
      type: "AddLeaseLessee";
      lease_id: string;
      association_id: string;
      tenant: TenantTerm;
      lessee: LesseeFact;
      today: string;
    }
  | {
      type: "UpdateLeaseLessee";
      lease_id: string;
      lessee_id: string;
      /** Absent keeps, null removes the end date. */
      changes: { role?: LeaseRole; start_date?: string; end_date?: string | null };
      /** What the request said of the association besides: it must match the path and the term. */
      stated?: { lessee_id?: string; lease_id?: string; ended?: boolean };
    }
  | { type: "EndLeaseLessee"; lease_id: string; lessee_id: string; end_date: string }
  | { type: "RemoveLeaseLessee"; lease_id: string; lessee_id: string };

function addLessee(
  command: Extract<TenantsCommand, { type: "AddLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const t = command.tenant;
  notEnded(lease, command.lease_id);
  const details: ErrorDetail[] = [];
  checkLessee(details, "lessee_id", t.lessee_id, command.lessee, t.role);
  const start = t.start_date ?? (isDraft(lease) ? lease.terms.start_date : command.today);
  checkDates(details, start, t.end_date ?? null);
  throwIfAny(details);
  if (lease.lessees[t.lessee_id])
    throw conflict(`Lessee ${t.lessee_id} is already on lease ${command.lease_id}`, [
      { field: "lessee_id", message: "Already associated" },
    ]);
  return [
    {
      type: "LeaseLesseeAdded",
      data: {
        lease_id: command.lease_id,
        association_id: command.association_id,
        lessee_id: t.lessee_id,
        role: t.role,
        start_date: start,
        end_date: t.end_date ?? null,
      },
    },
  ];
}

function association(lease: LiveLease, leaseId: string, lesseeId: string): LeaseTenant {
  const found = lease.lessees[lesseeId];
  if (!found) throw notFound("Lease lessee", `${lesseeId} of lease ${leaseId}`);
  return found;
}

/** Ending or demoting the last active Primary of a non-draft lease leaves it without one: 409. */
function keepsPrimary(lease: LiveLease, leaseId: string, lesseeId: string) {
  if (isDraft(lease)) return;
  const others = activePrimaries(lease).filter((a) => a.lessee_id !== lesseeId);
  if (others.length === 0 && lease.lessees[lesseeId]?.role === "Primary")
    throw conflict(
      `Lessee ${lesseeId} is the last Primary tenant of lease ${leaseId}, which is ${lease.status}`,
    );
}

function updateLessee(
  command: Extract<TenantsCommand, { type: "UpdateLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const current = association(lease, command.lease_id, command.lessee_id);
  const stated = command.stated ?? {};
  const details: ErrorDetail[] = [];
  if (stated.lessee_id !== undefined && stated.lessee_id !== command.lessee_id)
    details.push({ field: "lessee_id", message: "Must be the lessee of the path" });
  if (stated.lease_id !== undefined && stated.lease_id !== command.lease_id)
    details.push({ field: "lease_id", message: "Must be the lease of the path" });
  if (stated.ended !== undefined && stated.ended !== current.ended)
    details.push({ field: "ended", message: "End a term with PUT .../end" });
  const changes = changedFields(current, command.changes, ["role", "start_date", "end_date"] as const);
  checkDates(details, changes.start_date ?? current.start_date, changes.end_date ?? current.end_date);
  throwIfAny(details);
  if (changes.role !== undefined && changes.role !== "Primary")
    keepsPrimary(lease, command.lease_id, command.lessee_id);
  return [
    {
      type: "LeaseLesseeUpdated",
      data: { lease_id: command.lease_id, lessee_id: command.lessee_id, changes },
    },
  ];
}

function endLessee(
  command: Extract<TenantsCommand, { type: "EndLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const current = association(lease, command.lease_id, command.lessee_id);
  if (current.ended)
    throw conflict(`The term of lessee ${command.lessee_id} on lease ${command.lease_id} has ended`);
  const details: ErrorDetail[] = [];
  checkDates(details, current.start_date, command.end_date);
  throwIfAny(details);
  keepsPrimary(lease, command.lease_id, command.lessee_id);
  return [
    {
      type: "LeaseLesseeEnded",
      data: { lease_id: command.lease_id, lessee_id: command.lessee_id, ended_on: command.end_date },
    },
  ];
}

function removeLessee(
  command: Extract<TenantsCommand, { type: "RemoveLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  association(lease, command.lease_id, command.lessee_id);
  if (!isDraft(lease))
    throw conflict(
      `Lease ${command.lease_id} is ${lease.status}: end the tenant's term (PUT .../lessees/${command.lessee_id}/end) instead of removing it`,
    );
  return [{ type: "LeaseLesseeRemoved", data: { lease_id: command.lease_id, lessee_id: command.lessee_id } }];
}

export function decideTenants(command: TenantsCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "AddLeaseLessee":
      return addLessee(command, state);
    case "UpdateLeaseLessee":
      return updateLessee(command, state);
    case "EndLeaseLessee":
      return endLessee(command, state);
    case "RemoveLeaseLessee":
      return removeLessee(command, state);
  }
}
