import { termEnd } from "./calendar.ts";
import { type LeaseTermFacts, type LessorKind, nextPeriodStartFrom, underLoi89 } from "./leaseTypes.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The DPE's label scales and legal validity (docs/dpe.md): which class a measured value gives on
 * the scale of the method in force on the diagnosis date, and the day a certificate stops being valid.
 */

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
  /** The text that sets it, named in the 422 message. */
  law: string;
  /** The whole m² of reference surface whose row of the small-dwelling table applies, if one does. */
  reference_surface?: number;
}

/** The method of the arrêté du 31 mars 2021 applies to diagnoses made from this day on. */
export const DPE_2021_METHOD_FROM = "2021-07-01";

/**
 * The scale of the arrêté du 15 septembre 2006, in force until 2021-06-30: docs/specification.md's with F up to
 * 450 kWh/m²/year (docs/specification.md's 420 is the 2021 value), G above.
 */
const SCALE_2006: LabelScale = {
  method: "2006",
  energy: [50, 90, 150, 230, 330, 450],
  ges: [5, 10, 20, 35, 55, 80],
  law: "scale of the arrêté du 15 septembre 2006 (DPE made before 2021-07-01)",
};
/** Arrêté du 31 mars 2021 (DPE of dwellings, metropolitan France), from 2021-07-01. */
const SCALE_2021: LabelScale = {
  method: "2021",
  energy: [70, 110, 180, 250, 330, 420],
  ges: [6, 11, 30, 50, 70, 100],
  law: "scale of the arrêté du 31 mars 2021 (DPE made from 2021-07-01)",
};

/** The arrêté du 25 mars 2024 applies its small-dwelling thresholds to diagnoses made from this day. */
export const SMALL_DWELLING_SCALE_FROM = "2024-07-01";

/**
 * Annex 5 of the arrêté du 31 mars 2021 as rewritten by the arrêté du 25 mars 2024 (JORF of
 * 2024-04-20): A..F upper bounds for a reference surface of 8, 9, … 39 m² (below 8: the 8 m² row;
 * from 40: the standard scale), below 800 m of altitude. Transcribed from the table of the
 * Open3CL engine (src/tv/dpe_ges_limit_values.ods), checked against the published examples
 * (E/F bound 349 at 30 m², 385 at 20 m²): docs/dpe.md.
 */
const SMALL_ENERGY: readonly (readonly number[])[] = [
  [146, 186, 386, 505, 622, 739],
  [134, 174, 355, 464, 574, 685],
  [124, 164, 329, 428, 533, 640],
  [117, 157, 311, 403, 503, 607],
  [112, 152, 296, 381, 478, 578],
  [108, 148, 283, 363, 456, 554],
  [104, 144, 273, 348, 437, 532],
  [100, 140, 263, 333, 421, 514],
  [97, 137, 255, 325, 412, 504],
  [95, 135, 248, 318, 404, 496],
  [92, 132, 241, 311, 397, 489],
  [90, 130, 235, 305, 390, 482],
  [88, 128, 230, 300, 385, 476],
  [87, 127, 225, 295, 380, 471],
  [85, 125, 221, 291, 375, 466],
  [84, 124, 217, 287, 371, 462],
  [82, 122, 214, 284, 367, 458],
  [81, 121, 210, 280, 363, 454],
  [80, 120, 207, 277, 360, 451],
  [79, 119, 204, 274, 357, 447],
  [78, 118, 202, 272, 354, 444],
  [77, 117, 199, 269, 351, 442],
  [76, 116, 197, 267, 349, 439],
  [76, 116, 195, 265, 346, 437],
  [75, 115, 193, 263, 344, 434],
  [74, 114, 191, 261, 342, 432],
  [74, 114, 189, 259, 340, 430],
  [73, 113, 188, 258, 338, 428],
  [72, 112, 186, 256, 337, 427],
  [72, 112, 185, 255, 335, 425],
  [71, 111, 183, 253, 333, 423],
  [71, 111, 182, 252, 332, 422],
];
const SMALL_GES: readonly (readonly number[])[] = [
  [11, 16, 44, 68, 90, 122],
  [11, 16, 42, 65, 87, 118],
  [10, 15, 40, 62, 84, 115],
  [10, 15, 39, 61, 82, 113],
  [9, 14, 38, 59, 81, 111],
  [9, 14, 37, 58, 79, 110],
  [9, 14, 37, 58, 78, 108],
  [8, 13, 36, 56, 76, 107],
  [8, 13, 35, 55, 76, 106],
  [8, 13, 35, 55, 75, 105],
  [8, 13, 34, 54, 75, 105],
  [8, 13, 34, 54, 74, 105],
  [8, 13, 34, 54, 74, 104],
  [8, 13, 33, 53, 74, 104],
  [7, 12, 33, 53, 73, 103],
  [7, 12, 33, 53, 73, 103],
  [7, 12, 33, 53, 73, 103],
  [7, 12, 32, 52, 73, 103],
  [7, 12, 32, 52, 72, 103],
  [7, 12, 32, 52, 72, 102],
  [7, 12, 32, 52, 72, 102],
  [7, 12, 32, 52, 72, 102],
  [7, 12, 32, 52, 72, 102],
  [7, 12, 31, 51, 72, 102],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
  [7, 12, 31, 51, 71, 101],
];

