import {
  AMENDMENT_STATUS_OF_EVENT,
  type AmendmentFields,
  type AmendmentStatus,
  LEASE_TERM_FIELDS,
  type LeaseEvent,
  type LeaseRole,
  type LeaseStatus,
  type LeaseTerms,
  STATUS_OF_EVENT,
  type StatusChange,
} from "../../events/leases.ts";
import { addDays, termEnd } from "../../law/calendar.ts";
import { depositVerdict } from "../../law/deposit.ts";
import {
  endsAtTerm,
  type LessorKind,
  mobilityDurationVerdict,
  periodStartOn,
  renewalMonths,
} from "../../law/leaseTypes.ts";
import { DEFAULT_NOTICE, type NoticeFacts, noticeVerdict } from "../../law/notice.ts";
import {
  type DpeOn,
  indexCapVerdict,
  indexRevisionVerdict,
  irlValuesVerdict,
  type PublishedIrl,
  rentFreezeVerdict,
} from "../../law/rent.ts";
import type { Decider } from "../../platform/decider.ts";
import { changedFields } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, enforce, notFound, validationError } from "../../platform/errors.ts";
import type { CreateLeaseInput, RentInput } from "../../queries/leasesSchemas.ts";
import type {
  AddLesseeInput,
  CreateAmendmentInput,
  UpdateAmendmentInput,
  UpdateAssociationInput,
  UpdateDocumentInput,
  UpdateLeaseInput,
} from "./schemas.ts";

export interface Association {
  association_id: string;
  lessee_id: string;
  role: LeaseRole;
  start_date: string;
  end_date: string | null;
  ended: boolean;
}

export interface Amendment extends AmendmentFields {
  status: AmendmentStatus;
}

export interface LeaseDocument {
  document_type: string;
  description: string | null;
}

export interface LiveLease {
  status: LeaseStatus;
  terms: LeaseTerms;
  /** By lessee id: a lessee holds at most one association per lease. */
  lessees: Record<string, Association>;
  amendments: Record<string, Amendment>;
  documents: Record<string, LeaseDocument>;
  /** The effective date of the last index revision (art. 17-1 I: at most once a year); absent: none. */
  last_index_revision_on?: string;
}

export type LeaseState = { status: "absent" } | { status: "deleted" } | LiveLease;

/** A lessee as the route found it in the lessees read model (null: unknown to the tenant). */
export type LesseeFact = { category: string } | null;

/** The estate's DPE valid on the change's effective date (energy-diagnosis read model), null when none. */
export type DpeFact = DpeOn | null;

export type LeaseCommand =
  | {
      type: "CreateLease";
      lease_id: string;
      association_id: string;
      input: CreateLeaseInput;
      estate_exists: boolean;
      primary: LesseeFact;
    }
  | { type: "UpdateLease"; lease_id: string; input: UpdateLeaseInput; estate_exists?: boolean }
  | { type: "DeleteLease"; lease_id: string }
  | {
      type: "ChangeLeaseStatus";
      lease_id: string;
      status: LeaseStatus;
      effective_date: string;
      reason: string | null;
      /** For NOTICE: who gives it and the facts its period depends on (./notice.ts). */
      notice?: NoticeFacts;
    }
  | {
      type: "AddLeaseLessee";
      lease_id: string;
      association_id: string;
      input: AddLesseeInput;
      lessee: LesseeFact;
      today: string;
    }
  /** The daily term job (./expire.ts): renew tacitly or expire a lease past its end date. */
  | { type: "ReachLeaseTerm"; lease_id: string; today: string; lessor: LessorKind }
  | { type: "UpdateLeaseLessee"; lease_id: string; lessee_id: string; input: UpdateAssociationInput }
  | { type: "EndLeaseLessee"; lease_id: string; lessee_id: string; end_date: string }
  | { type: "RemoveLeaseLessee"; lease_id: string; lessee_id: string }
  | { type: "DraftAmendment"; lease_id: string; amendment_id: string; input: CreateAmendmentInput }
  | { type: "ReviseAmendment"; lease_id: string; amendment_id: string; input: UpdateAmendmentInput }
  | { type: "DeleteAmendment"; lease_id: string; amendment_id: string }
  | {
      type: "ChangeAmendmentStatus";
      lease_id: string;
      amendment_id: string;
      status: AmendmentStatus;
      reason: string | null;
      dpe: DpeFact;
      /** Who lets (art. 10: 3- or 6-year renewals); absent: a natural person. */
      lessor?: LessorKind;
    }
  | {
      type: "AddLeaseDocument";
      lease_id: string;
      document: Extract<LeaseEvent, { type: "LeaseDocumentAdded" }>["data"];
    }
  | { type: "UpdateLeaseDocument"; lease_id: string; document_id: string; input: UpdateDocumentInput }
  | { type: "DeleteLeaseDocument"; lease_id: string; document_id: string }
  | {
      type: "ChangeRent";
      lease_id: string;
      input: RentInput;
      dpe: DpeFact;
      /** Who lets (art. 10: 3- or 6-year renewals); absent: a natural person. */
      lessor?: LessorKind;
      /** The IRL data's values for the index quarters (docs/compliance.md); omitted: not looked up. */
      published_irl?: PublishedIrl;
    };

