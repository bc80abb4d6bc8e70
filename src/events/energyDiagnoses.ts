import type { DomainEvent } from "../platform/decider.ts";

/** Energy labels, best (A) to worst (G); used for both the energy and the climate (GES) class. */
export const ENERGY_LABELS = ["A", "B", "C", "D", "E", "F", "G"] as const;
export type EnergyLabel = (typeof ENERGY_LABELS)[number];

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
export const energyDiagnosisEventTypes: readonly EnergyDiagnosisEventType[] = [
  "EnergyDiagnosisRecorded",
  "EnergyDiagnosisUpdated",
  "EnergyDiagnosisDeleted",
];

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
  "ges_emission",
  "heated_area",
  "notes",
  "media_id",
] as const satisfies readonly (keyof EnergyDiagnosisFields)[];
