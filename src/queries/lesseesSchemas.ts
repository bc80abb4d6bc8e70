import { z } from "zod";
import { LESSEE_CATEGORIES, type LesseeCategory } from "../events/lessees.ts";
import {
  BIC_PATTERN,
  emailProblem,
  euros,
  ibanProblem,
  isoDate,
  normalizeIban,
} from "../platform/http/schemas.ts";

/**
 * Request bodies of the Lessees area that its answers also show (docs/architecture.md §6 Lessees).
 * The zod schemas check each field on its own; `categoryRuleDetails`
 * (src/commands/lessees/schemas.ts) checks what depends on the category.
 */

export const INVALID_CATEGORY = "Invalid lessee category";

// Generous bounds that keep read-model indexes and pages sane; the spec sets none.
const TEXT_MAX = 255;
const EMAIL_MAX = 254;

const text = () => z.string().trim().max(TEXT_MAX, `Must be at most ${TEXT_MAX} characters`);
const name = () => text().min(1, "Must not be empty");
const optional = <S extends z.ZodType>(schema: S) => schema.nullable().optional();

/** A real calendar date YYYY-MM-DD (2023-02-29 fails). */
export const dateSchema = () => isoDate;

export const emailSchema = () =>
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

const amount = () => euros();

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

export const categorySchema = z.enum(LESSEE_CATEGORIES, {
  message: `Must be one of ${LESSEE_CATEGORIES.join(", ")}`,
});

/** Fields other than category and email: optional, null means "no value". */
export const optionalFields = {
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

/** Any 8-4-4-4-12 hex id: an unknown but well-formed id is a 404, not a 400. */
export const uuidSchema = z.guid({ message: "Must be a UUID" });

export const isLesseeCategory = (value: unknown): value is LesseeCategory =>
  (LESSEE_CATEGORIES as readonly unknown[]).includes(value);
