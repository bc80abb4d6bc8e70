import type { AmendmentStatus, LeaseEvent } from "../../../events/leases.ts";
import type { LeaseAmendment } from "../../../events/leaseView.ts";
import { type LessorKind, periodStartOn } from "../../../law/leaseTypes.ts";
import { rentFreezeVerdict } from "../../../law/rent.ts";
import { changedFields } from "../../../platform/decider.ts";
import { conflict, enforce } from "../../../platform/errors.ts";
import { amendmentOf, checkAmendment, type Ids } from "./amendments.ts";
import type { DpeFact } from "./rent.ts";
import { type LeaseState, type LiveLease, live, notEnded } from "./rules.ts";

/** An amendment's status: submitted, validated (its changes applied in the same commit), rejected, cancelled. */

export type AmendmentStatusCommand = {
  type: "ChangeAmendmentStatus";
  status: AmendmentStatus;
  reason: string | null;
  dpe: DpeFact;
  /** Who lets (art. 10: 3- or 6-year renewals); absent: a natural person. */
  lessor?: LessorKind;
} & Ids;

/** docs/design.md §6 Leases: amendment transitions and their events. */
const AMENDMENT_TRANSITIONS: Record<AmendmentStatus, Partial<Record<AmendmentStatus, LeaseEvent["type"]>>> = {
  DRAFT: { PENDING_VALIDATION: "LeaseAmendmentSubmitted", CANCELLED: "LeaseAmendmentCancelled" },
  PENDING_VALIDATION: {
    VALIDATED: "LeaseAmendmentValidated",
    REJECTED: "LeaseAmendmentRejected",
    CANCELLED: "LeaseAmendmentCancelled",
  },
  VALIDATED: {},
  REJECTED: {},
  CANCELLED: {},
};

/** A validated amendment's changes: LeaseAmended for terms, LeaseRentChanged for rent and charges. */
function applied(lease: LiveLease, amendment: LeaseAmendment, command: AmendmentStatusCommand): LeaseEvent[] {
  const ids = { lease_id: command.lease_id, amendment_id: command.amendment_id };
  notEnded(lease, command.lease_id);
  checkAmendment(lease, amendment);
  const { rent_amount, charges_amount, ...terms } = amendment.changes;
  const termChanges = changedFields(lease.terms, terms, [
    "end_date",
    "duration_months",
    "special_conditions",
  ] as const);
  const events: LeaseEvent[] = [];
  if (Object.keys(termChanges).length > 0)
    events.push({ type: "LeaseAmended", data: { ...ids, changes: termChanges } });
  const newRent = rent_amount ?? lease.terms.rent_amount;
  const newCharges = charges_amount === undefined ? lease.terms.charges_amount : charges_amount;
  if (newRent === lease.terms.rent_amount && newCharges === lease.terms.charges_amount) return events;
  enforce(
    rentFreezeVerdict({
      current_rent: lease.terms.rent_amount,
      new_rent: newRent,
      effective_date: amendment.effective_date,
      dpe: command.dpe,
      period_start: periodStartOn(lease.terms, amendment.effective_date, command.lessor),
    }),
  );
  events.push({
    type: "LeaseRentChanged",
    data: {
      lease_id: command.lease_id,
      rent_amount: newRent,
      charges_amount: newCharges,
      previous_rent_amount: lease.terms.rent_amount,
      previous_charges_amount: lease.terms.charges_amount,
      effective_date: amendment.effective_date,
      reason: "AGREEMENT",
      index: null,
    },
  });
  return events;
}

/** Validation applies the changes in the same commit. */
export function decideAmendmentStatus(command: AmendmentStatusCommand, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const amendment = amendmentOf(lease, command);
  const type = AMENDMENT_TRANSITIONS[amendment.status][command.status];
  if (!type) {
    const allowed = Object.keys(AMENDMENT_TRANSITIONS[amendment.status]);
    throw conflict(
      `Amendment ${command.amendment_id} cannot go from ${amendment.status} to ${command.status}` +
        (allowed.length ? ` (allowed: ${allowed.join(", ")})` : ` (${amendment.status} is final)`),
    );
  }
  const ids = { lease_id: command.lease_id, amendment_id: command.amendment_id };
  const event = { type, data: { ...ids, reason: command.reason } } as LeaseEvent;
  if (type !== "LeaseAmendmentValidated") return [event];
  return [event, ...applied(lease, amendment, command)];
}
