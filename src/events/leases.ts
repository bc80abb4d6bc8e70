import { LEASE_TYPES } from "../law/leaseTypes.ts";
import { allEventTypes } from "../platform/decider.ts";
import type { Upcaster } from "../platform/eventstore/upcast.ts";
import { LEASE_STATUS_OF_EVENT } from "./leaseEventGroups.ts";

/**
 * Leases (stream `lease-<uuid>`) and the occupancy reservation of an estate
 * (stream `lease_occupancy-<estate uuid>`), which keeps one occupying lease per estate on every
 * event store engine (docs/design.md §1: invariants across aggregates).
 */

export const leaseStream = (id: string) => `lease-${id}`;
export const occupancyStream = (estateId: string) => `lease_occupancy-${estateId}`;

/** The lease types are the law's (src/law/leaseTypes.ts). */
export { LEASE_TYPES };
export const USAGE_TYPES = ["RESIDENTIAL_ONLY", "MIXED_PROFESSIONAL"] as const;
export const RENT_FREQUENCIES = ["MONTHLY", "QUARTERLY", "ANNUALLY"] as const;
export const REVISION_INDEX_TYPES = ["IRL", "ICC", "ILAT", "ILC", "NONE"] as const;
export const CHARGE_SETTLEMENT_MODES = ["PROVISION", "PERIODIC", "FLAT_RATE"] as const;
export const PAYMENT_TERMS = ["TERME_A_ECHOIR", "TERME_ECHU"] as const;
export const PAYMENT_METHODS = [
  "VIREMENT_BANCAIRE",
  "PRELEVEMENT_AUTOMATIQUE",
  "CHEQUE",
  "ESPECES",
  "CARTE_BANCAIRE",
  "MANDAT_CASH",
  "AUTRE",
] as const;
export const LEASE_STATUSES = [
  "DRAFT",
  "PENDING_SIGNATURE",
  "ACTIVE",
  "NOTICE",
  "FINALISATION",
  "TERMINATED",
  "EXPIRED",
] as const;
export const LEASE_ROLES = ["Primary", "CoTenant", "Guarantor"] as const;
export const AMENDMENT_STATUSES = [
  "DRAFT",
  "PENDING_VALIDATION",
  "VALIDATED",
  "REJECTED",
  "CANCELLED",
] as const;
export type AmendmentStatus = (typeof AMENDMENT_STATUSES)[number];
/**
 * WORKS_INCREASE: after improvement works agreed by an express clause (loi n° 89-462 art. 17-1 II);
 * REEVALUATION: a manifestly under-valued rent re-evaluated at a renewal (art. 17-2).
 */
export const RENT_CHANGE_REASONS = [
  "INDEX_REVISION",
  "AGREEMENT",
  "RENT_CONTROL",
  "CORRECTION",
  "WORKS_INCREASE",
  "REEVALUATION",
] as const;

export type LeaseType = (typeof LEASE_TYPES)[number];
export type LeaseStatus = (typeof LEASE_STATUSES)[number];
export type LeaseRole = (typeof LEASE_ROLES)[number];
export type RentChangeReason = (typeof RENT_CHANGE_REASONS)[number];

/** Statuses in which a lease occupies its estate (docs/design.md §6 Estates). */
export const OCCUPYING_STATUSES: readonly LeaseStatus[] = ["ACTIVE", "NOTICE", "FINALISATION"];
export const TERMINAL_STATUSES: readonly LeaseStatus[] = ["TERMINATED", "EXPIRED"];

/** Every client-settable term of a lease, in the order of the read model's columns. */
export const LEASE_TERM_FIELDS = [
  "estate_id",
  "lease_type",
  "usage_type",
  "start_date",
  "end_date",
  "duration_months",
  "rent_amount",
  "charges_amount",
  "charge_settlement_mode",
  "deposit_amount",
  "rent_frequency",
  "payment_terms",
  "payment_method",
  "payment_day",
  "revision_index_type",
  "revision_reference_quarter",
  "revision_reference_value",
  "special_conditions",
  "custom_fields",
  "mobility_motive",
  "rent_complement",
  "rent_complement_justification",
  "takeover_date",
  "opening_balance",
] as const satisfies readonly (keyof LeaseTerms)[];

