import {
  AMENDMENT_STATUS_OF_EVENT,
  isLeaseAmendmentEvent,
  isLeaseDocumentEvent,
  isLeaseStatusEvent,
  isLeaseTenantEvent,
  LEASE_STATUS_OF_EVENT,
  type LeaseAmendmentEvent,
  type LeaseDocumentEvent,
  type LeaseStatusEvent,
  type LeaseTenantEvent,
  type LeaseEventOf as Of,
} from "./leaseEventGroups.ts";
import {
  type AmendmentFields,
  type AmendmentStatus,
  LEASE_TERM_FIELDS,
  type LeaseEvent,
  type LeaseRole,
  type LeaseStatus,
  type LeaseTerms,
} from "./leases.ts";

/**
 * The one fold of a lease stream (docs/leases.md, "One fold"): the decider decides on it, the
 * command answers, `as_of` replay and snapshots show it, the `leases` read model's row is it
 * (src/projections/leases.ts). A new event type fails `tsc` here until it is folded.
 */

export interface LeaseTenant {
  association_id: string;
  lessee_id: string;
  role: LeaseRole;
  start_date: string;
  end_date: string | null;
  ended: boolean;
}

export interface LeaseAmendment extends AmendmentFields {
  status: AmendmentStatus;
}

export interface LeaseDocument {
  document_type: string;
  description: string | null;
  /** The amendment the document belongs to; absent: the lease's own (and every document before 2026-11). */
  amendment_id?: string;
}

export interface LeaseView {
  status: LeaseStatus;
  terms: LeaseTerms;
  rent_regulation_compliance_status: "COMPLIANT" | "NON_COMPLIANT" | "UNKNOWN";
  signed_at: string | null;
  notice_date: string | null;
  notice_end_date: string | null;
  /** Who gave the notice in progress (null: none, or one recorded before it was kept); not a column. */
  notice_given_by: "LESSEE" | "LESSOR" | null;
  terminated_at: string | null;
  /** By lessee id: a lessee holds at most one association per lease. */
  lessees: Record<string, LeaseTenant>;
  amendments: Record<string, LeaseAmendment>;
  documents: Record<string, LeaseDocument>;
  /** The effective date of the last index revision (art. 17-1 I: at most once a year); absent: none. */
  last_index_revision_on?: string;
  /** The new quarter of the last applied IRL revision: the next one's reference (art. 17-1 I); absent: none. */
  index_reference_quarter?: string;
}

export type LeaseViewState = { status: "absent" } | { status: "deleted" } | LeaseView;

export const ABSENT_LEASE: LeaseViewState = { status: "absent" };

export const isLiveLease = (state: LeaseViewState): state is LeaseView =>
  state.status !== "absent" && state.status !== "deleted";

/** `record` with member `id` changed by `change`; unchanged when there is no such member. */
function withMember<T>(record: Record<string, T>, id: string, change: (member: T) => T): Record<string, T> {
  const member = record[id];
  return member === undefined ? record : { ...record, [id]: change(member) };
}

function without<T>(record: Record<string, T>, id: string): Record<string, T> {
  const { [id]: _, ...rest } = record;
  return rest;
}

/** The terms an event carries, field by field: only the terms, whatever else its data holds. */
function termsOf(data: LeaseTerms): LeaseTerms {
  const terms: Record<string, unknown> = {};
  // A term added later (mobility_motive) is absent from older events: null.
  for (const f of LEASE_TERM_FIELDS) terms[f] = data[f] ?? null;
  return terms as unknown as LeaseTerms;
}

function created(event: Extract<LeaseEvent, { type: "LeaseCreated" }>): LeaseView {
  const terms = termsOf(event.data);
  return {
    status: "DRAFT",
    terms,
    rent_regulation_compliance_status: "UNKNOWN",
    signed_at: null,
    notice_date: null,
    notice_end_date: null,
    notice_given_by: null,
    terminated_at: null,
    lessees: {},
    amendments: {},
    documents: {},
  };
}

function addedDocument(event: Extract<LeaseEvent, { type: "LeaseDocumentAdded" }>): LeaseDocument {
  const { document_type, description, amendment_id } = event.data;
  // Documents recorded before amendments had any carry no amendment_id (upcast: the lease's own).
  return amendment_id ? { document_type, description, amendment_id } : { document_type, description };
}

/** A status event: the status and the dates the read model shows with it. */
function withStatus(lease: LeaseView, event: Of<LeaseStatusEvent>): LeaseView {
  switch (event.type) {
    case "LeaseActivated":
      return { ...lease, status: "ACTIVE", signed_at: lease.signed_at ?? event.data.effective_date };
    case "LeaseNoticeGiven":
      return {
        ...lease,
        status: "NOTICE",
        notice_date: event.data.effective_date,
        notice_end_date: event.data.notice_end_date ?? null,
        notice_given_by: event.data.given_by ?? null,
      };
    case "LeaseNoticeWithdrawn":
      return { ...lease, status: "ACTIVE", notice_date: null, notice_end_date: null, notice_given_by: null };
    case "LeaseTerminated":
    case "LeaseExpired":
      return {
        ...lease,
        status: LEASE_STATUS_OF_EVENT[event.type],
        terminated_at: event.data.effective_date,
      };
    case "LeaseSentForSignature":
    case "LeaseReturnedToDraft":
    case "LeaseFinalisationStarted":
      return { ...lease, status: LEASE_STATUS_OF_EVENT[event.type] };
  }
}