/**
 * The scale in force on a diagnosis date (YYYY-MM-DD), for a dwelling of `referenceSurface` m²
 * (the diagnosis's heated_area; null: unknown, the standard scale applies).
 */
export function labelScaleOn(diagnosisDate: string, referenceSurface: number | null = null): LabelScale {
  if (diagnosisDate < DPE_2021_METHOD_FROM) return SCALE_2006;
  if (diagnosisDate < SMALL_DWELLING_SCALE_FROM || referenceSurface === null) return SCALE_2021;
  const row = Math.max(8, Math.round(referenceSurface));
  if (row >= 40) return SCALE_2021;
  return {
    method: "2021",
    energy: SMALL_ENERGY[row - 8],
    ges: SMALL_GES[row - 8],
    law: `scale of the arrêté du 31 mars 2021 as amended by the arrêté du 25 mars 2024 for a reference surface of ${row} m² (DPE made from 2024-07-01)`,
    reference_surface: row,
  };
}

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

/** A DPE is valid 10 years (code de la construction et de l'habitation art. L126-26, 120 months). */
export const DPE_VALIDITY_MONTHS = 120;

/**
 * The last day a DPE is valid: what it states, else the day before its 10th anniversary (made
 * 2021-07-01: valid until 2031-06-30), never past the early end of décret n° 2020-1610.
 */
export const dpeValidUntil = (diagnosisDate: string, stated: string | null): string =>
  legalValidUntil(diagnosisDate, stated ?? termEnd(diagnosisDate, DPE_VALIDITY_MONTHS));

/** Decency by energy class (docs/compliance.md, "Decency calendar"). */

/** Décret n° 2002-120 art. 3 bis as amended (loi n° 2021-1104 art. 160): a class is not decent from a day. */
export const DECENCY_CALENDAR: readonly { label: string; from: string }[] = [
  { label: "G", from: "2025-01-01" },
  { label: "F", from: "2028-01-01" },
  { label: "E", from: "2034-01-01" },
];
const DECENCY = `${LOI_89}, art. 6; décret n° 2002-120 art. 3 bis; loi n° 2021-1104, art. 160`;
/** Décret n° 2002-120 art. 3 bis II: Guadeloupe, Martinique, Guyane, La Réunion, Mayotte. */
export const OVERSEAS_DECENCY_CALENDAR: readonly { label: string; from: string }[] = [
  { label: "G", from: "2028-01-01" },
  { label: "F", from: "2031-01-01" },
];

/**
 * Loi n° 2021-1104 art. 160 applies each step of the calendar to contracts concluded, renewed or
 * tacitly renewed from its date: a G dwelling let on 2024-12-31 for 3 years stays within the law
 * until its renewal on 2027-12-31. The verdict names the day the lease becomes non-compliant.
 */
export function decencyVerdict(input: {
  lease: LeaseTermFacts & { status: string };
  lessor?: LessorKind;
  /** The day judged. */
  on: string;
  /** The DPE valid on `on`, null when none. */
  dpe: { energy_label: string } | null;
  /** An overseas department (src/law/overseas.ts): G from 2028, F from 2031 (décret 2002-120 art. 3 bis II). */
  overseas?: boolean;
}): Verdict {
  const rule = "DPE_DECENCY_CALENDAR";
  const { lease, dpe, on } = input;
  if (!underLoi89(lease.lease_type))
    return verdict(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside loi n° 89-462`, DECENCY);
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    return verdict(rule, "NOT_APPLICABLE", "The lease has ended", DECENCY);
  if (!dpe) return verdict(rule, "UNKNOWN", `No DPE is valid on ${on}`, DECENCY);
  const calendar = input.overseas ? OVERSEAS_DECENCY_CALENDAR : DECENCY_CALENDAR;
  const step = calendar.find((s) => s.label === dpe.energy_label);
  if (!step)
    return verdict(rule, "PASS", `Housing classed ${dpe.energy_label} is decent on ${on}`, DECENCY, {
      energy_label: dpe.energy_label,
      on,
      indecent_from: null,
      non_compliant_from: null,
    });
  const from = nextPeriodStartFrom(lease, step.from, input.lessor);
  const details = { energy_label: dpe.energy_label, on, indecent_from: step.from, non_compliant_from: from };
  if (from !== null && on >= from)
    return verdict(
      rule,
      "FAIL",
      `Housing classed ${dpe.energy_label} is not decent for a contract concluded or renewed from ${step.from}; this lease was ${from === lease.start_date ? "concluded" : "renewed"} on ${from} (${DECENCY})`,
      DECENCY,
      details,
    );
  const until =
    from === null
      ? `this lease is not renewed, so the calendar does not reach it`
      : `the lease becomes non-compliant at its ${from === lease.start_date ? "start" : "renewal"} on ${from}`;
  return verdict(
    rule,
    "PASS",
    `Housing classed ${dpe.energy_label} is not decent for contracts concluded or renewed from ${step.from}; ${until}`,
    DECENCY,
    details,
  );
}