/** The client-settable terms of a lease; absent optional fields are null. */
export interface LeaseTerms {
  estate_id: string;
  lease_type: LeaseType;
  usage_type: (typeof USAGE_TYPES)[number] | null;
  start_date: string;
  end_date: string | null;
  duration_months: number | null;
  rent_amount: number;
  charges_amount: number | null;
  charge_settlement_mode: (typeof CHARGE_SETTLEMENT_MODES)[number] | null;
  deposit_amount: number | null;
  rent_frequency: (typeof RENT_FREQUENCIES)[number] | null;
  payment_terms: (typeof PAYMENT_TERMS)[number] | null;
  payment_method: (typeof PAYMENT_METHODS)[number] | null;
  payment_day: number | null;
  revision_index_type: (typeof REVISION_INDEX_TYPES)[number] | null;
  revision_reference_quarter: string | null;
  revision_reference_value: number | null;
  special_conditions: string | null;
  custom_fields: Record<string, unknown> | null;
  /** A bail mobilité's motive (art. 25-13); absent from leases created before 2026-12 (read as null). */
  mobility_motive: string | null;
  /** A complément de loyer under rent control (ELAN art. 140 III B) and what justifies it; absent before 2026-12. */
  rent_complement: number | null;
  rent_complement_justification: string | null;
  /**
   * A tenancy that began before the landlord used the service: the day the service takes it over
   * (rent calls, reminders and messages from then on) and what the tenant owed that day; absent before 2026-12.
   */
  takeover_date: string | null;
  opening_balance: number | null;
}

export interface RentIndex {
  type: (typeof REVISION_INDEX_TYPES)[number];
  reference_quarter: string;
  reference_value: number;
  new_quarter: string;
  new_value: number;
}

/** What an amendment changes on its lease (docs/design.md §6 Leases). */
export interface AmendmentChanges {
  rent_amount?: number;
  charges_amount?: number | null;
  end_date?: string | null;
  duration_months?: number | null;
  special_conditions?: string | null;
}

export interface AmendmentFields {
  title: string;
  effective_date: string;
  changes: AmendmentChanges;
  reason: string | null;
}

export interface AmendmentStatusChange {
  lease_id: string;
  amendment_id: string;
  reason: string | null;
}

/** Data of every status event: when it takes effect and why. */
export interface StatusChange {
  lease_id: string;
  effective_date: string;
  reason: string | null;
}

/**
 * A notice: who gave it and when it ends (docs/leases.md, "Notice"). Both are absent from notices
 * recorded before they were kept; `notice_end_date` is null outside loi n° 89-462 without a date.
 */
export interface NoticeGiven extends StatusChange {
  given_by?: "LESSEE" | "LESSOR";
  notice_end_date?: string | null;
  /**
   * The notice's id (POST .../notices, docs/moving.md "Notices"); absent from notices given through
   * PUT .../status before 2026-11-26, whose id is then the event's. `reason` is then the code.
   */
  notice_id?: string;
  /** A lessor's notice for sale of an unfurnished dwelling: the offer to the lessee runs until (art. 15 II). */
  sale_offer_until?: string;
  /** A DOMESTIC_VIOLENCE notice: the co-tenant victim's joint liability ends that day (art. 8-2). */
  solidarity_ends_on?: string;
}

/**
 * The end of a lease (docs/moving.md "Termination"). A termination through POST .../termination
 * also carries the keys' return, the exit report and whether it matched the entry one, and the day
 * the deposit is due from them (loi n° 89-462 art. 22); a status change to TERMINATED has none.
 */
