import { z } from "zod";
import { BIC_PATTERN, emailProblem, ibanProblem, isStorable, normalizeIban, text } from "../http/schemas.ts";

/**
 * Field schemas resource declarations share (owners, contacts, places): one definition each.
 * Email, IBAN and BIC follow the lessees' rules (docs/architecture.md §6).
 */

const problemCheck = (problem: (v: string) => string | null) => (value: string, ctx: z.RefinementCtx) => {
  const message = problem(value);
  if (message) ctx.addIssue({ code: "custom", message });
};

export const emailField = z
  .string()
  .trim()
  .min(1, "Must not be empty")
  .max(254, "Must be at most 254 characters")
  .refine(isStorable, "Invalid character")
  .superRefine(problemCheck(emailProblem));

export const ibanField = z
  .string()
  .max(100, "Must be 15 to 34 characters")
  .overwrite(normalizeIban)
  .superRefine(problemCheck(ibanProblem));

export const bicField = z
  .string()
  .max(100, "Must be 8 or 11 characters")
  .overwrite((v) => v.replace(/\s+/g, "").toUpperCase())
  .regex(
    BIC_PATTERN,
    "Must be 8 or 11 characters: 4 letters, 2 country letters, 2 letters or digits, optional 3",
  );

export const phoneField = z
  .string()
  .trim()
  .regex(/^\+?[0-9 ().-]{4,30}$/, "Invalid phone number");

/** A postal address, every part optional; spread into a declaration's fields. */
export const addressFields = {
  address_street: text(255).nullish(),
  address_postal_code: text(20).nullish(),
  address_city: text(255).nullish(),
  address_country: text(100).nullish(),
};

/** Names and email of a person or company, searched by `contactSearch` (owners, contacts). */
export const personFields = {
  first_name: text(255).nullish(),
  last_name: text(255).nullish(),
  legal_name: text(255).nullish(),
};
