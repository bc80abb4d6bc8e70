import {
  classOf,
  ENERGY_DIAGNOSIS_FIELDS,
  type EnergyDiagnosisEvent,
  type EnergyDiagnosisFields,
  labelScaleOn,
  SMALL_DWELLING_SCALE_FROM,
} from "../../events/energyDiagnoses.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, notFound, unprocessable } from "../../platform/errors.ts";
import { parisDate } from "../../platform/formatDates.ts";

/**
 * Facts the route looked up for the ids in the request (each present only for an id sent):
 * true when the place / estate / media exists in the caller's tenant.
 */
export interface KnownIds {
  place?: boolean;
  estate?: boolean;
  media?: boolean;
}

export type EnergyDiagnosisInput = Omit<
  EnergyDiagnosisFields,
  | "place_id"
  | "estate_id"
  | "energy_consumption"
  | "final_energy_consumption"
  | "ges_emission"
  | "heated_area"
  | "notes"
  | "media_id"
> &
  Partial<EnergyDiagnosisFields>;

export type EnergyDiagnosisCommand =
  | { type: "RecordEnergyDiagnosis"; id: string; fields: EnergyDiagnosisInput; known: KnownIds; now: string }
  | {
      type: "UpdateEnergyDiagnosis";
      id: string;
      /** undefined keeps, null removes. */
      changes: Partial<EnergyDiagnosisFields>;
      known: KnownIds;
      now: string;
    }
  | { type: "DeleteEnergyDiagnosis"; id: string };

export type EnergyDiagnosisState =
  | { status: "absent" }
  | { status: "recorded"; id: string; fields: EnergyDiagnosisFields }
  | { status: "deleted"; id: string };

const FIELD_NAMES: readonly (keyof EnergyDiagnosisFields)[] = ENERGY_DIAGNOSIS_FIELDS;

export { classOf };
/** The energy / GES class of a value on the scale in force on `diagnosisDate` (docs/dpe.md). */
export const energyClassOf = (kwh: number, diagnosisDate: string, referenceSurface: number | null = null) =>
  classOf(kwh, labelScaleOn(diagnosisDate, referenceSurface).energy);
export const gesClassOf = (kgCo2: number, diagnosisDate: string, referenceSurface: number | null = null) =>
  classOf(kgCo2, labelScaleOn(diagnosisDate, referenceSurface).ges);

/** date + years on the calendar; 29 February lands on 28 February of a common year. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const lastDay = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  return `${String(y + years).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(Math.min(d, lastDay)).padStart(2, "0")}`;
}

export const MAX_VALIDITY_YEARS = 10;

/** The business rules (422) on a complete diagnosis; every violation is listed. */
export function businessRuleViolations(
  fields: EnergyDiagnosisFields,
  known: KnownIds,
  now: string,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const hasPlace = fields.place_id != null;
  const hasEstate = fields.estate_id != null;
  if (hasPlace === hasEstate) {
    details.push({
      field: hasPlace ? "estate_id" : "place_id",
      message: "exactly one of place_id and estate_id is required",
    });
  }
  if (hasPlace && known.place === false) {
    details.push({ field: "place_id", message: `Place ${fields.place_id} not found` });
  }
  if (hasEstate && known.estate === false) {
    details.push({ field: "estate_id", message: `Estate ${fields.estate_id} not found` });
  }
  if (fields.media_id != null && known.media === false) {
    details.push({ field: "media_id", message: `Media ${fields.media_id} not found` });
  }
  if (fields.diagnosis_date > parisDate(now)) {
    details.push({ field: "diagnosis_date", message: "must not be in the future" });
  }
  if (fields.valid_until <= fields.diagnosis_date) {
    details.push({ field: "valid_until", message: "must be later than diagnosis_date" });
  } else if (fields.valid_until > addYears(fields.diagnosis_date, MAX_VALIDITY_YEARS)) {
    details.push({
      field: "valid_until",
      message: `validity must not exceed ${MAX_VALIDITY_YEARS} years after diagnosis_date`,
    });
  }
  // A label worse than its value is fine (since 2021 the label is the worse of the two classes);
  // a label better than the value, on the scale of the method in force that day, is not.
  const scale = labelScaleOn(fields.diagnosis_date, fields.heated_area);
  // Without the reference surface a small dwelling's adjusted thresholds cannot be chosen (docs/dpe.md).
  const hint =
    fields.heated_area == null && fields.diagnosis_date >= SMALL_DWELLING_SCALE_FROM
      ? "; for a dwelling under 40 m² give heated_area (its reference surface) for the arrêté du 25 mars 2024 thresholds"
      : "";
  const checks = [
    ["energy_label", fields.energy_label, "energy_consumption", fields.energy_consumption, scale.energy],
    ["ges_label", fields.ges_label, "ges_emission", fields.ges_emission, scale.ges],
  ] as const;
  for (const [labelField, label, valueField, value, bounds] of checks) {
    if (value == null) continue;
    const byValue = classOf(value, bounds);
    if (label < byValue) {
      details.push({
        field: labelField,
        message: `${labelField} ${label} is better than class ${byValue} of ${valueField} ${value} on the ${scale.law}${hint}`,
      });
    }
  }
  return details;
}

