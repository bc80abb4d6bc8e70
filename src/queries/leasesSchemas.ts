import { z } from "zod";
import {
  AMENDMENT_STATUSES,
  CHARGE_SETTLEMENT_MODES,
  LEASE_ROLES,
  LEASE_STATUSES,
  LEASE_TYPES,
  PAYMENT_METHODS,
  PAYMENT_TERMS,
  RENT_CHANGE_REASONS,
  RENT_FREQUENCIES,
  REVISION_INDEX_TYPES,
  USAGE_TYPES,
} from "../events/leases.ts";
import { NOTICE_GIVERS } from "../law/notice.ts";
import { ignored, notNull, storableJson, text, uuid } from "../platform/http/schemas.ts";

/** Request bodies of the leases area (DESIGN.md §6 Leases). */

export const date = () => z.iso.date({ message: "Must be a real date YYYY-MM-DD" });

/** Euros: finite, >= 0, at most two decimals. */
export const money = () =>
  z
    .number()
    .finite()
    .min(0, "Must be >= 0")
    .max(1e9, "Must be at most 1000000000")
    .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, "At most two decimals (cents)");

export const quarter = () => z.string().regex(/^\d{4}-Q[1-4]$/, "Must be a quarter like 2025-Q2");
const indexValue = () => z.number().finite().gt(0, "Must be greater than 0").max(1e6);
const readOnly = (field: string, hint: string) =>
  z.never({ error: `${field} is read-only; ${hint}` }).optional();

/** Maintained by the service: sending them is a 400. */
const readOnlyFields = {
  status: readOnly("status", "change it with PUT /api/leases/{id}/status"),
  rent_regulation_compliance_status: readOnly("rent_regulation_compliance_status", "see compliance"),
  signed_at: readOnly("signed_at", "set by the status change"),
  notice_date: readOnly("notice_date", "set by the status change"),
  notice_end_date: readOnly("notice_end_date", "set by the status change"),
  terminated_at: readOnly("terminated_at", "set by the status change"),
  revision: readOnly("revision", "it is the ETag"),
};

export const optionalTerms = {
  usage_type: z.enum(USAGE_TYPES).nullish(),
  end_date: date().nullish(),
  duration_months: z.number().int("Must be an integer").min(1).max(1200).nullish(),
  charges_amount: money().nullish(),
  charge_settlement_mode: z.enum(CHARGE_SETTLEMENT_MODES).nullish(),
  deposit_amount: money().nullish(),
  rent_frequency: z.enum(RENT_FREQUENCIES).nullish(),
  payment_terms: z.enum(PAYMENT_TERMS).nullish(),
  payment_method: z.enum(PAYMENT_METHODS).nullish(),
  payment_day: z.number().int("Must be an integer").min(1).max(28).nullish(),
  revision_index_type: z.enum(REVISION_INDEX_TYPES).nullish(),
  revision_reference_quarter: quarter().nullish(),
  revision_reference_value: indexValue().nullish(),
  special_conditions: text(10_000).nullish(),
  custom_fields: storableJson(z.record(z.string(), z.unknown())).nullish(),
};

export const createLeaseSchema = z.strictObject({
  estate_id: uuid(),
  primary_lessee_id: uuid(),
  lease_type: z.enum(LEASE_TYPES),
  start_date: date(),
  rent_amount: money(),
  ...optionalTerms,
  ...readOnlyFields,
});

export const updateLeaseSchema = z.strictObject({
  estate_id: notNull(uuid(), "estate_id").optional(),
  lease_type: notNull(z.enum(LEASE_TYPES), "lease_type").optional(),
  start_date: notNull(date(), "start_date").optional(),
  rent_amount: notNull(money(), "rent_amount").optional(),
  ...optionalTerms,
  ...readOnlyFields,
});

