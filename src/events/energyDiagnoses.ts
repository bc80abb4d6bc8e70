import type { DomainEvent } from "../platform/decider.ts";

/** Energy labels, best (A) to worst (G); used for both the energy and the climate (GES) class. */
export const ENERGY_LABELS = ["A", "B", "C", "D", "E", "F", "G"] as const;
export type EnergyLabel = (typeof ENERGY_LABELS)[number];

/**
 * The label scales of a DPE, by the method in force on its `diagnosis_date` (docs/dpe.md):
 * upper bounds (inclusive) of classes A..F, G above. Energy in kWh/m²/year, GES in kg CO2/m²/year.
 */
export interface LabelScale {
  method: "2006" | "2021";
  energy: readonly number[];
  ges: readonly number[];
}

/** The method of the arrêté du 31 mars 2021 applies to diagnoses made from this day on. */
export const DPE_2021_METHOD_FROM = "2021-07-01";

/** The scale of SPEC.md, the method in force until 2021-06-30. */
const SCALE_2006: LabelScale = {
  method: "2006",
  energy: [50, 90, 150, 230, 330, 420],
  ges: [5, 10, 20, 35, 55, 80],
};
/** Arrêté du 31 mars 2021 (DPE of dwellings, metropolitan France), from 2021-07-01. */
const SCALE_2021: LabelScale = {
  method: "2021",
  energy: [70, 110, 180, 250, 330, 420],
  ges: [6, 11, 30, 50, 70, 100],
};

/** The scale in force on a diagnosis date (YYYY-MM-DD). */
export const labelScaleOn = (diagnosisDate: string): LabelScale =>
  diagnosisDate < DPE_2021_METHOD_FROM ? SCALE_2006 : SCALE_2021;

/** The class a measured value gives on a scale: the first whose upper bound holds it, else G. */
export function classOf(value: number, bounds: readonly number[]): EnergyLabel {
  const index = bounds.findIndex((max) => value <= max);
  return ENERGY_LABELS[index === -1 ? bounds.length : index];
}

/**
 * The day a DPE stops being valid by law: décret n° 2020-1610 du 17 décembre 2020 ended the
 * certificates made before the 2021 method early (made 2013-01-01..2017-12-31: valid until
 * 2022-12-31; made 2018-01-01..2021-06-30: until 2024-12-31); a DPE made earlier than 2013 had
 * expired by then anyway. The earlier of that day and what the certificate says.
 */
export function legalValidUntil(diagnosisDate: string, validUntil: string): string {
  const legalEnd =
    diagnosisDate >= DPE_2021_METHOD_FROM
      ? null
      : diagnosisDate >= "2018-01-01"
        ? "2024-12-31"
        : "2022-12-31";
  return legalEnd !== null && legalEnd < validUntil ? legalEnd : validUntil;
}

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
