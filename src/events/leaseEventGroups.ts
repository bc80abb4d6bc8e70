import type { AmendmentStatus, LeaseEvent, LeaseStatus } from "./leases.ts";

/**
 * The lease event types in the groups every lease fold handles alike (src/events/leaseView.ts,
 * src/projections/leases.ts, src/projections/estates.ts): declared once, so a fold names a group
 * instead of repeating its types, and a type added to a group reaches every fold.
 */

/** One lease event type's event. */
export type LeaseEventOf<T extends LeaseEvent["type"]> = Extract<LeaseEvent, { type: T }>;

/** The status events and the status each leads to (docs/leases.md, "Statuses"). */
export const LEASE_STATUS_OF_EVENT = {
  LeaseSentForSignature: "PENDING_SIGNATURE",
  LeaseReturnedToDraft: "DRAFT",
  LeaseActivated: "ACTIVE",
  LeaseNoticeGiven: "NOTICE",
  LeaseNoticeWithdrawn: "ACTIVE",
  LeaseFinalisationStarted: "FINALISATION",
  LeaseTerminated: "TERMINATED",
  LeaseExpired: "EXPIRED",
} as const satisfies Partial<Record<LeaseEvent["type"], LeaseStatus>>;

export type LeaseStatusEvent = keyof typeof LEASE_STATUS_OF_EVENT;
export const LEASE_STATUS_EVENTS = Object.keys(LEASE_STATUS_OF_EVENT) as LeaseStatusEvent[];

/** The amendment events; those that change an amendment's status, and to what. */
export const LEASE_AMENDMENT_EVENTS = [
  "LeaseAmendmentDrafted",
  "LeaseAmendmentRevised",
  "LeaseAmendmentDeleted",
  "LeaseAmendmentSubmitted",
  "LeaseAmendmentValidated",
  "LeaseAmendmentRejected",
  "LeaseAmendmentCancelled",
] as const satisfies readonly LeaseEvent["type"][];
export type LeaseAmendmentEvent = (typeof LEASE_AMENDMENT_EVENTS)[number];

export const AMENDMENT_STATUS_OF_EVENT = {
  LeaseAmendmentSubmitted: "PENDING_VALIDATION",
  LeaseAmendmentValidated: "VALIDATED",
  LeaseAmendmentRejected: "REJECTED",
  LeaseAmendmentCancelled: "CANCELLED",
} as const satisfies Partial<Record<LeaseAmendmentEvent, AmendmentStatus>>;

/** The events of a lease's tenants (lease-lessee associations). */
export const LEASE_TENANT_EVENTS = [
  "LeaseLesseeAdded",
  "LeaseLesseeUpdated",
  "LeaseLesseeEnded",
  "LeaseLesseeRemoved",
] as const satisfies readonly LeaseEvent["type"][];
export type LeaseTenantEvent = (typeof LEASE_TENANT_EVENTS)[number];

/** The events of a lease's documents. */
export const LEASE_DOCUMENT_EVENTS = [
  "LeaseDocumentAdded",
  "LeaseDocumentUpdated",
  "LeaseDocumentDeleted",
] as const satisfies readonly LeaseEvent["type"][];
export type LeaseDocumentEvent = (typeof LEASE_DOCUMENT_EVENTS)[number];

/** A guard narrowing an event (plain or recorded) to a group; the others stay in the switch after it. */
const guard =
  <T extends string>(types: readonly T[]) =>
  <E extends { type: string }>(event: E): event is Extract<E, { type: T }> =>
    (types as readonly string[]).includes(event.type);

export const isLeaseStatusEvent = guard(LEASE_STATUS_EVENTS);
export const isLeaseAmendmentEvent = guard(LEASE_AMENDMENT_EVENTS);
export const isLeaseTenantEvent = guard(LEASE_TENANT_EVENTS);
export const isLeaseDocumentEvent = guard(LEASE_DOCUMENT_EVENTS);