export const statusSchema = z
  .strictObject({
    status: z.enum(LEASE_STATUSES),
    effective_date: date().optional(),
    reason: text(1000).nullish(),
    // Only with NOTICE (docs/leases.md, "Notice"): who gives it, a 1-month case of art. 15 I, a later end.
    given_by: z.enum(NOTICE_GIVERS).optional(),
    reduced_notice: z.boolean().optional(),
    notice_end_date: date().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.status === "NOTICE") return;
    for (const field of ["given_by", "reduced_notice", "notice_end_date"] as const)
      if (body[field] !== undefined)
        ctx.addIssue({ code: "custom", path: [field], message: "Only with status NOTICE" });
  });

export const addLesseeSchema = z.strictObject({
  lessee_id: uuid(),
  role: z.enum(LEASE_ROLES),
  start_date: date().optional(),
  end_date: date().nullish(),
});

export const updateAssociationSchema = z.strictObject({
  role: z.enum(LEASE_ROLES).optional(),
  start_date: date().optional(),
  end_date: date().nullish(),
  lessee_id: uuid().optional(),
  lease_id: uuid().optional(),
  ended: z.boolean().optional(),
});

export const endAssociationSchema = z.strictObject({ end_date: date().optional() });

export const rentSchema = z.strictObject({
  rent_amount: money(),
  charges_amount: money().nullish(),
  effective_date: date(),
  reason: z.enum(RENT_CHANGE_REASONS),
  index: z
    .strictObject({
      type: z.enum(REVISION_INDEX_TYPES),
      reference_quarter: quarter(),
      reference_value: indexValue(),
      new_quarter: quarter(),
      new_value: indexValue(),
    })
    .optional(),
});

export type CreateLeaseInput = z.output<typeof createLeaseSchema>;
export type UpdateLeaseInput = z.output<typeof updateLeaseSchema>;
export type StatusInput = z.output<typeof statusSchema>;
export type AddLesseeInput = z.output<typeof addLesseeSchema>;
export type UpdateAssociationInput = z.output<typeof updateAssociationSchema>;
export type RentInput = z.output<typeof rentSchema>;

export const amendmentChanges = z
  .strictObject({
    rent_amount: money().optional(),
    charges_amount: money().nullish(),
    end_date: date().nullish(),
    duration_months: z.number().int("Must be an integer").min(1).max(1200).nullish(),
    special_conditions: text(10_000).nullish(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), "Must change at least one term");

export const createAmendmentSchema = z.strictObject({
  title: text(255),
  effective_date: date(),
  changes: amendmentChanges,
  reason: text(2000).nullish(),
  status: readOnly("status", "change it with PUT .../amendments/{id}/status"),
  lease_id: uuid().optional(),
});

export const updateAmendmentSchema = z.strictObject({
  title: notNull(text(255), "title").optional(),
  effective_date: notNull(date(), "effective_date").optional(),
  changes: notNull(amendmentChanges, "changes").optional(),
  reason: text(2000).nullish(),
  status: readOnly("status", "change it with PUT .../amendments/{id}/status"),
  lease_id: uuid().optional(),
});

export const amendmentStatusSchema = z.strictObject({
  status: z.enum(AMENDMENT_STATUSES),
  reason: text(1000).nullish(),
});

export type CreateAmendmentInput = z.output<typeof createAmendmentSchema>;
export type UpdateAmendmentInput = z.output<typeof updateAmendmentSchema>;

export const documentFields = {
  document_type: text(100),
  description: text(2000).nullish(),
};

export const updateDocumentSchema = z.strictObject({
  document_type: notNull(documentFields.document_type, "document_type").optional(),
  description: documentFields.description,
  // What a GET shows and a PUT may send back: ignored, the upload decided them.
  lease_id: ignored(uuid()),
  filename: ignored(z.string()),
  content_type: ignored(z.string()),
  size: ignored(z.number()),
  sha256: ignored(z.string()),
});

export type UpdateDocumentInput = z.output<typeof updateDocumentSchema>;
