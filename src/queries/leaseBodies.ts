import { z } from "zod";
import {
  AMENDMENT_STATUSES,
  LEASE_ROLES,
  LEASE_STATUSES,
  LEASE_TERM_FIELDS,
  RENT_CHANGE_REASONS,
} from "../events/leases.ts";
import { LEASE_STATUS_COLUMNS } from "../events/leaseView.ts";
import { timestamp as instant, rowShape } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { amendmentChanges, createLeaseSchema, date, documentFields, rentSchema } from "./leasesSchemas.ts";
import { pick } from "./places.ts";

/** What the Leases area's answers show: the columns picked from the read models and their schemas. */

const LEASE_RESPONSE = [
  "id",
  ...LEASE_TERM_FIELDS,
  ...LEASE_STATUS_COLUMNS,
  "created_at",
  "updated_at",
] as const;
export const ASSOCIATION_RESPONSE = [
  "id",
  "lease_id",
  "lessee_id",
  "role",
  "start_date",
  "end_date",
  "ended",
  "created_at",
  "updated_at",
] as const;

export const AMENDMENT_RESPONSE = [
  "id",
  "lease_id",
  "title",
  "effective_date",
  "changes",
  "reason",
  "status",
  "status_reason",
  "created_at",
  "updated_at",
] as const;

/** A document's columns; `amendment_id` null: the lease's own document. */
export const DOCUMENT_RESPONSE = [
  "id",
  "lease_id",
  "amendment_id",
  "document_type",
  "description",
  "filename",
  "content_type",
  "size",
  "sha256",
  "created_at",
  "updated_at",
] as const;

export const RENT_CHANGE_RESPONSE = [
  "id",
  "lease_id",
  "rent_amount",
  "charges_amount",
  "previous_rent_amount",
  "previous_charges_amount",
  "effective_date",
  "reason",
  "index",
  "revision",
  "created_at",
] as const;

export const leaseParams = z.strictObject({ lease_id: uuid() });
export const amendmentParams = z.strictObject({ lease_id: uuid(), amendment_id: uuid() });

export const documentParams = z.strictObject({ lease_id: uuid(), document_id: uuid() });
export const associationParams = z.strictObject({ lease_id: uuid(), lessee_id: uuid() });

export const toLease = (row: Row) => pick(row, LEASE_RESPONSE);

// Answers (docs/decisions.md, "Responses in the contract"): the columns the row mappers pick, in
// their order, typed by the request schemas the data came through.

const { primary_lessee_id: _primary, ...leaseTermShape } = rowShape(createLeaseSchema.shape);
const { status: _s, rent_regulation_compliance_status: _c, signed_at: _si, ...terms } = leaseTermShape;
const { notice_date: _n, notice_end_date: _ne, terminated_at: _t, revision: _r, ...leaseTerms } = terms;

/** A lease as the API shows it (LEASE_RESPONSE). */
export const leaseBody = z
  .strictObject({
    id: uuid(),
    ...leaseTerms,
    status: z.enum(LEASE_STATUSES),
    rent_regulation_compliance_status: z.string(),
    signed_at: date().nullable(),
    notice_date: date().nullable(),
    notice_end_date: date().nullable(),
    terminated_at: date().nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "Lease" });

/** A tenant (or guarantor) on a lease (ASSOCIATION_RESPONSE). */
export const associationBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    lessee_id: uuid(),
    role: z.enum(LEASE_ROLES),
    start_date: date(),
    end_date: date().nullable(),
    ended: z.boolean(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseTenant", description: "A tenant (or guarantor) on a lease" });

/** A lease document's metadata (DOCUMENT_RESPONSE); the bytes are at .../file. */
export const documentBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    amendment_id: uuid().nullable().describe("The amendment the document belongs to; null: the lease's own"),
    ...rowShape(documentFields),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseDocument", description: "A lease document's metadata; the bytes are at .../file" });

/** An amendment (AMENDMENT_RESPONSE). */
export const amendmentBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    title: z.string(),
    effective_date: date(),
    changes: amendmentChanges,
    reason: z.string().nullable(),
    status: z.enum(AMENDMENT_STATUSES),
    status_reason: z.string().nullable(),
    documents: z.array(documentBody).describe("The documents attached to the amendment, oldest first"),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseAmendment" });

/** With as_of: the lease as replayed, with its tenants then (leaseAsOf). */
export const leaseAnswer = leaseBody.extend({
  lessees: z
    .array(associationBody.omit({ lease_id: true, created_at: true, updated_at: true }))
    .optional()
    .describe("Only with as_of: the lease's tenants at that instant"),
  amendments: z
    .array(
      amendmentBody.omit({
        lease_id: true,
        status_reason: true,
        documents: true,
        created_at: true,
        updated_at: true,
      }),
    )
    .optional()
    .describe("Only with as_of: the lease's amendments at that instant"),
});

/** A rent change (the rent-history columns picked below). */
export const rentChangeBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    rent_amount: z.number(),
    charges_amount: z.number().nullable(),
    previous_rent_amount: z.number(),
    previous_charges_amount: z.number().nullable(),
    effective_date: date(),
    reason: z.enum(RENT_CHANGE_REASONS),
    index: rentSchema.shape.index.unwrap().nullable(),
    revision: z.number().int(),
    created_at: instant,
  })
  .meta({ id: "RentChange" });