function checkRules(fields: EnergyDiagnosisFields, known: KnownIds, now: string): void {
  const details = businessRuleViolations(fields, known, now);
  if (details.length > 0) throw unprocessable("Energy diagnosis breaks business rules", details);
}

function complete(input: EnergyDiagnosisInput): EnergyDiagnosisFields {
  return {
    place_id: input.place_id ?? null,
    estate_id: input.estate_id ?? null,
    reference_number: input.reference_number,
    diagnosis_date: input.diagnosis_date,
    valid_until: input.valid_until,
    energy_label: input.energy_label,
    ges_label: input.ges_label,
    construction_year: input.construction_year,
    energy_consumption: input.energy_consumption ?? null,
    final_energy_consumption: input.final_energy_consumption ?? null,
    ges_emission: input.ges_emission ?? null,
    heated_area: input.heated_area ?? null,
    notes: input.notes ?? null,
    media_id: input.media_id ?? null,
  };
}

export const energyDiagnosisDecider: Decider<
  EnergyDiagnosisState,
  EnergyDiagnosisCommand,
  EnergyDiagnosisEvent
> = {
  initialState: () => ({ status: "absent" }),

  evolve(state, event) {
    switch (event.type) {
      case "EnergyDiagnosisRecorded": {
        const { diagnosis_id, ...fields } = event.data;
        return { status: "recorded", id: diagnosis_id, fields };
      }
      case "EnergyDiagnosisUpdated":
        return state.status === "recorded"
          ? { ...state, fields: { ...state.fields, ...event.data.changes } }
          : state;
      case "EnergyDiagnosisDeleted":
        return { status: "deleted", id: event.data.diagnosis_id };
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "RecordEnergyDiagnosis": {
        if (state.status !== "absent") throw conflict(`Energy diagnosis ${command.id} already exists`);
        const fields = complete(command.fields);
        checkRules(fields, command.known, command.now);
        return [{ type: "EnergyDiagnosisRecorded", data: { diagnosis_id: command.id, ...fields } }];
      }
      case "UpdateEnergyDiagnosis": {
        if (state.status !== "recorded") throw notFound("Energy diagnosis", command.id);
        const merged: EnergyDiagnosisFields = { ...state.fields };
        const changes: Partial<EnergyDiagnosisFields> = {};
        for (const name of FIELD_NAMES) {
          const value = command.changes[name];
          if (value === undefined || value === state.fields[name]) continue;
          (merged as any)[name] = value;
          (changes as any)[name] = value;
        }
        // Ids kept from the stored diagnosis were checked when they were set.
        checkRules(merged, command.known, command.now);
        // An update changing nothing is still recorded, as in the other areas: updated_at moves.
        return [{ type: "EnergyDiagnosisUpdated", data: { diagnosis_id: command.id, changes } }];
      }
      case "DeleteEnergyDiagnosis": {
        if (state.status !== "recorded") throw notFound("Energy diagnosis", command.id);
        return [{ type: "EnergyDiagnosisDeleted", data: { diagnosis_id: command.id } }];
      }
    }
  },
};
