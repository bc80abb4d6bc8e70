import type { AmendmentFields, LeaseEvent } from "../../../events/leases.ts";
import type { LeaseAmendment } from "../../../events/leaseView.ts";
import { mobilityDurationVerdict } from "../../../law/leaseTypes.ts";
import { changedFields } from "../../../platform/decider.ts";
import { conflict, type ErrorDetail, enforce, notFound } from "../../../platform/errors.ts";
import { checkDates, type LeaseState, type LiveLease, live, notEnded, throwIfAny } from "./rules.ts";

/** A lease's amendments (docs/design.md §6 Leases): drafted, revised, deleted; their status in ./amendmentStatus.ts. */

export type Ids = { lease_id: string; amendment_id: string };

export type AmendmentsCommand =
  | ({ type: "DraftAmendment"; amendment: AmendmentFields } & Ids)
  | ({ type: "ReviseAmendment"; changes: Partial<AmendmentFields> } & Ids)
  | ({ type: "DeleteAmendment" } & Ids);

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
export function checkAmendment(lease: LiveLease, fields: AmendmentFields) {
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

export function decideAmendments(command: AmendmentsCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "DraftAmendment":
      return draft(command, state);
    case "ReviseAmendment":
      return revise(command, state);
    case "DeleteAmendment":
      return remove(command, state);
  }
}