export interface LeaseTermination extends StatusChange {
  keys_returned_on?: string;
  exit_report_id?: string | null;
  exit_report_matches?: boolean | null;
  deposit_due_on?: string;
  /** The day another lessee occupied the dwelling with the lessor's agreement, when known (art. 15 I). */
  relet_on?: string;
}

export type LeaseEvent =
  | { type: "LeaseCreated"; data: { lease_id: string } & LeaseTerms }
  /** Only the fields that changed (null = removed). */
  | { type: "LeaseUpdated"; data: { lease_id: string; changes: Partial<LeaseTerms> } }
  | { type: "LeaseDeleted"; data: { lease_id: string; estate_id: string } }
  | { type: "LeaseSentForSignature"; data: StatusChange }
  | { type: "LeaseReturnedToDraft"; data: StatusChange }
  | { type: "LeaseActivated"; data: StatusChange }
  | { type: "LeaseNoticeGiven"; data: NoticeGiven }
  | { type: "LeaseNoticeWithdrawn"; data: StatusChange }
  | { type: "LeaseFinalisationStarted"; data: StatusChange }
  | { type: "LeaseTerminated"; data: LeaseTermination }
  | { type: "LeaseExpired"; data: StatusChange }
  /**
   * A tacit renewal at the term (loi n° 89-462 art. 10, 25-7; src/law/leaseTypes.ts): from
   * `renewed_on` (the day after `previous_end_date`) for `months`, to `end_date`; the lease stays ACTIVE.
   */
  | {
      type: "LeaseRenewed";
      data: {
        lease_id: string;
        renewed_on: string;
        previous_end_date: string;
        end_date: string;
        months: number;
      };
    }
  | {
      type: "LeaseLesseeAdded";
      data: {
        lease_id: string;
        association_id: string;
        lessee_id: string;
        role: LeaseRole;
        start_date: string;
        end_date: string | null;
      };
    }
  | {
      type: "LeaseLesseeUpdated";
      data: {
        lease_id: string;
        lessee_id: string;
        changes: { role?: LeaseRole; start_date?: string; end_date?: string | null };
      };
    }
  /** Version 2: `ended_on` (version 1 said `end_date`, read through leaseUpcasters). */
  | { type: "LeaseLesseeEnded"; data: { lease_id: string; lessee_id: string; ended_on: string } }
  | { type: "LeaseLesseeRemoved"; data: { lease_id: string; lessee_id: string } }
  | { type: "LeaseAmendmentDrafted"; data: { lease_id: string; amendment_id: string } & AmendmentFields }
  | {
      type: "LeaseAmendmentRevised";
      data: { lease_id: string; amendment_id: string; changes: Partial<AmendmentFields> };
    }
  | { type: "LeaseAmendmentDeleted"; data: { lease_id: string; amendment_id: string } }
  | { type: "LeaseAmendmentSubmitted"; data: AmendmentStatusChange }
  | { type: "LeaseAmendmentValidated"; data: AmendmentStatusChange }
  | { type: "LeaseAmendmentRejected"; data: AmendmentStatusChange }
  | { type: "LeaseAmendmentCancelled"; data: AmendmentStatusChange }
  /** A validated amendment's changes to the terms (rent and charges go through LeaseRentChanged). */
  | {
      type: "LeaseAmended";
      data: { lease_id: string; amendment_id: string; changes: Partial<LeaseTerms> };
    }
  | {
      type: "LeaseDocumentAdded";
      data: {
        lease_id: string;
        document_id: string;
        document_type: string;
        description: string | null;
        filename: string;
        content_type: string;
        size: number;
        sha256: string;
        blob_key: string;
        /** The amendment the document belongs to (issue 24); absent in documents recorded before. */
        amendment_id?: string;
      };
    }
  | {
      type: "LeaseDocumentUpdated";
      data: {
        lease_id: string;
        document_id: string;
        changes: { document_type?: string; description?: string | null };
      };
    }
  | { type: "LeaseDocumentDeleted"; data: { lease_id: string; document_id: string } }
  | {
      type: "LeaseRentChanged";
      data: {
        lease_id: string;
        rent_amount: number;
        charges_amount: number | null;
        previous_rent_amount: number;
        previous_charges_amount: number | null;
        effective_date: string;
        reason: RentChangeReason;
        index: RentIndex | null;
      };
    }
  /** A compliance evaluation recorded (docs/compliance.md); checks as src/commands/leases/compliance.ts makes them. */
  | {
      type: "LeaseComplianceChecked";
      data: {
        lease_id: string;
        status: "COMPLIANT" | "NON_COMPLIANT" | "UNKNOWN";
        checked_at: string;
        checks: {
          rule: string;
          status: string;
          message: string;
          legal_reference: string;
          details: Record<string, unknown>;
        }[];
      };
    };

