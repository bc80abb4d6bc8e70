import { z } from "zod";
import { ENERGY_LABELS } from "../events/energyDiagnoses.ts";
import { parisDate } from "../platform/formatDates.ts";
import { afterQuery } from "../platform/http/jsonPage.ts";
import { pageQuery } from "../platform/http/pagination.ts";
import { id, isoDate, isStorable, storable, typeError } from "../platform/http/schemas.ts";

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
  final_energy_consumption: finite.min(0, { error: "must be >= 0" }).nullable(),
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
export const createEnergyDiagnosisBody = z
  .strictObject({
    place_id: fields.place_id.optional(),
    estate_id: fields.estate_id.optional(),
    reference_number: fields.reference_number,
    diagnosis_date: fields.diagnosis_date,
    valid_until: fields.valid_until,
    energy_label: fields.energy_label,
    ges_label: fields.ges_label,
    construction_year: fields.construction_year,
    energy_consumption: fields.energy_consumption.optional(),
    final_energy_consumption: fields.final_energy_consumption
      .optional()
      .describe(
        "Final energy consumption, kWh/m²/year (the DPE's énergie finale): over 450 a dwelling of metropolitan France is not decent for a contract from 2023-01-01 (décret n° 2021-19)",
      ),
    ges_emission: fields.ges_emission.optional(),
    heated_area: fields.heated_area.optional(),
    notes: fields.notes.optional(),
    media_id: fields.media_id.optional(),
  })
  .meta({ id: "NewEnergyDiagnosis" });
export type CreateEnergyDiagnosisBody = z.infer<typeof createEnergyDiagnosisBody>;

/** PUT body: an omitted field keeps its value, null removes it (not allowed on required fields). */
export const updateEnergyDiagnosisBody = z
  .strictObject({
    place_id: fields.place_id.optional(),
    estate_id: fields.estate_id.optional(),
    reference_number: fields.reference_number.optional(),
    diagnosis_date: fields.diagnosis_date.optional(),
    valid_until: fields.valid_until.optional(),
    energy_label: fields.energy_label.optional(),
    ges_label: fields.ges_label.optional(),
    construction_year: fields.construction_year.optional(),
    energy_consumption: fields.energy_consumption.optional(),
    final_energy_consumption: fields.final_energy_consumption
      .optional()
      .describe(
        "Final energy consumption, kWh/m²/year (the DPE's énergie finale): over 450 a dwelling of metropolitan France is not decent for a contract from 2023-01-01 (décret n° 2021-19)",
      ),
    ges_emission: fields.ges_emission.optional(),
    heated_area: fields.heated_area.optional(),
    notes: fields.notes.optional(),
    media_id: fields.media_id.optional(),
  })
  .meta({ id: "EnergyDiagnosisChanges" });
export type UpdateEnergyDiagnosisBody = z.infer<typeof updateEnergyDiagnosisBody>;

/** GET /api/energy-diagnoses query. */
export const listEnergyDiagnosesQuery = z.strictObject({
  ...pageQuery,
  place_id: id.optional().describe("Building-level diagnoses of this place"),
  estate_id: id.optional().describe("Unit-level diagnoses of this estate"),
  energy_label: label.optional(),
  ges_label: label.optional(),
  after: afterQuery,
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
