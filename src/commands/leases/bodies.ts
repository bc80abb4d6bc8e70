import { LEASE_TERM_FIELDS, type LeaseTerms } from "../../events/leases.ts";
import type { CreateLeaseInput, RentInput } from "../../queries/leasesSchemas.ts";
import type { RentChange } from "./decide/rent.ts";
import type {
  AddLesseeInput,
  CreateAmendmentInput,
  UpdateAmendmentInput,
  UpdateAssociationInput,
  UpdateDocumentInput,
  UpdateLeaseInput,
} from "./schemas.ts";

/**
 * Request bodies to the decider's domain commands (./decider.ts): the routes parse with zod, map
 * here, and the decider never sees a body. Absent optional terms are null on a new lease.
 */

export function leaseTermsOf(body: CreateLeaseInput): LeaseTerms {
  const terms = Object.fromEntries(LEASE_TERM_FIELDS.map((f) => [f, body[f] ?? null]));
  return terms as unknown as LeaseTerms;
}

/** The terms a PUT asks for: absent keeps, null removes (the read-only fields are never set). */
export function termChangesOf(body: UpdateLeaseInput): Partial<LeaseTerms> {
  const changes: Record<string, unknown> = {};
  for (const f of LEASE_TERM_FIELDS) if (body[f] !== undefined) changes[f] = body[f];
  return changes as Partial<LeaseTerms>;
}

export const rentChangeOf = ({
  rent_amount,
  charges_amount,
  effective_date,
  reason,
  index,
  requested_on,
  works,
  reevaluation,
}: RentInput) =>
  ({
    rent_amount,
    charges_amount,
    effective_date,
    reason,
    index,
    ...(requested_on === undefined ? {} : { requested_on }),
    ...(works === undefined ? {} : { works }),
    ...(reevaluation === undefined ? {} : { reevaluation }),
  }) satisfies RentChange;

export const tenantTermOf = ({ lessee_id, role, start_date, end_date }: AddLesseeInput) => ({
  lessee_id,
  role,
  start_date,
  end_date,
});

export function tenantChangesOf(body: UpdateAssociationInput) {
  const { role, start_date, end_date, lessee_id, lease_id, ended } = body;
  return { changes: { role, start_date, end_date }, stated: { lessee_id, lease_id, ended } };
}

export const amendmentOf = ({ title, effective_date, changes, reason }: CreateAmendmentInput) => ({
  title,
  effective_date,
  changes,
  reason: reason ?? null,
});

export const amendmentChangesOf = ({ title, effective_date, changes, reason }: UpdateAmendmentInput) => ({
  title,
  effective_date,
  changes,
  reason,
});

export const documentChangesOf = ({ document_type, description }: UpdateDocumentInput) => ({
  document_type,
  description,
});
