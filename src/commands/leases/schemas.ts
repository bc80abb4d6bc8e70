import { z } from "zod";
import { AMENDMENT_STATUSES, LEASE_ROLES, LEASE_STATUSES, LEASE_TYPES } from "../../events/leases.ts";
import { NOTICE_GIVERS } from "../../law/notice.ts";
import { ignored, notNull, text, uuid } from "../../platform/http/schemas.ts";
import {
  amendmentChanges,
  date,
  documentFields,
  money,
  optionalTerms,
  readOnly,
  readOnlyFields,
} from "../../queries/leasesSchemas.ts";

/** Request bodies of the lease commands only; those the answers show are in src/queries/leasesSchemas.ts. */

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

export type UpdateLeaseInput = z.output<typeof updateLeaseSchema>;
export type StatusInput = z.output<typeof statusSchema>;
export type AddLesseeInput = z.output<typeof addLesseeSchema>;
export type UpdateAssociationInput = z.output<typeof updateAssociationSchema>;

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

export const updateDocumentSchema = z.strictObject({
  document_type: notNull(documentFields.document_type, "document_type").optional(),
  description: documentFields.description,
  // What a GET shows and a PUT may send back: ignored, the upload decided them.
  lease_id: ignored(uuid()),
  // Attached at upload only (docs/leases.md, "Documents of an amendment").
  amendment_id: ignored(uuid().nullable()),
  filename: ignored(z.string()),
  content_type: ignored(z.string()),
  size: ignored(z.number()),
  sha256: ignored(z.string()),
});

export type UpdateDocumentInput = z.output<typeof updateDocumentSchema>;
