import type { EnergyLabel } from "../law/dpe.ts";
import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";

// The label scales and legal validity are the law's (src/law/dpe.ts).
export {
  classOf,
  DPE_2021_METHOD_FROM,
  ENERGY_LABELS,
  type EnergyLabel,
  type LabelScale,
  labelScaleOn,
  legalValidUntil,
  SMALL_DWELLING_SCALE_FROM,
} from "../law/dpe.ts";

/** Every field of a diagnosis apart from its id and timestamps, as recorded. */
export interface EnergyDiagnosisFields {
  place_id: string | null;
  estate_id: string | null;
  reference_number: string;
  diagnosis_date: string;
  valid_until: string;
  energy_label: EnergyLabel;
  ges_label: EnergyLabel;
  construction_year: number;
  energy_consumption: number | null;
  /** Final energy, kWh/m²/year (décret 2021-19); absent from diagnoses recorded before 2026-12 (null). */
  final_energy_consumption: number | null;
  ges_emission: number | null;
  heated_area: number | null;
  notes: string | null;
  media_id: string | null;
}

/** Stream `energy_diagnosis-<uuid>`. Timestamps are the events' metadata.occurred_at. */
export type EnergyDiagnosisEvent =
  | DomainEvent<"EnergyDiagnosisRecorded", { diagnosis_id: string } & EnergyDiagnosisFields>
  /** `changes` holds only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | DomainEvent<"EnergyDiagnosisUpdated", { diagnosis_id: string; changes: Partial<EnergyDiagnosisFields> }>
  | DomainEvent<"EnergyDiagnosisDeleted", { diagnosis_id: string }>;

export type EnergyDiagnosisEventType = EnergyDiagnosisEvent["type"];
export const energyDiagnosisEventTypes = allEventTypes<EnergyDiagnosisEventType>()([
  "EnergyDiagnosisRecorded",
  "EnergyDiagnosisUpdated",
  "EnergyDiagnosisDeleted",
]);

export const energyDiagnosisStream = (id: string) => `energy_diagnosis-${id}`;

/** The diagnosis fields, in API order: the decider merges them, the read model stores them. */
export const ENERGY_DIAGNOSIS_FIELDS = [
  "place_id",
  "estate_id",
  "reference_number",
  "diagnosis_date",
  "valid_until",
  "energy_label",
  "ges_label",
  "construction_year",
  "energy_consumption",
  "final_energy_consumption",
  "ges_emission",
  "heated_area",
  "notes",
  "media_id",
] as const satisfies readonly (keyof EnergyDiagnosisFields)[];
