import { z } from "zod";
import { ESTATE_DIAGNOSTIC_TYPES } from "../events/estateDiagnostics.ts";
import { pageQuery } from "../platform/http/pagination.ts";
import { id, isoDate, isStorable, storable, typeError } from "../platform/http/schemas.ts";

const optionalText = (max: number) =>
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(isStorable, storable)
    .nullable()
    .optional();

export const diagnosticType = z.enum(ESTATE_DIAGNOSTIC_TYPES, {
  error: typeError(`must be one of ${ESTATE_DIAGNOSTIC_TYPES.join(", ")}`),
});

export const createEstateDiagnosticBody = z.strictObject({
  type: diagnosticType,
  diagnosis_date: isoDate,
  valid_until: isoDate.nullable().optional(),
  reference: optionalText(100),
  provider: optionalText(255),
  notes: z
    .string({ error: "must be a string" })
    .max(1000, { error: "must be at most 1000 characters" })
    .refine(isStorable, storable)
    .nullable()
    .optional(),
  media_id: id.nullable().optional(),
});
export type CreateEstateDiagnosticBody = z.infer<typeof createEstateDiagnosticBody>;

export const listEstateDiagnosticsQuery = z.strictObject({
  ...pageQuery,
  active: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
  type: diagnosticType.optional(),
});