/** Terms fixed by the contract: after activation only amendments and the rent route change them. */
const FREE_FIELDS = ["payment_method", "custom_fields"];
export const CONTRACT_FIELDS = LEASE_TERM_FIELDS.filter((f) => !FREE_FIELDS.includes(f));

/** DESIGN.md §6 Leases: the transitions allowed from each status. */
export const TRANSITIONS: Record<LeaseStatus, readonly LeaseStatus[]> = {
  DRAFT: ["PENDING_SIGNATURE", "ACTIVE"],
  PENDING_SIGNATURE: ["ACTIVE", "DRAFT"],
  ACTIVE: ["NOTICE", "TERMINATED", "EXPIRED"],
  NOTICE: ["ACTIVE", "FINALISATION", "TERMINATED"],
  FINALISATION: ["TERMINATED"],
  TERMINATED: [],
  EXPIRED: [],
};

const isDraft = (lease: LiveLease) => lease.status === "DRAFT" || lease.status === "PENDING_SIGNATURE";

function live(state: LeaseState, leaseId: string): LiveLease {
  if (state.status === "absent" || state.status === "deleted") throw notFound("Lease", leaseId);
  return state;
}

function throwIfAny(details: ErrorDetail[]): void {
  if (details.length > 0) throw validationError("Invalid lease data", details);
}

function checkDates(details: ErrorDetail[], start: string, end: string | null, field = "end_date") {
  if (end !== null && end < start) details.push({ field, message: `Must not be before ${start}` });
}

/** A guarantor-category lessee may only be a Guarantor (DESIGN.md §6 Leases). */
function checkLessee(details: ErrorDetail[], field: string, id: string, fact: LesseeFact, role: LeaseRole) {
  if (fact === null) details.push({ field, message: `Lessee ${id} does not exist` });
  else if (fact.category === "guarantor" && role !== "Guarantor")
    details.push({ field, message: `Lessee ${id} is a guarantor and may only have the role Guarantor` });
}

const activePrimaries = (lease: LiveLease) =>
  Object.values(lease.lessees).filter((a) => a.role === "Primary" && !a.ended);

function create(command: Extract<LeaseCommand, { type: "CreateLease" }>, state: LeaseState): LeaseEvent[] {
  if (state.status !== "absent") throw conflict(`Lease ${command.lease_id} already exists`);
  const { primary_lessee_id, ...i } = command.input;
  const details: ErrorDetail[] = [];
  if (!command.estate_exists)
    details.push({ field: "estate_id", message: `Estate ${i.estate_id} does not exist` });
  checkLessee(details, "primary_lessee_id", primary_lessee_id, command.primary, "Primary");
  checkDates(details, i.start_date, i.end_date ?? null);
  throwIfAny(details);
  const terms: LeaseTerms = {
    estate_id: i.estate_id,
    lease_type: i.lease_type,
    usage_type: i.usage_type ?? null,
    start_date: i.start_date,
    end_date: i.end_date ?? null,
    duration_months: i.duration_months ?? null,
    rent_amount: i.rent_amount,
    charges_amount: i.charges_amount ?? null,
    charge_settlement_mode: i.charge_settlement_mode ?? null,
    deposit_amount: i.deposit_amount ?? null,
    rent_frequency: i.rent_frequency ?? null,
    payment_terms: i.payment_terms ?? null,
    payment_method: i.payment_method ?? null,
    payment_day: i.payment_day ?? null,
    revision_index_type: i.revision_index_type ?? null,
    revision_reference_quarter: i.revision_reference_quarter ?? null,
    revision_reference_value: i.revision_reference_value ?? null,
    special_conditions: i.special_conditions ?? null,
    custom_fields: i.custom_fields ?? null,
  };
  enforce(depositVerdict(terms));
  enforce(mobilityDurationVerdict(terms));
  return [
    { type: "LeaseCreated", data: { lease_id: command.lease_id, ...terms } },
    {
      type: "LeaseLesseeAdded",
      data: {
        lease_id: command.lease_id,
        association_id: command.association_id,
        lessee_id: primary_lessee_id,
        role: "Primary",
        start_date: i.start_date,
        end_date: i.end_date ?? null,
      },
    },
  ];
}

