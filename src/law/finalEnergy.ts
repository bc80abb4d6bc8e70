import { type Verdict, verdict } from "./verdict.ts";

/**
 * Décret n° 2021-19 du 11 janvier 2021 (décret n° 2002-120 art. 3 bis, 2023 wording): in
 * metropolitan France, a dwelling whose final energy consumption passes 450 kWh per m² of living area
 * and per year is not decent, for contracts concluded from 2023-01-01. Not applicable overseas.
 */

export const DECRET_2021_19 = "décret n° 2021-19 du 11 janvier 2021 (décret n° 2002-120, art. 3 bis)";
export const FINAL_ENERGY_MAX = 450;
export const FINAL_ENERGY_FROM = "2023-01-01";

export function finalEnergyDecencyVerdict(f: {
  /** Final energy, kWh/m²/year (the DPE's); null: not recorded. */
  final_energy: number | null;
  concluded_on: string;
  overseas: boolean;
  /** The DPE's class; absent or null: no DPE. */
  energy_label?: string | null;
  /**
   * The upper bound of primary energy of that class on the DPE's own scale (src/law/dpe.ts), null for
   * G or when the scale is not known. Final energy never exceeds primary energy (every conversion
   * factor is at least 1), so a class bounded at 450 or less proves the 450 of final energy are kept.
   */
  class_primary_max?: number | null;
}): Verdict {
  const rule = "FINAL_ENERGY_450";
  const details = { ...f, max: FINAL_ENERGY_MAX };
  if (f.overseas) return verdict(rule, "NOT_APPLICABLE", "Metropolitan France only", DECRET_2021_19, details);
  if (f.concluded_on < FINAL_ENERGY_FROM)
    return verdict(rule, "NOT_APPLICABLE", `Concluded before ${FINAL_ENERGY_FROM}`, DECRET_2021_19, details);
  const bound = f.class_primary_max ?? null;
  if (f.final_energy === null && f.energy_label && bound !== null && bound <= FINAL_ENERGY_MAX)
    return verdict(
      rule,
      "PASS",
      `Classed ${f.energy_label}: at most ${bound} kWh/m²/year of primary energy, so at most ${FINAL_ENERGY_MAX} of final energy (${DECRET_2021_19})`,
      DECRET_2021_19,
      details,
    );
  if (f.final_energy === null)
    return verdict(
      rule,
      "UNKNOWN",
      f.energy_label
        ? `Classed ${f.energy_label} and its final energy consumption is not recorded: whether it passes ${FINAL_ENERGY_MAX} kWh/m²/year is unknown (${DECRET_2021_19})`
        : `No DPE states the dwelling's final energy consumption (${DECRET_2021_19})`,
      DECRET_2021_19,
      details,
    );
  if (f.final_energy > FINAL_ENERGY_MAX)
    return verdict(
      rule,
      "FAIL",
      `${f.final_energy} kWh/m²/year of final energy passes ${FINAL_ENERGY_MAX}: not decent for a contract concluded from ${FINAL_ENERGY_FROM} (${DECRET_2021_19})`,
      DECRET_2021_19,
      details,
    );
  return verdict(
    rule,
    "PASS",
    `${f.final_energy} kWh/m²/year of final energy, at most ${FINAL_ENERGY_MAX} (${DECRET_2021_19})`,
    DECRET_2021_19,
    details,
  );
}
