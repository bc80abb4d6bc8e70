import { z } from "zod";
import { ENERGY_LABELS } from "../../events/energyDiagnoses.ts";
import { pageQuery } from "../../platform/http/pagination.ts";
import { isStorable } from "../places/schemas.ts";

/** The message of a type error, telling apart a null (refused on required fields). */
export const typeError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === null ? "is required and may not be null" : expected;

/** Any 8-4-4-4-12 hex id (the catalog's fixed ids are not all RFC 4122 variants). */
export const id = z.guid({ error: "must be a UUID" });

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

/** Today's date in France, where the properties are: "future" and "current year" mean there. */
export function parisDate(at: Date | string = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: "Europe/Paris",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(typeof at === "string" ? new Date(at) : at);
}

/** NUL and unpaired surrogates pass JSON but not PostgreSQL text or jsonb: a 400, not a 500. */
export const storable = { error: "must not contain NUL or unpaired surrogate characters" } as const;
export { isStorable };

const label = z.enum(ENERGY_LABELS, { error: typeError("must be one of A, B, C, D, E, F, G") });
const finite = z.number({ error: "must be a number" }).refine(Number.isFinite, { error: "must be finite" });

const constructionYear = z
  .int({ error: typeError("must be an integer year") })
  .min(1800, { error: "must be 1800 or later" })
  .refine((y) => y <= Number(parisDate().slice(0, 4)), { error: "must not be after the current year" });

const fields = {
  place_id: id.nullable(),
  estate_id: id.nullable(),
  reference_number: z
    .string({ error: typeError("must be a string") })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100, { error: "must be at most 100 characters" })
    .refine(isStorable, storable),
  diagnosis_date: isoDate,
  valid_until: isoDate,
  energy_label: label,
  ges_label: label,
  construction_year: constructionYear,
  energy_consumption: finite.min(0, { error: "must be >= 0" }).nullable(),
  ges_emission: finite.min(0, { error: "must be >= 0" }).nullable(),
  heated_area: finite.positive({ error: "must be > 0" }).nullable(),
  notes: z
    .string({ error: "must be a string" })
    .max(1000, { error: "must be at most 1000 characters" })
    .refine(isStorable, storable)
    .nullable(),
  media_id: id.nullable(),
};

/**
 * POST body. Which of place_id / estate_id is set is a business rule (422), so both are
 * optional here; the required fields may not be null.
 */
export const createEnergyDiagnosisBody = z.strictObject({
  place_id: fields.place_id.optional(),
  estate_id: fields.estate_id.optional(),
  reference_number: fields.reference_number,
  diagnosis_date: fields.diagnosis_date,
  valid_until: fields.valid_until,
  energy_label: fields.energy_label,
  ges_label: fields.ges_label,
  construction_year: fields.construction_year,
  energy_consumption: fields.energy_consumption.optional(),
  ges_emission: fields.ges_emission.optional(),
  heated_area: fields.heated_area.optional(),
  notes: fields.notes.optional(),
  media_id: fields.media_id.optional(),
});
export type CreateEnergyDiagnosisBody = z.infer<typeof createEnergyDiagnosisBody>;

/** PUT body: an omitted field keeps its value, null removes it (not allowed on required fields). */
export const updateEnergyDiagnosisBody = z.strictObject({
  place_id: fields.place_id.optional(),
  estate_id: fields.estate_id.optional(),
  reference_number: fields.reference_number.optional(),
  diagnosis_date: fields.diagnosis_date.optional(),
  valid_until: fields.valid_until.optional(),
  energy_label: fields.energy_label.optional(),
  ges_label: fields.ges_label.optional(),
  construction_year: fields.construction_year.optional(),
  energy_consumption: fields.energy_consumption.optional(),
  ges_emission: fields.ges_emission.optional(),
  heated_area: fields.heated_area.optional(),
  notes: fields.notes.optional(),
  media_id: fields.media_id.optional(),
});
export type UpdateEnergyDiagnosisBody = z.infer<typeof updateEnergyDiagnosisBody>;

/** GET /api/energy-diagnoses query. */
export const listEnergyDiagnosesQuery = z.strictObject({
  ...pageQuery,
  place_id: id.optional().describe("Building-level diagnoses of this place"),
  estate_id: id.optional().describe("Unit-level diagnoses of this estate"),
  energy_label: label.optional(),
  ges_label: label.optional(),
});
export type ListEnergyDiagnosesQuery = z.output<typeof listEnergyDiagnosesQuery>;

/** GET /api/places/{place_id}/energy-diagnoses query. */
export const placeEnergyDiagnosesQuery = z.strictObject({
  ...pageQuery,
  include_estates: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .describe("Also list the diagnoses of the place's estates"),
});

export const estateEnergyDiagnosesQuery = z.strictObject({ ...pageQuery });