function update(command: Extract<LeaseCommand, { type: "UpdateLease" }>, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const changes = changedFields(lease.terms, command.input, LEASE_TERM_FIELDS);
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
  throwIfAny(details);
  // The deposit is judged when it is set, before signing, never during the lease (art. 22): a signed
  // lease reaches here only with free fields, which judge nothing.
  if (isDraft(lease)) {
    enforce(depositVerdict(merged));
    enforce(mobilityDurationVerdict(merged));
  }
  return [{ type: "LeaseUpdated", data: { lease_id: command.lease_id, changes } }];
}

const statusEventType = (from: LeaseStatus, to: LeaseStatus) => {
  if (to === "DRAFT") return "LeaseReturnedToDraft" as const;
  if (to === "ACTIVE" && from === "NOTICE") return "LeaseNoticeWithdrawn" as const;
  return (
    {
      PENDING_SIGNATURE: "LeaseSentForSignature",
      ACTIVE: "LeaseActivated",
      NOTICE: "LeaseNoticeGiven",
      FINALISATION: "LeaseFinalisationStarted",
      TERMINATED: "LeaseTerminated",
      EXPIRED: "LeaseExpired",
    } as const
  )[to];
};

function changeStatus(
  command: Extract<LeaseCommand, { type: "ChangeLeaseStatus" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (!TRANSITIONS[lease.status].includes(command.status)) {
    const allowed = TRANSITIONS[lease.status];
    throw conflict(
      `Lease ${command.lease_id} cannot go from ${lease.status} to ${command.status}` +
        (allowed.length ? ` (allowed: ${allowed.join(", ")})` : ` (${lease.status} is final)`),
    );
  }
  if (command.status === "ACTIVE" && lease.status !== "NOTICE" && activePrimaries(lease).length === 0) {
    throw conflict(`Lease ${command.lease_id} needs an active Primary tenant to be activated`);
  }
  const data: StatusChange = {
    lease_id: command.lease_id,
    effective_date: command.effective_date,
    reason: command.reason,
  };
  if (command.status === "NOTICE") {
    const facts = command.notice ?? DEFAULT_NOTICE;
    const verdict = noticeVerdict(lease.terms, command.effective_date, facts);
    enforce(verdict);
    const notice_end_date = verdict.details.notice_end_date as string | null;
    return [{ type: "LeaseNoticeGiven", data: { ...data, given_by: facts.given_by, notice_end_date } }];
  }
  return [{ type: statusEventType(lease.status, command.status), data }];
}

/**
 * A lease past its end date (DESIGN.md §6 Leases, docs/compliance.md "Term"): a bail mobilité or a
 * student's 9-month lease ends at its term (art. 25-14, 25-7): LeaseExpired. An unfurnished or
 * furnished lease without notice is renewed tacitly (art. 10: 3 years, 6 for a legal-person lessor;
 * art. 25-7: 1 year): one LeaseRenewed per term reached, the lease stays ACTIVE. Other leases are
 * left as they are (no renewal rule confirmed). Nothing when the term is not passed.
 */
function reachTerm(
  command: Extract<LeaseCommand, { type: "ReachLeaseTerm" }>,
  state: LeaseState,
): LeaseEvent[] {
  if (state.status !== "ACTIVE") return [];
  const { lease_type, end_date } = state.terms;
  if (end_date === null || end_date >= command.today) return [];
  if (endsAtTerm(lease_type))
    return [
      {
        type: "LeaseExpired",
        data: {
          lease_id: command.lease_id,
          effective_date: end_date,
          reason: `End of term: a ${lease_type} lease is not renewed (loi n° 89-462 art. ${lease_type === "MOBILITY" ? "25-14" : "25-7"})`,
        },
      },
    ];
  const months = renewalMonths(lease_type, command.lessor);
  if (months === null) return [];
  const events: LeaseEvent[] = [];
  let previous = end_date;
  while (previous < command.today) {
    const renewed_on = addDays(previous, 1);
    const next = termEnd(renewed_on, months);
    events.push({
      type: "LeaseRenewed",
      data: { lease_id: command.lease_id, renewed_on, previous_end_date: previous, end_date: next, months },
    });
    previous = next;
  }
  return events;
}

function addLessee(
  command: Extract<LeaseCommand, { type: "AddLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const i = command.input;
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    throw conflict(`Lease ${command.lease_id} is ${lease.status}`);
  const details: ErrorDetail[] = [];
  checkLessee(details, "lessee_id", i.lessee_id, command.lessee, i.role);
  const start = i.start_date ?? (isDraft(lease) ? lease.terms.start_date : command.today);
  checkDates(details, start, i.end_date ?? null);
  throwIfAny(details);
  if (lease.lessees[i.lessee_id])
    throw conflict(`Lessee ${i.lessee_id} is already on lease ${command.lease_id}`, [
      { field: "lessee_id", message: "Already associated" },
    ]);
  return [
    {
      type: "LeaseLesseeAdded",
      data: {
        lease_id: command.lease_id,
        association_id: command.association_id,
        lessee_id: i.lessee_id,
        role: i.role,
        start_date: start,
        end_date: i.end_date ?? null,
      },
    },
  ];
}

function association(lease: LiveLease, leaseId: string, lesseeId: string): Association {
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
  command: Extract<LeaseCommand, { type: "UpdateLeaseLessee" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const current = association(lease, command.lease_id, command.lessee_id);
  const i = command.input;
  const details: ErrorDetail[] = [];
  if (i.lessee_id !== undefined && i.lessee_id !== command.lessee_id)
    details.push({ field: "lessee_id", message: "Must be the lessee of the path" });
  if (i.lease_id !== undefined && i.lease_id !== command.lease_id)
    details.push({ field: "lease_id", message: "Must be the lease of the path" });
  if (i.ended !== undefined && i.ended !== current.ended)
    details.push({ field: "ended", message: "End a term with PUT .../end" });
  const changes = changedFields(current, i, ["role", "start_date", "end_date"] as const);
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
  command: Extract<LeaseCommand, { type: "EndLeaseLessee" }>,
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
      data: { lease_id: command.lease_id, lessee_id: command.lessee_id, end_date: command.end_date },
    },
  ];
}

function removeLessee(
  command: Extract<LeaseCommand, { type: "RemoveLeaseLessee" }>,
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

function changeRent(command: Extract<LeaseCommand, { type: "ChangeRent" }>, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const i = command.input;
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    throw conflict(`Lease ${command.lease_id} is ${lease.status}`);
  if (i.reason === "INDEX_REVISION" && !i.index)
    throw validationError("Invalid rent change", [
      { field: "index", message: "Required for an INDEX_REVISION" },
    ]);
  const current = lease.terms.rent_amount;
  if (i.reason === "INDEX_REVISION" && i.index)
    enforce(
      indexRevisionVerdict({
        lease_type: lease.terms.lease_type,
        index_type: i.index.type,
        effective_date: i.effective_date,
        last_index_revision_on: lease.last_index_revision_on ?? null,
      }),
    );
  if (i.index && command.published_irl) enforce(irlValuesVerdict(i.index, command.published_irl));
  if (i.reason === "INDEX_REVISION" && i.index)
    enforce(
      indexCapVerdict({
        current_rent: current,
        new_rent: i.rent_amount,
        reference_value: i.index.reference_value,
        new_value: i.index.new_value,
      }),
    );
  enforce(
    rentFreezeVerdict({
      current_rent: current,
      new_rent: i.rent_amount,
      effective_date: i.effective_date,
      dpe: command.dpe,
      period_start: periodStartOn(lease.terms, i.effective_date, command.lessor),
    }),
  );
  const charges = i.charges_amount === undefined ? lease.terms.charges_amount : i.charges_amount;
  return [
    {
      type: "LeaseRentChanged",
      data: {
        lease_id: command.lease_id,
        rent_amount: i.rent_amount,
        charges_amount: charges,
        previous_rent_amount: current,
        previous_charges_amount: lease.terms.charges_amount,
        effective_date: i.effective_date,
        reason: i.reason,
        index: i.index ?? null,
      },
    },
  ];
}

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

function amendmentOf(lease: LiveLease, command: { lease_id: string; amendment_id: string }): Amendment {
  const found = lease.amendments[command.amendment_id];
  if (!found) throw notFound("Amendment", command.amendment_id);
  return found;
}

function draftOnly(amendment: Amendment, id: string) {
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

function draftAmendment(
  command: Extract<LeaseCommand, { type: "DraftAmendment" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    throw conflict(`Lease ${command.lease_id} is ${lease.status}`);
  const i = command.input;
  const fields: AmendmentFields = {
    title: i.title,
    effective_date: i.effective_date,
    changes: i.changes,
    reason: i.reason ?? null,
  };
  checkAmendment(lease, fields);
  return [
    {
      type: "LeaseAmendmentDrafted",
      data: { lease_id: command.lease_id, amendment_id: command.amendment_id, ...fields },
    },
  ];
}

function reviseAmendment(
  command: Extract<LeaseCommand, { type: "ReviseAmendment" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const current = amendmentOf(lease, command);
  const { status: _s, lease_id: _l, ...input } = command.input;
  const changes = changedFields(current, input, ["title", "effective_date", "changes", "reason"] as const);
  draftOnly(current, command.amendment_id);
  checkAmendment(lease, { ...current, ...changes });
  return [
    {
      type: "LeaseAmendmentRevised",
      data: { lease_id: command.lease_id, amendment_id: command.amendment_id, changes },
    },
  ];
}

/** Validation applies the changes in the same commit: LeaseAmended for terms, LeaseRentChanged for rent. */
function changeAmendmentStatus(
  command: Extract<LeaseCommand, { type: "ChangeAmendmentStatus" }>,
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
  const events = [{ type, data: { ...ids, reason: command.reason } } as LeaseEvent];
  if (type !== "LeaseAmendmentValidated") return events;
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    throw conflict(`Lease ${command.lease_id} is ${lease.status}`);
  checkAmendment(lease, amendment);
  const { rent_amount, charges_amount, ...terms } = amendment.changes;
  const termChanges = changedFields(lease.terms, terms, [
    "end_date",
    "duration_months",
    "special_conditions",
  ] as const);
  if (Object.keys(termChanges).length > 0)
    events.push({ type: "LeaseAmended", data: { ...ids, changes: termChanges } });
  const newRent = rent_amount ?? lease.terms.rent_amount;
  const newCharges = charges_amount === undefined ? lease.terms.charges_amount : charges_amount;
  if (newRent !== lease.terms.rent_amount || newCharges !== lease.terms.charges_amount) {
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
  }
  return events;
}

function documentOf(lease: LiveLease, id: string): LeaseDocument {
  const found = lease.documents[id];
  if (!found) throw notFound("Document", id);
  return found;
}

function evolve(state: LeaseState, event: LeaseEvent): LeaseState {
  if (event.type === "LeaseCreated") {
    const { lease_id: _, ...terms } = event.data;
    return { status: "DRAFT", terms, lessees: {}, amendments: {}, documents: {} };
  }
  if (state.status === "absent" || state.status === "deleted") return state;
  switch (event.type) {
    case "LeaseUpdated":
      return { ...state, terms: { ...state.terms, ...event.data.changes } };
    case "LeaseDeleted":
      return { status: "deleted" };
    case "LeaseSentForSignature":
    case "LeaseReturnedToDraft":
    case "LeaseActivated":
    case "LeaseNoticeGiven":
    case "LeaseNoticeWithdrawn":
    case "LeaseFinalisationStarted":
    case "LeaseTerminated":
    case "LeaseExpired":
      return { ...state, status: STATUS_OF_EVENT[event.type] };
    case "LeaseLesseeAdded": {
      const { lease_id: _, ...a } = event.data;
      return { ...state, lessees: { ...state.lessees, [a.lessee_id]: { ...a, ended: false } } };
    }
    case "LeaseLesseeUpdated": {
      const a = state.lessees[event.data.lessee_id];
      return { ...state, lessees: { ...state.lessees, [a.lessee_id]: { ...a, ...event.data.changes } } };
    }
    case "LeaseLesseeEnded": {
      const a = state.lessees[event.data.lessee_id];
      return {
        ...state,
        lessees: { ...state.lessees, [a.lessee_id]: { ...a, end_date: event.data.end_date, ended: true } },
      };
    }
    case "LeaseLesseeRemoved": {
      const { [event.data.lessee_id]: _, ...rest } = state.lessees;
      return { ...state, lessees: rest };
    }
    case "LeaseRentChanged":
      return {
        ...state,
        ...(event.data.reason === "INDEX_REVISION"
          ? { last_index_revision_on: event.data.effective_date }
          : {}),
        terms: {
          ...state.terms,
          rent_amount: event.data.rent_amount,
          charges_amount: event.data.charges_amount,
        },
      };
    case "LeaseAmended":
      return { ...state, terms: { ...state.terms, ...event.data.changes } };
    case "LeaseRenewed":
      return { ...state, terms: { ...state.terms, end_date: event.data.end_date } };
    case "LeaseComplianceChecked": // a record of a check (compliance.ts); changes no term
      return state;
    case "LeaseDocumentAdded": {
      const { document_id, document_type, description } = event.data;
      return { ...state, documents: { ...state.documents, [document_id]: { document_type, description } } };
    }
    case "LeaseDocumentUpdated": {
      const d = state.documents[event.data.document_id];
      return {
        ...state,
        documents: { ...state.documents, [event.data.document_id]: { ...d, ...event.data.changes } },
      };
    }
    case "LeaseDocumentDeleted": {
      const { [event.data.document_id]: _, ...rest } = state.documents;
      return { ...state, documents: rest };
    }
    case "LeaseAmendmentDrafted": {
      const { lease_id: _, amendment_id, ...fields } = event.data;
      return {
        ...state,
        amendments: { ...state.amendments, [amendment_id]: { ...fields, status: "DRAFT" } },
      };
    }
    case "LeaseAmendmentRevised": {
      const a = state.amendments[event.data.amendment_id];
      return {
        ...state,
        amendments: { ...state.amendments, [event.data.amendment_id]: { ...a, ...event.data.changes } },
      };
    }
    case "LeaseAmendmentDeleted": {
      const { [event.data.amendment_id]: _, ...rest } = state.amendments;
      return { ...state, amendments: rest };
    }
    case "LeaseAmendmentSubmitted":
    case "LeaseAmendmentValidated":
    case "LeaseAmendmentRejected":
    case "LeaseAmendmentCancelled": {
      const a = state.amendments[event.data.amendment_id];
      const status = AMENDMENT_STATUS_OF_EVENT[event.type];
      return { ...state, amendments: { ...state.amendments, [event.data.amendment_id]: { ...a, status } } };
    }
  }
}

export const leaseDecider: Decider<LeaseState, LeaseCommand, LeaseEvent> = {
  initialState: () => ({ status: "absent" }),
  evolve,
  decide(command, state) {
    switch (command.type) {
      case "CreateLease":
        return create(command, state);
      case "UpdateLease":
        return update(command, state);
      case "DeleteLease": {
        const lease = live(state, command.lease_id);
        if (lease.status !== "DRAFT")
          throw conflict(`Lease ${command.lease_id} is ${lease.status}: only a DRAFT lease can be deleted`);
        return [
          { type: "LeaseDeleted", data: { lease_id: command.lease_id, estate_id: lease.terms.estate_id } },
        ];
      }
      case "ChangeLeaseStatus":
        return changeStatus(command, state);
      case "AddLeaseLessee":
        return addLessee(command, state);
      case "ReachLeaseTerm":
        return reachTerm(command, state);
      case "UpdateLeaseLessee":
        return updateLessee(command, state);
      case "EndLeaseLessee":
        return endLessee(command, state);
      case "RemoveLeaseLessee":
        return removeLessee(command, state);
      case "ChangeRent":
        return changeRent(command, state);
      case "DraftAmendment":
        return draftAmendment(command, state);
      case "ReviseAmendment":
        return reviseAmendment(command, state);
      case "DeleteAmendment": {
        const lease = live(state, command.lease_id);
        draftOnly(amendmentOf(lease, command), command.amendment_id);
        return [
          {
            type: "LeaseAmendmentDeleted",
            data: { lease_id: command.lease_id, amendment_id: command.amendment_id },
          },
        ];
      }
      case "ChangeAmendmentStatus":
        return changeAmendmentStatus(command, state);
      case "AddLeaseDocument":
        live(state, command.lease_id);
        return [{ type: "LeaseDocumentAdded", data: command.document }];
      case "UpdateLeaseDocument": {
        const current = documentOf(live(state, command.lease_id), command.document_id);
        const changes = changedFields(current, command.input, ["document_type", "description"] as const);
        return [
          {
            type: "LeaseDocumentUpdated",
            data: { lease_id: command.lease_id, document_id: command.document_id, changes },
          },
        ];
      }
      case "DeleteLeaseDocument":
        documentOf(live(state, command.lease_id), command.document_id);
        return [
          {
            type: "LeaseDocumentDeleted",
            data: { lease_id: command.lease_id, document_id: command.document_id },
          },
        ];
      default: {
        const exhaustive: never = command;
        return exhaustive;
      }
    }
  },
};
