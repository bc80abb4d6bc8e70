import type { AmendmentFields, AmendmentStatus, LeaseEvent } from "../../../events/leases.ts";
import type { LeaseAmendment } from "../../../events/leaseView.ts";
import { type LessorKind, mobilityDurationVerdict, periodStartOn } from "../../../law/leaseTypes.ts";
import { rentFreezeVerdict } from "../../../law/rent.ts";
import { changedFields } from "../../../platform/decider.ts";
import { conflict, type ErrorDetail, enforce, notFound } from "../../../platform/errors.ts";
import type { DpeFact } from "./rent.ts";
import { checkDates, type LeaseState, type LiveLease, live, notEnded, throwIfAny } from "./rules.ts";

/** A lease's amendments (DESIGN.md §6 Leases): drafted, revised, deleted, submitted, validated (applied). */

type Ids = { lease_id: string; amendment_id: string };

export type AmendmentsCommand =
  | ({ type: "DraftAmendment"; amendment: AmendmentFields } & Ids)
  | ({ type: "ReviseAmendment"; changes: Partial<AmendmentFields> } & Ids)
  | ({ type: "DeleteAmendment" } & Ids)
  | ({
      type: "ChangeAmendmentStatus";
      status: AmendmentStatus;
      reason: string | null;
      dpe: DpeFact;
      /** Who lets (art. 10: 3- or 6-year renewals); absent: a natural person. */
      lessor?: LessorKind;
    } & Ids);

/** DESIGN.md §6 Leases: amendment transitions and their events. */
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

export function amendmentOf(lease: LiveLease, command: Ids): LeaseAmendment {
  const found = lease.amendments[command.amendment_id];
  if (!found) throw notFound("Amendment", command.amendment_id);
  return found;
}

function draftOnly(amendment: LeaseAmendment, id: string) {
  if (amendment.status !== "DRAFT")
    throw conflict(
      `Amendment ${id} is ${amendment.status}: only a DRAFT amendment can be changed or deleted`,
    );
}

/**
 * The rules an amendment's changes must meet against the lease's terms (400 dates, 422 duration of
 * a bail mobilité). Not the deposit cap: the deposit is never revised during the lease (art. 22).
 */
function checkAmendment(lease: LiveLease, fields: AmendmentFields) {
  const merged = { ...lease.terms, ...fields.changes };
  const details: ErrorDetail[] = [];
  checkDates(details, merged.start_date, merged.end_date, "changes.end_date");
  if (fields.effective_date < lease.terms.start_date)
    details.push({
      field: "effective_date",
      message: `Must not be before the lease start ${lease.terms.start_date}`,
    });
  throwIfAny(details);
  enforce(mobilityDurationVerdict(merged));
}

function draft(command: Extract<AmendmentsCommand, { type: "DraftAmendment" }>, state: LeaseState) {
  const lease = live(state, command.lease_id);
  notEnded(lease, command.lease_id);
  checkAmendment(lease, command.amendment);
  const data = { lease_id: command.lease_id, amendment_id: command.amendment_id, ...command.amendment };
  return [{ type: "LeaseAmendmentDrafted", data } satisfies LeaseEvent];
}

function revise(command: Extract<AmendmentsCommand, { type: "ReviseAmendment" }>, state: LeaseState) {
  const lease = live(state, command.lease_id);
  const current = amendmentOf(lease, command);
  const changes = changedFields(current, command.changes, [
    "title",
    "effective_date",
    "changes",
    "reason",
  ] as const);
  draftOnly(current, command.amendment_id);
  checkAmendment(lease, { ...current, ...changes });
  const data = { lease_id: command.lease_id, amendment_id: command.amendment_id, changes };
  return [{ type: "LeaseAmendmentRevised", data } satisfies LeaseEvent];
}

/** A draft whose documents are still attached is not deleted: they would belong to nothing. */
function remove(command: Extract<AmendmentsCommand, { type: "DeleteAmendment" }>, state: LeaseState) {
  const lease = live(state, command.lease_id);
  draftOnly(amendmentOf(lease, command), command.amendment_id);
  const documents = Object.entries(lease.documents).filter(
    ([, d]) => d.amendment_id === command.amendment_id,
  );
  if (documents.length > 0)
    throw conflict(
      `Amendment ${command.amendment_id} has documents (${documents.map(([id]) => id).join(", ")}): delete them first`,
    );
  const data = { lease_id: command.lease_id, amendment_id: command.amendment_id };
  return [{ type: "LeaseAmendmentDeleted", data } satisfies LeaseEvent];
}

/** A validated amendment's changes: LeaseAmended for terms, LeaseRentChanged for rent and charges. */
function applied(
  lease: LiveLease,
  amendment: LeaseAmendment,
  command: Extract<AmendmentsCommand, { type: "ChangeAmendmentStatus" }>,
): LeaseEvent[] {
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
function changeStatus(
  command: Extract<AmendmentsCommand, { type: "ChangeAmendmentStatus" }>,
  state: LeaseState,
): LeaseEvent[] {
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

export function decideAmendments(command: AmendmentsCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "DraftAmendment":
      return draft(command, state);
    case "ReviseAmendment":
      return revise(command, state);
    case "DeleteAmendment":
      return remove(command, state);
    case "ChangeAmendmentStatus":
      return changeStatus(command, state);
  }
}
