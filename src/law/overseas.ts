import { cents, euros } from "./money.ts";
import { irlCapped } from "./rent.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The overseas departments (Guadeloupe 971, Martinique 972, Guyane 973, La Réunion 974, Mayotte
 * 976; 975 Saint-Pierre-et-Miquelon is not a department of art. 73 of the Constitution and is left
 * out), told by the estate's postal code (docs/compliance.md, "Overseas departments"):
 *   - loi n° 2022-1158 du 16 août 2022, art. 12: the yearly IRL variation of the quarters 2022-Q3 to
 *     2024-Q1 is capped at 2.5 % there (3.5 % in metropolitan France, already in the published IRL);
 *   - décret n° 2002-120 art. 3 bis II (loi n° 2021-1104 art. 160): G not decent from 2028-01-01,
 *     F from 2031-01-01 (no E step);
 *   - loi n° 2021-1104 art. 159: the F/G rent freeze for contracts concluded, renewed or tacitly
 *     renewed from 2024-07-01.
 */

export const OVERSEAS_POSTAL_PREFIXES = ["971", "972", "973", "974", "976"] as const;
export const isOverseas = (postalCode: string | null | undefined): boolean =>
  typeof postalCode === "string" && OVERSEAS_POSTAL_PREFIXES.some((p) => postalCode.trim().startsWith(p));

export { OVERSEAS_DECENCY_CALENDAR } from "./dpe.ts";
export { OVERSEAS_FREEZE_FROM } from "./rent.ts";
export const OVERSEAS_IRL_SHIELD_PERCENT = 2.5;
const SHIELD = "loi n° 2022-1158 du 16 août 2022, art. 12 (2,5 % outre-mer)";

/**
 * An IRL revision overseas on a quarter of the shield: at most the current rent + 2.5 % (rounded
 * down to the cent), whatever the published index (which carries the metropolitan 3.5 %).
 */
export function overseasIrlShieldVerdict(input: {
  current_rent: number;
  new_rent: number;
  new_quarter: string;
}): Verdict {
  const rule = "IRL_OVERSEAS_SHIELD";
  const ref = `${LOI_89}, art. 17-1 I; ${SHIELD}`;
  if (!irlCapped(input.new_quarter))
    return verdict(rule, "NOT_APPLICABLE", `${input.new_quarter} is outside 2022-Q3..2024-Q1`, ref, input);
  const max = Math.floor((cents(input.current_rent) * 1025) / 1000);
  const details = { ...input, max_rent: euros(max) };
  if (cents(input.new_rent) <= max)
    return verdict(rule, "PASS", `Within 2.5 % of the current rent overseas (${SHIELD})`, ref, details);
  return verdict(
    rule,
    "FAIL",
    `Overseas, a revision on ${input.new_quarter} raises the rent by at most 2.5 % (${SHIELD})`,
    ref,
    {
      ...details,
      errors: [
        {
          field: "rent_amount",
          message: `Revised rent ${euros(cents(input.new_rent))} exceeds ${euros(max)} (+2.5 %)`,
        },
      ],
    },
  );
}
