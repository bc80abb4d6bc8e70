import { z } from "zod";

/**
 * The schema kit every area builds its request schemas from (docs/conventions.md, "Shared kit"):
 * one definition of ids, text, dates, contact and bank fields. Page queries: ./pagination.ts.
 */

/** NUL and unpaired surrogates: JSON allows them, PostgreSQL text and jsonb do not. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const isStorable = (value: string) => !value.includes("\u0000") && !UNPAIRED_SURROGATE.test(value);
const UNSTORABLE_MESSAGE = "Must not contain NUL or unpaired surrogate characters";

/** The message of a type error, telling apart a null (refused on required fields). */
export const typeError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === null ? "is required and may not be null" : expected;

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

/**
 * Money (docs/security.md, "Bounds of every field"): euros in whole cents, at most a billion, so
 * that cents are exact integers in JavaScript, float8 and `numeric(p, 2)` alike. The double a
 * body carries must be the one nearest a cents value: 0.07 passes, 1.005 and 1e-9 do not (1e-9 €
 * was once stored as 0).
 */
export const MAX_EUROS = 1_000_000_000;
export const hasAtMostDecimals = (value: number, decimals: number) =>
  Number.isFinite(value) && Math.round(value * 10 ** decimals) / 10 ** decimals === value;
export const isWholeCents = (value: number) => hasAtMostDecimals(value, 2);
const CENTS_MESSAGE = "At most two decimals (cents)";
/** In the API description: how many decimals a number field takes (JSON Schema has no exact way). */
export const decimalsMeta = (decimals: number) => ({ "x-decimals": decimals });

/** Euros, >= `min` (0 unless an adjusting entry may be negative), <= `max`, whole cents. */
export const euros = ({ min = 0, max = MAX_EUROS }: { min?: number; max?: number } = {}) =>
  z
    .number({ error: typeError("must be an amount in euros") })
    .min(min, min === 0 ? "Must be >= 0" : `Must be at least ${min}`)
    .max(max, `Must be at most ${max}`)
    .refine(isWholeCents, CENTS_MESSAGE)
    .meta(decimalsMeta(2));

/** Euros in a query string (`?works_amount=1200.50`): the same bounds once coerced. */
export const queryEuros = () =>
  z.coerce
    .number({ error: "must be an amount in euros" })
    .min(0, "Must be >= 0")
    .max(MAX_EUROS, `Must be at most ${MAX_EUROS}`)
    .refine(isWholeCents, CENTS_MESSAGE)
    .meta(decimalsMeta(2));

/** An amount of money in euros (rent, deposit, tax, price): see `euros`. */
export const amount = euros();

/**
 * A field the service keeps that a body may carry back from a GET (docs/design.md §4): accepted and
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

/** Any 8-4-4-4-12 hex id (the catalog's fixed ids are not all RFC 4122 variants). */
export const id = z
  .guid({ error: "must be a UUID" })
  .meta({ example: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001" });

/**
 * Dates and timestamps (docs/security.md, "Bounds of every field"): a real calendar day between
 * 1900-01-01 and 2200-12-31. Every projection stores them in `date` or `timestamptz` columns,
 * which have no year 0, and the domain needs nothing older than a building nor later than a long
 * lease: a day outside would be appended, then stop the projection that cannot store it.
 */
export const DATE_MIN = "1900-01-01";
export const DATE_MAX = "2200-12-31";
const DATE_RANGE_MESSAGE = `must be between ${DATE_MIN} and ${DATE_MAX}`;

/** What is wrong with a `YYYY-MM-DD` day, or null when it is a real day within the bounds. */
export function dateProblem(value: string): string | null {
  if (!isRealDate(value)) return "must be a real date YYYY-MM-DD";
  return value < DATE_MIN || value > DATE_MAX ? DATE_RANGE_MESSAGE : null;
}

const checked =
  (problem: (value: string) => string | null) =>
  (value: string, ctx: { addIssue: (issue: { code: "custom"; message: string; input: string }) => void }) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message, input: value });
  };

/**
 * A real calendar date written YYYY-MM-DD within the bounds (2025-02-30, 0000-01-01 and 9999-12-31
 * fail). Built on zod's ISO date, whose `format` tells the read models' DDL a `date` column.
 */
export const isoDate = z.iso
  .date({
    error: (issue) =>
      issue.code === "invalid_type"
        ? typeError("must be a date YYYY-MM-DD")(issue)
        : "must be a real date YYYY-MM-DD",
  })
  .superRefine(checked((value) => (isRealDate(value) ? dateProblem(value) : null)))
  .meta({ example: "2025-01-31" });

/** `isoDate` for the schemas written as calls (`date().optional()`). */
export const date = () => isoDate;

export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([zZ]|[+-]\d{2}:\d{2})?$/;

/** An ISO 8601 instant (`2025-01-31T10:00:00+01:00`, no zone meaning UTC) as UTC, or null. */
export function utcInstant(value: string): string | null {
  const m = DATE_TIME.exec(value);
  if (!m || !isRealDate(m[1]) || Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59)
    return null;
  const zone = m[5] && /^[+-]/.test(m[5]) ? m[5] : "Z";
  if (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59) return null;
  const instant = new Date(`${value.slice(0, value.length - (m[5]?.length ?? 0))}${zone}`);
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString();
}

const instantProblem = (from: string, to: string) => (value: string) => {
  const instant = value.length === 10 && isRealDate(value) ? `${value}T00:00:00.000Z` : utcInstant(value);
  if (!instant) return "must be an ISO 8601 date-time or a date YYYY-MM-DD";
  const day = instant.slice(0, 10);
  return day < from || day > to ? `must be between ${from} and ${to}` : null;
};

/**
 * A timestamp: an ISO 8601 date-time (with or without zone; none means UTC) or a plain date,
 * whose UTC day is within the bounds (the dates' unless a field's domain needs older: a
 * building's construction); given as the UTC ISO string.
 */
export const timestampWithin = (from = DATE_MIN, to = DATE_MAX) =>
  z
    .string({ error: typeError("must be an ISO 8601 date-time or a date YYYY-MM-DD") })
    .superRefine(checked(instantProblem(from, to)))
    .transform((value) => (value.length === 10 ? `${value}T00:00:00.000Z` : (utcInstant(value) as string)))
    // The bounds are stated, so a client (and the hostile-field tests) know what is out of range.
    .meta({ format: "date-time", example: "2025-01-31T10:00:00Z", "x-date-min": from, "x-date-max": to });

export const isoTimestamp = timestampWithin();

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