/**
 * The status each status event leads to, looked up by any event type's name (declared, typed, in
 * src/events/leaseEventGroups.ts: `LEASE_STATUS_OF_EVENT`).
 */
export const STATUS_OF_EVENT: Record<string, LeaseStatus> = LEASE_STATUS_OF_EVENT;

/**
 * When every event is a status change: the status each lease is left in (the last one per lease,
 * in log order), keyed by lower-cased lease id; else null. The lease feeds' fast path
 * (src/projections/estates.ts, src/projections/leases.ts).
 */
export function statusesAfter(
  events: readonly { type: string; data: { lease_id: string } }[],
): Map<string, LeaseStatus> | null {
  if (!events.every((e) => e.type in STATUS_OF_EVENT)) return null;
  const last = new Map<string, LeaseStatus>();
  for (const e of events) last.set(e.data.lease_id.toLowerCase(), STATUS_OF_EVENT[e.type]);
  return last;
}

/**
 * Old shapes of lease events read current (docs/audit.md, "Upcasting"). LeaseLesseeEnded v1 named
 * the tenant's last day `end_date`, as the association's field, which read as the lease's end; v2
 * says `ended_on`.
 */
export const leaseUpcasters: Upcaster[] = [
  {
    type: "LeaseLesseeEnded",
    from: 1,
    upcast: ({ end_date, ...rest }: { lease_id: string; lessee_id: string; end_date: string }) => ({
      ...rest,
      ended_on: end_date,
    }),
  },
];

/** Every lease event type, checked both ways by the compiler (allEventTypes): none missing, none unknown. */
export const leaseEventTypes = allEventTypes<LeaseEvent["type"]>()([
  "LeaseCreated",
  "LeaseUpdated",
  "LeaseDeleted",
  "LeaseSentForSignature",
  "LeaseReturnedToDraft",
  "LeaseActivated",
  "LeaseNoticeGiven",
  "LeaseNoticeWithdrawn",
  "LeaseFinalisationStarted",
  "LeaseTerminated",
  "LeaseExpired",
  "LeaseRenewed",
  "LeaseLesseeAdded",
  "LeaseLesseeUpdated",
  "LeaseLesseeEnded",
  "LeaseLesseeRemoved",
  "LeaseRentChanged",
  "LeaseAmendmentDrafted",
  "LeaseAmendmentRevised",
  "LeaseAmendmentDeleted",
  "LeaseAmendmentSubmitted",
  "LeaseAmendmentValidated",
  "LeaseAmendmentRejected",
  "LeaseAmendmentCancelled",
  "LeaseAmended",
  "LeaseDocumentAdded",
  "LeaseDocumentUpdated",
  "LeaseDocumentDeleted",
  "LeaseComplianceChecked",
]);

/**
 * The occupancy reservation of an estate. `lease_revision` is the revision the lease stream
 * stood at before its activation was appended: while the lease stream is still there, the
 * activation may be in flight (engines without multi-stream commits) and the reservation binds.
 */
export type OccupancyEvent =
  | { type: "EstateOccupancyReserved"; data: { estate_id: string; lease_id: string; lease_revision: number } }
  | { type: "EstateOccupancyReleased"; data: { estate_id: string; lease_id: string } };
