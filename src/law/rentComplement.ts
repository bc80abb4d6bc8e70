import { cents, euros } from "./money.ts";
import { type Verdict, verdict } from "./verdict.ts";

/**
 * The complément de loyer of rent control (loi n° 2018-1021 ELAN, art. 140 III B): on top of a base
 * rent at most the increased reference rent, only for localisation or comfort features that are
 * determining compared with dwellings of the same category in the same area, stated and justified in
 * the lease; none for a dwelling classed F or G (loi n° 2021-1104 du 22 août 2021, art. 159).
 */

export const ELAN_140 = "loi n° 2018-1021 du 23 novembre 2018 (ELAN), art. 140 III B";
const F_G = "loi n° 2021-1104 du 22 août 2021, art. 159";

export interface ComplementFacts {
  /** The complement asked per month, euros (0 or null: none). */
  complement: number | null;
  /** The base rent per month and the increased reference rent × area (its cap), euros. */
  base_rent: number;
  increased_reference_rent: number;
  /** The features stated in the lease to justify it (empty: none stated). */
  justification: string | null;
  /** The DPE class; null: none valid. */
  energy_label: string | null;
}

export function rentComplementVerdict(f: ComplementFacts): Verdict {
  const rule = "RENT_COMPLEMENT";
  const ref = `${ELAN_140}; ${F_G}`;
  const details = { ...f };
  if (f.complement === null || cents(f.complement) === 0)
    return verdict(rule, "NOT_APPLICABLE", "No complément de loyer", ref, details);
  const errors: { field: string; message: string }[] = [];
  if (f.energy_label === "F" || f.energy_label === "G")
    errors.push({
      field: "complement",
      message: `No complément de loyer for a dwelling classed ${f.energy_label} (${F_G})`,
    });
  if (cents(f.base_rent) > cents(f.increased_reference_rent))
    errors.push({
      field: "base_rent",
      message: `The base rent ${euros(cents(f.base_rent))} passes the increased reference rent ${euros(cents(f.increased_reference_rent))}: a complement comes on top of a base rent within it (${ELAN_140})`,
    });
  if (!f.justification?.trim())
    errors.push({
      field: "justification",
      message: `The lease states the determining localisation or comfort features that justify it (${ELAN_140})`,
    });
  if (errors.length > 0)
    return verdict(
      rule,
      "FAIL",
      `The complément de loyer is not allowed: ${errors.map((e) => e.message).join("; ")}`,
      ref,
      {
        ...details,
        errors,
      },
    );
  if (f.energy_label === null)
    return verdict(
      rule,
      "UNKNOWN",
      `No DPE is valid: whether the dwelling is classed F or G (${F_G}) is unknown`,
      ref,
      details,
    );
  return verdict(
    rule,
    "PASS",
    `A complément de loyer of ${euros(cents(f.complement))} on a base rent within the increased reference rent, justified (${ELAN_140})`,
    ref,
    details,
  );
}
