import { z } from "zod";
import { type OwnerFields, ownerCategories } from "../../events/owners.ts";
import type { ErrorDetail } from "../../platform/errors.ts";
import {
  BIC_PATTERN,
  emailProblem,
  ibanProblem,
  isStorable,
  normalizeIban,
  notNull,
  storableJson,
  text,
} from "../../platform/http/schemas.ts";

// Email, IBAN and BIC follow the same rules as lessees (docs/architecture.md §6): one implementation.

export const isValidEmail = (email: string) => emailProblem(email) === null;
export const isValidIban = (iban: string) => ibanProblem(iban) === null;
export const isValidBic = (bic: string) => BIC_PATTERN.test(bic);

const problemCheck = (problem: (v: string) => string | null) => (value: string, ctx: z.RefinementCtx) => {
  const message = problem(value);
  if (message) ctx.addIssue({ code: "custom", message });
};

export const emailSchema = z
  .string()
  .trim()
  .min(1, "Must not be empty")
  .max(254, "Must be at most 254 characters")
  .refine(isStorable, "Invalid character")
  .superRefine(problemCheck(emailProblem));
export const ibanSchema = z
  .string()
  .max(100, "Must be 15 to 34 characters")
  .overwrite(normalizeIban)
  .superRefine(problemCheck(ibanProblem));
export const bicSchema = z
  .string()
  .max(100, "Must be 8 or 11 characters")
  .overwrite((v) => v.replace(/\s+/g, "").toUpperCase())
  .regex(
    BIC_PATTERN,
    "Must be 8 or 11 characters: 4 letters, 2 country letters, 2 letters or digits, optional 3",
  );

const optionalFields = {
  first_name: text(255).nullish(),
  last_name: text(255).nullish(),
  legal_name: text(255).nullish(),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ().-]{4,30}$/, "Invalid phone number")
    .nullish(),
  address_street: text(255).nullish(),
  address_postal_code: text(20).nullish(),
  address_city: text(255).nullish(),
  address_country: text(100).nullish(),
  iban: ibanSchema.nullish(),
  bic: bicSchema.nullish(),
  custom_fields: storableJson(z.record(z.string(), z.unknown())).nullish(),
};

const category = z.enum(ownerCategories, { error: "Invalid owner category: individual or company" });

export const createOwnerSchema = z.strictObject({ category, email: emailSchema, ...optionalFields });
export const updateOwnerSchema = z.strictObject({
  category: notNull(category, "category").optional(),
  email: notNull(emailSchema, "email").optional(),
  ...optionalFields,
});

export type CreateOwnerInput = z.output<typeof createOwnerSchema>;
export type UpdateOwnerInput = z.output<typeof updateOwnerSchema>;

/** Category rules on the full (merged) owner: names for individuals, a legal name for companies. */
export function ownerCategoryDetails(owner: OwnerFields): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (owner.category === "individual") {
    if (!owner.first_name) details.push({ field: "first_name", message: "Required for an individual owner" });
    if (!owner.last_name) details.push({ field: "last_name", message: "Required for an individual owner" });
    if (owner.legal_name)
      details.push({ field: "legal_name", message: "Must be null for an individual owner" });
  } else if (!owner.legal_name) {
    details.push({ field: "legal_name", message: "Required for a company owner" });
  }
  return details;
}
