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
}): Verdict {
  const rule = "FINAL_ENERGY_450";
  const details = { ...f, max: FINAL_ENERGY_MAX };
  if (f.overseas) return verdict(rule, "NOT_APPLICABLE", "Metropolitan France only", DECRET_2021_19, details);
  if (f.concluded_on < FINAL_ENERGY_FROM)
    return verdict(rule, "NOT_APPLICABLE", `Concluded before ${FINAL_ENERGY_FROM}`, DECRET_2021_19, details);
  if (f.final_energy === null)
    return verdict(
      rule,
      "UNKNOWN",
      "The dwelling's final energy consumption is not recorded",
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
    `${f.final_energy} kWh/m²/year of final energy, at most ${FINAL_ENERGY_MAX}`,
    DECRET_2021_19,
    details,
  );
}
