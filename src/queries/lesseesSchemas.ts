import { z } from "zod";
import { LESSEE_CATEGORIES, LESSEE_FIELDS, type LesseeCategory, type LesseeData } from "../events/lessees.ts";
import type { ErrorDetail } from "../platform/errors.ts";
import { BIC_PATTERN, emailProblem, ibanProblem, normalizeIban } from "../platform/http/schemas.ts";

/**
 * Request bodies of the Lessees area (docs/architecture.md §6 Lessees). The zod schemas check
 * each field on its own; `categoryRuleDetails` checks what depends on the category, and runs
 * on the merged result of an update too (in the decider).
 */

export const INVALID_DATA = "Invalid lessee data";
export const INVALID_CATEGORY = "Invalid lessee category";
export const MAX_BULK_ITEMS = 1000;

// Generous bounds that keep read-model indexes and pages sane; the spec sets none.
const TEXT_MAX = 255;
const EMAIL_MAX = 254;

const text = () => z.string().trim().max(TEXT_MAX, `Must be at most ${TEXT_MAX} characters`);
const name = () => text().min(1, "Must not be empty");
const optional = <S extends z.ZodType>(schema: S) => schema.nullable().optional();

/** A real calendar date YYYY-MM-DD (2023-02-29 fails). */
export const dateSchema = () => z.iso.date({ message: "Must be a real date YYYY-MM-DD" });

const emailSchema = () =>
  z
    .string()
    .trim()
    .min(1, "Must not be empty")
    .max(EMAIL_MAX, `Must be at most ${EMAIL_MAX} characters`)
    .superRefine((email, ctx) => {
      const problem = emailProblem(email);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });

const ibanSchema = () =>
  z
    .string()
    .max(100, "Must be 15 to 34 characters")
    .overwrite(normalizeIban)
    .superRefine((iban, ctx) => {
      const problem = ibanProblem(iban);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });

const bicSchema = () =>
  z
    .string()
    .max(100, "Must be 8 or 11 characters")
    .overwrite((bic) => bic.replace(/\s+/g, "").toUpperCase())
    .regex(
      BIC_PATTERN,
      "Must be 8 or 11 characters: 4 letters, 2 country letters, 2 letters or digits, optional 3",
    );

const amount = () =>
  z.number({ message: "Must be a number" }).min(0, "Must not be negative").max(1e12, "Too large");

const identityDocumentsSchema = z.strictObject({
  passport: optional(
    z.strictObject({ number: name(), expiry: optional(dateSchema()), issuing_country: optional(text()) }),
  ),
  id_card: optional(
    z.strictObject({ number: name(), expiry: optional(dateSchema()), issuing_authority: optional(text()) }),
  ),
  driving_license: optional(z.strictObject({ number: name(), expiry: optional(dateSchema()) })),
});

const addressSchema = z.strictObject({
  street: optional(text()),
  postal_code: optional(text()),
  city: optional(text()),
  country: optional(text()),
});

const additionalAddressesSchema = z.strictObject({
  work_address: optional(addressSchema),
  previous_address: optional(addressSchema),
});

const additionalContactsSchema = z.strictObject({
  emergency_contact: optional(
    z.strictObject({ name: name(), phone: optional(text()), relationship: optional(text()) }),
  ),
  references: optional(
    z.array(z.strictObject({ name: name(), phone: optional(text()), type: optional(text()) })).max(100),
  ),
});

/** Free-form, but the conventional guarantor keys keep their documented types when present. */
const customFieldsSchema = z.record(z.string(), z.unknown()).superRefine((fields, ctx) => {
  const amountValue = fields.guarantee_amount;
  if (
    amountValue !== undefined &&
    amountValue !== null &&
    (typeof amountValue !== "number" || !Number.isFinite(amountValue) || amountValue < 0)
  ) {
    ctx.addIssue({ code: "custom", path: ["guarantee_amount"], message: "Must be a non-negative number" });
  }
  const typeValue = fields.guarantee_type;
  if (typeValue !== undefined && typeValue !== null && typeof typeValue !== "string") {
    ctx.addIssue({ code: "custom", path: ["guarantee_type"], message: "Must be a string" });
  }
});

const categorySchema = z.enum(LESSEE_CATEGORIES, {
  message: `Must be one of ${LESSEE_CATEGORIES.join(", ")}`,
});

/** Fields other than category and email: optional, null means "no value". */
const optionalFields = {
  title: optional(text()),
  first_name: optional(name()),
  last_name: optional(name()),
  legal_name: optional(name()),
  birth_date: optional(dateSchema()),
  birth_place: optional(text()),
  mobile_phone: optional(text()),
  landline_phone: optional(text()),
  address_street: optional(text()),
  address_postal_code: optional(text()),
  address_city: optional(text()),
  address_country: optional(text()),
  profession: optional(text()),
  employer_name: optional(text()),
  employer_phone: optional(text()),
  monthly_income: optional(amount()),
  other_income: optional(amount()),
  bank_name: optional(text()),
  iban: optional(ibanSchema()),
  bic: optional(bicSchema()),
  additional_addresses: optional(additionalAddressesSchema),
  identity_documents: optional(identityDocumentsSchema),
  additional_contacts: optional(additionalContactsSchema),
  custom_fields: optional(customFieldsSchema),
  auth_user_id: optional(text()),
};

export const createLesseeSchema = z.strictObject({
  category: categorySchema,
  email: emailSchema(),
  ...optionalFields,
});

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

/** Any 8-4-4-4-12 hex id: an unknown but well-formed id is a 404, not a 400. */
export const uuidSchema = z.guid({ message: "Must be a UUID" });

export const isLesseeCategory = (value: unknown): value is LesseeCategory =>
  (LESSEE_CATEGORIES as readonly unknown[]).includes(value);
