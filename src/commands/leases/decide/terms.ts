import { LEASE_TERM_FIELDS, type LeaseEvent, type LeaseTerms } from "../../../events/leases.ts";
import { depositVerdict } from "../../../law/deposit.ts";
import { mobilityDurationVerdict, mobilityMotiveVerdict } from "../../../law/leaseTypes.ts";
import { changedFields } from "../../../platform/decider.ts";
import { conflict, type ErrorDetail, enforce } from "../../../platform/errors.ts";
import {
  checkDates,
  checkLessee,
  checkTakeover,
  isDraft,
  type LeaseState,
  type LesseeFact,
  live,
  throwIfAny,
} from "./rules.ts";

/** A lease's terms: creation, changes before signing, deletion of a draft. */

export type TermsCommand =
  | {
      type: "CreateLease";
      lease_id: string;
      association_id: string;
      terms: LeaseTerms;
      primary_lessee_id: string;
      estate_exists: boolean;
      primary: LesseeFact;
    }
  /** `changes`: the terms asked for (absent keeps, null removes); only those that differ are recorded. */
  | { type: "UpdateLease"; lease_id: string; changes: Partial<LeaseTerms>; estate_exists?: boolean }
  | { type: "DeleteLease"; lease_id: string };

/** Terms fixed by the contract: after activation only amendments and the rent route change them. */
const FREE_FIELDS = ["payment_method", "custom_fields"];
export const CONTRACT_FIELDS = LEASE_TERM_FIELDS.filter((f) => !FREE_FIELDS.includes(f));

function create(command: Extract<TermsCommand, { type: "CreateLease" }>, state: LeaseState): LeaseEvent[] {
  if (state.status !== "absent") throw conflict(`Lease ${command.lease_id} already exists`);
  const { terms, primary_lessee_id } = command;
  const details: ErrorDetail[] = [];
  if (!command.estate_exists)
    details.push({ field: "estate_id", message: `Estate ${terms.estate_id} does not exist` });
  checkLessee(details, "primary_lessee_id", primary_lessee_id, command.primary, "Primary");
  checkDates(details, terms.start_date, terms.end_date);
  checkTakeover(details, terms);
  throwIfAny(details);
  enforce(depositVerdict(terms));
  enforce(mobilityDurationVerdict(terms));
  // Art. 25-13: the contract states the motive, so the lease does from its creation.
  enforce(mobilityMotiveVerdict(terms.lease_type, terms.mobility_motive));
  return [
    { type: "LeaseCreated", data: { lease_id: command.lease_id, ...terms } },
    {
      type: "LeaseLesseeAdded",
      data: {
        lease_id: command.lease_id,
        association_id: command.association_id,
        lessee_id: primary_lessee_id,
        role: "Primary",
        start_date: terms.start_date,
        end_date: terms.end_date,
      },
    },
  ];
}

function update(command: Extract<TermsCommand, { type: "UpdateLease" }>, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const changes = changedFields(lease.terms, command.changes, LEASE_TERM_FIELDS);
  const contractual = CONTRACT_FIELDS.filter((f) => f in changes);
  if (!isDraft(lease) && contractual.length > 0) {
    throw conflict(
      `Lease ${command.lease_id} is ${lease.status}: its contract terms change only through amendments (POST /api/leases/${command.lease_id}/amendments) or the rent route (PUT /api/leases/${command.lease_id}/rent)`,
      contractual.map((field) => ({ field, message: "Contract term of a signed lease" })),
    );
  }
  const merged = { ...lease.terms, ...changes };
  const details: ErrorDetail[] = [];
  if (changes.estate_id !== undefined && !command.estate_exists)
    details.push({ field: "estate_id", message: `Estate ${changes.estate_id} does not exist` });
  checkDates(details, merged.start_date, merged.end_date);
  checkTakeover(details, merged);
  throwIfAny(details);
  // The deposit is judged when it is set, before signing, never during the lease (art. 22): a signed
  // lease reaches here only with free fields, which judge nothing.
  if (isDraft(lease)) {
    enforce(depositVerdict(merged));
    enforce(mobilityDurationVerdict(merged));
    if ("lease_type" in changes || "mobility_motive" in changes)
      enforce(mobilityMotiveVerdict(merged.lease_type, merged.mobility_motive));
  }
  return [{ type: "LeaseUpdated", data: { lease_id: command.lease_id, changes } }];
}

function remove(command: Extract<TermsCommand, { type: "DeleteLease" }>, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (lease.status !== "DRAFT")
    throw conflict(`Lease ${command.lease_id} is ${lease.status}: only a DRAFT lease can be deleted`);
  return [{ type: "LeaseDeleted", data: { lease_id: command.lease_id, estate_id: lease.terms.estate_id } }];
}

export function decideTerms(command: TermsCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "CreateLease":
      return create(command, state);
    case "UpdateLease":
      return update(command, state);
    case "DeleteLease":
      return remove(command, state);
  }
}
