import type { LeaseRole } from "../../../events/leases.ts";
import { isLiveLease, type LeaseView, type LeaseViewState } from "../../../events/leaseView.ts";
import { conflict, type ErrorDetail, notFound, validationError } from "../../../platform/errors.ts";

/** What the lease commands decide on: the lease's one fold (src/events/leaseView.ts). */
export type LeaseState = LeaseViewState;
export type LiveLease = LeaseView;

/** A lessee as the route found it in the lessees read model (null: unknown to the tenant). */
export type LesseeFact = { category: string } | null;

export const isDraft = (lease: LiveLease) => lease.status === "DRAFT" || lease.status === "PENDING_SIGNATURE";

export function live(state: LeaseState, leaseId: string): LiveLease {
  if (!isLiveLease(state)) throw notFound("Lease", leaseId);
  return state;
}

/** A TERMINATED or EXPIRED lease takes no more tenants, amendments or rent changes: 409. */
export function notEnded(lease: LiveLease, leaseId: string): void {
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    throw conflict(`Lease ${leaseId} is ${lease.status}`);
}

export function throwIfAny(details: ErrorDetail[]): void {
  if (details.length > 0) throw validationError("Invalid lease data", details);
}

export function checkDates(details: ErrorDetail[], start: string, end: string | null, field = "end_date") {
  if (end !== null && end < start) details.push({ field, message: `Must not be before ${start}` });
}

/** A takeover is on or after the start; an opening balance comes with its takeover date. */
export function checkTakeover(
  details: ErrorDetail[],
  terms: { start_date: string; takeover_date: string | null; opening_balance: number | null },
) {
  if (terms.takeover_date !== null && terms.takeover_date < terms.start_date)
    details.push({ field: "takeover_date", message: `Must not be before start_date (${terms.start_date})` });
  if (terms.takeover_date === null && (terms.opening_balance ?? 0) > 0)
    details.push({
      field: "opening_balance",
      message: "An opening balance needs the takeover_date it was owed on",
    });
}

/** A guarantor-category lessee may only be a Guarantor (docs/design.md §6 Leases). */
export function checkLessee(
  details: ErrorDetail[],
  field: string,
  id: string,
  fact: LesseeFact,
  role: LeaseRole,
) {
  if (fact === null) details.push({ field, message: `Lessee ${id} does not exist` });
  else if (fact.category === "guarantor" && role !== "Guarantor")
    details.push({ field, message: `Lessee ${id} is a guarantor and may only have the role Guarantor` });
}

export const activePrimaries = (lease: LiveLease) =>
  Object.values(lease.lessees).filter((a) => a.role === "Primary" && !a.ended);
