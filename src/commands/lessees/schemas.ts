import { z } from "zod";
import { LESSEE_FIELDS, type LesseeCategory, type LesseeData } from "../../events/lessees.ts";
import type { ErrorDetail } from "../../platform/errors.ts";
import {
  categorySchema,
  type createLesseeSchema,
  emailSchema,
  INVALID_CATEGORY,
  optionalFields,
} from "../../queries/lesseesSchemas.ts";

/**
 * What only the lessee commands check: the update body, and the rules that depend on the category,
 * which run on the merged result of an update too (in the decider).
 */

export const INVALID_DATA = "Invalid lessee data";
export const MAX_BULK_ITEMS = 1000;

/** Any subset; omitted keeps, null removes. Category and email cannot be removed. */
export const updateLesseeSchema = z.strictObject({
  category: categorySchema.optional(),
  email: emailSchema().optional(),
  ...optionalFields,
});

export type LesseeUpdateInput = z.output<typeof updateLesseeSchema>;

/** Fields that do not apply for a category: sent non-null, they are a 400 on that field. */
const FORBIDDEN: Record<LesseeCategory, readonly (keyof LesseeData)[]> = {
  individual: ["legal_name"],
  "company/other": ["title", "birth_date", "birth_place", "employer_name"],
  guarantor: [],
};

/** The rules that depend on the category (docs/architecture.md §6), on a complete lessee. */
export function categoryRuleDetails(lessee: LesseeData, prefix = ""): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const missing = (field: keyof LesseeData) => lessee[field] === null || lessee[field] === undefined;
  const category = lessee.category;
  if (missing("email")) details.push({ field: at("email"), message: "Required" });
  if (category === "individual") {
    for (const f of ["first_name", "last_name"] as const) {
      if (missing(f)) details.push({ field: at(f), message: "Required for an individual" });
    }
  } else if (category === "company/other") {
    if (missing("legal_name")) details.push({ field: at("legal_name"), message: "Required for a company" });
  } else if (category === "guarantor") {
    const hasNames = !missing("first_name") && !missing("last_name");
    if (!hasNames && missing("legal_name")) {
      for (const f of ["first_name", "last_name"] as const) {
        if (missing(f)) {
          details.push({ field: at(f), message: "Required for a guarantor without legal_name" });
        }
      }
      details.push({
        field: at("legal_name"),
        message: "Required for a guarantor without first_name and last_name",
      });
    }
  }
  for (const f of FORBIDDEN[category] ?? []) {
    if (!missing(f)) {
      details.push({ field: at(f), message: `Must be null for category ${category}` });
    }
  }
  return details;
}

/** Complete data from a validated create body: absent optional fields become null. */
export function toLesseeData(input: z.output<typeof createLesseeSchema>): LesseeData {
  const data = {} as Record<string, unknown>;
  for (const field of LESSEE_FIELDS) data[field] = (input as Record<string, unknown>)[field] ?? null;
  return data as unknown as LesseeData;
}

/** A category problem is "Invalid lessee category", any other "Invalid lessee data" (docs/decisions.md). */
export const invalidBodyMessage = (details: ErrorDetail[]) =>
  details.some((d) => /^(\[\d+\]\.)?category$/.test(d.field)) ? INVALID_CATEGORY : INVALID_DATA;