function tenantsAfter(lessees: LeaseView["lessees"], event: Of<LeaseTenantEvent>): LeaseView["lessees"] {
  switch (event.type) {
    case "LeaseLesseeAdded": {
      const { lease_id: _, ...a } = event.data;
      return { ...lessees, [a.lessee_id]: { ...a, ended: false } };
    }
    case "LeaseLesseeUpdated":
      return withMember(lessees, event.data.lessee_id, (a) => ({ ...a, ...event.data.changes }));
    case "LeaseLesseeEnded":
      return withMember(lessees, event.data.lessee_id, (a) => ({
        ...a,
        end_date: event.data.ended_on,
        ended: true,
      }));
    case "LeaseLesseeRemoved":
      return without(lessees, event.data.lessee_id);
  }
}

function amendmentsAfter(
  amendments: LeaseView["amendments"],
  event: Of<LeaseAmendmentEvent>,
): LeaseView["amendments"] {
  switch (event.type) {
    case "LeaseAmendmentDrafted": {
      const { lease_id: _, amendment_id, ...fields } = event.data;
      return { ...amendments, [amendment_id]: { ...fields, status: "DRAFT" } };
    }
    case "LeaseAmendmentRevised":
      return withMember(amendments, event.data.amendment_id, (a) => ({ ...a, ...event.data.changes }));
    case "LeaseAmendmentDeleted":
      return without(amendments, event.data.amendment_id);
    case "LeaseAmendmentSubmitted":
    case "LeaseAmendmentValidated":
    case "LeaseAmendmentRejected":
    case "LeaseAmendmentCancelled": {
      const status = AMENDMENT_STATUS_OF_EVENT[event.type];
      return withMember(amendments, event.data.amendment_id, (a) => ({ ...a, status }));
    }
  }
}

function documentsAfter(
  documents: LeaseView["documents"],
  event: Of<LeaseDocumentEvent>,
): LeaseView["documents"] {
  switch (event.type) {
    case "LeaseDocumentAdded":
      return { ...documents, [event.data.document_id]: addedDocument(event) };
    case "LeaseDocumentUpdated":
      return withMember(documents, event.data.document_id, (d) => ({ ...d, ...event.data.changes }));
    case "LeaseDocumentDeleted":
      return without(documents, event.data.document_id);
  }
}

function withRent(lease: LeaseView, event: Of<"LeaseRentChanged">): LeaseView {
  const { rent_amount, charges_amount, reason, effective_date, index } = event.data;
  return {
    ...lease,
    ...(reason === "INDEX_REVISION" ? { last_index_revision_on: effective_date } : {}),
    ...(reason === "INDEX_REVISION" && index?.type === "IRL"
      ? { index_reference_quarter: index.new_quarter }
      : {}),
    terms: { ...lease.terms, rent_amount, charges_amount },
  };
}

/** The lease after one event: exhaustive, so a new event type must be folded here first. */
export function evolveLease(state: LeaseViewState, event: LeaseEvent): LeaseViewState {
  if (event.type === "LeaseCreated") return created(event);
  if (!isLiveLease(state)) return state;
  const lease = state;
  // The groups first (src/events/leaseEventGroups.ts); the switch has the other types.
  if (isLeaseStatusEvent(event)) return withStatus(lease, event);
  if (isLeaseTenantEvent(event)) return { ...lease, lessees: tenantsAfter(lease.lessees, event) };
  if (isLeaseAmendmentEvent(event)) return { ...lease, amendments: amendmentsAfter(lease.amendments, event) };
  if (isLeaseDocumentEvent(event)) return { ...lease, documents: documentsAfter(lease.documents, event) };
  switch (event.type) {
    case "LeaseUpdated":
    case "LeaseAmended":
      return { ...lease, terms: { ...lease.terms, ...event.data.changes } };
    case "LeaseRenewed":
      return { ...lease, terms: { ...lease.terms, end_date: event.data.end_date } };
    case "LeaseDeleted":
      return { status: "deleted" };
    case "LeaseRentChanged":
      return withRent(lease, event);
    case "LeaseComplianceChecked":
      return { ...lease, rent_regulation_compliance_status: event.data.status };
    default: {
      const unfolded: never = event;
      return unfolded;
    }
  }
}

/** The status columns the view gives besides the terms, in the read model's and the answers' order. */
export const LEASE_STATUS_COLUMNS = [
  "status",
  "rent_regulation_compliance_status",
  "signed_at",
  "notice_date",
  "notice_end_date",
  "terminated_at",
] as const satisfies readonly (keyof LeaseView)[];

/** The columns of the `leases` read model the view gives (src/projections/leases.ts adds its stamps). */
export function leaseColumnsOf(lease: LeaseView) {
  return {
    ...lease.terms,
    status: lease.status,
    rent_regulation_compliance_status: lease.rent_regulation_compliance_status,
    signed_at: lease.signed_at,
    notice_date: lease.notice_date,
    notice_end_date: lease.notice_end_date,
    terminated_at: lease.terminated_at,
  };
}
