import { z } from "zod";

/**
 * The schema kit every area builds its request schemas from (docs/conventions.md, "Shared kit"):
 * one definition of ids, text, dates, contact and bank fields. Page queries: ./pagination.ts.
 */

/** NUL and unpaired surrogates: JSON allows them, PostgreSQL text and jsonb do not. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const isStorable = (value: string) => !value.includes("\u0000") && !UNPAIRED_SURROGATE.test(value);
const UNSTORABLE_MESSAGE = "Must not contain NUL or unpaired surrogate characters";

/** A trimmed text field of bounded length; empty after trimming is refused. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "Must not be empty")
    .max(max, `Must be at most ${max} characters`)
    .refine(isStorable, UNSTORABLE_MESSAGE);

/** Free-form JSON whose every key and string value can be stored. */
export const storableJson = <S extends z.ZodType>(schema: S) =>
  schema.superRefine((value, ctx) => {
    const walk = (v: unknown): boolean => {
      if (typeof v === "string") return isStorable(v);
      if (Array.isArray(v)) return v.every(walk);
      if (v && typeof v === "object") return Object.entries(v).every(([k, x]) => isStorable(k) && walk(x));
      return true;
    };
    if (!walk(value)) ctx.addIssue({ code: "custom", message: UNSTORABLE_MESSAGE });
  });

/** A UUID (any version), lower-cased: ids name streams, so `ABC…` and `abc…` must be one id. */
export const uuid = () =>
  z
    .guid("Must be a UUID")
    .overwrite((value) => value.toLowerCase())
    .meta({ example: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001" });

/** An amount of money in euros (rent, deposit, tax): a finite number >= 0, stored as numeric. */
export const amount = z.number().finite().min(0, "Must be >= 0").max(1e12);

/**
 * A field the service keeps that a body may carry back from a GET (DESIGN.md §4): accepted and
 * ignored, `readOnly` in the document so that clients know not to set it.
 */
export const ignored = <S extends z.ZodType>(schema: S) =>
  schema
    .optional()
    .meta({ readOnly: true, description: "Read-only: kept by the service; ignored in a request" });

/** A required field on update: may be omitted, never null (null would remove it). */
export const notNull = <S extends z.ZodType>(schema: S, field: string) =>
  z.preprocess((value, ctx) => {
    if (value !== null) return value;
    ctx.addIssue({ code: "custom", message: `${field} is required and cannot be removed`, input: value });
    return z.NEVER;
  }, schema);

/** The message of a type error, telling apart a null (refused on required fields). */
export const typeError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === null ? "is required and may not be null" : expected;

/** Any 8-4-4-4-12 hex id (the catalog's fixed ids are not all RFC 4122 variants). */
export const id = z
  .guid({ error: "must be a UUID" })
  .meta({ example: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001" });

/** A real calendar date written YYYY-MM-DD (2025-02-30 fails). */
export const isoDate = z
  .string({ error: typeError("must be a date YYYY-MM-DD") })
  .refine(isRealDate, { error: "must be a real date YYYY-MM-DD" })
  .meta({ format: "date", example: "2025-01-31" });

export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** NUL and unpaired surrogates pass JSON but not PostgreSQL text or jsonb: a 400, not a 500. */
export const storable = { error: "must not contain NUL or unpaired surrogate characters" } as const;

/** An email as the API accepts it: one @, a name before it, a dotted domain; null when fine. */
export function emailProblem(email: string): string | null {
  if (/\s/.test(email)) return "Must not contain spaces";
  const parts = email.split("@");
  if (parts.length !== 2) return "Must contain exactly one @";
  const [local, domain] = parts;
  if (!local) return "Must have a name before the @";
  if (!domain.includes(".")) return "Domain must contain a dot";
  if (domain.split(".").some((label) => label === "")) return "Invalid domain";
  return null;
}

/** IBAN as stored: spaces removed, upper-cased. */
export const normalizeIban = (iban: string) => iban.replace(/\s+/g, "").toUpperCase();

/** ISO 13616: 15-34 characters, country letters, check digits, mod-97 of the rearranged number is 1. */
export function ibanProblem(iban: string): string | null {
  if (iban.length < 15 || iban.length > 34) return "Must be 15 to 34 characters";
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) {
    return "Must start with 2 country letters and 2 check digits, then letters and digits";
  }
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    // Letters count as two digits (A=10 ... Z=35); the remainder is folded as we go.
    const value = ch >= "A" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1 ? null : "Invalid IBAN check digits";
}

/** BIC (ISO 9362): bank code 4 letters, country 2 letters, location 2, optional branch 3. */
export const BIC_PATTERN = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;
