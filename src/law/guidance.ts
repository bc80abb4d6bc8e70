import { cents, euros } from "./money.ts";
import { type Advice, LOI_89, advice as verdict } from "./verdict.ts";

/**
 * Guidance on a lease's tenants, as advice: a WARN with the figures, never a refusal
 * (docs/compliance.md, "Guidance"). No text imposes a ratio of income to rent nor a guarantor
 * earning more than the tenant; the law instead limits what may be asked:
 *   - art. 22-2 and décret n° 2015-1437 du 5 novembre 2015: the limitative list of documents a
 *     landlord may ask of a candidate and of a guarantor;
 *   - art. 22-1: no guarantor may be asked alongside a rent-guarantee insurance, unless the tenant
 *     is a student or an apprentice.
 */

export const GUIDANCE_NOTE = `Advice only: no text imposes these figures; ${LOI_89}, art. 22-2 and décret n° 2015-1437 du 5 novembre 2015 limit the documents a landlord may ask of a candidate or a guarantor, and art. 22-1 forbids asking for a guarantor alongside a rent-guarantee insurance (unless the tenant is a student or an apprentice)`;
const REFERENCE = `${LOI_89}, art. 22-1, 22-2; décret n° 2015-1437 du 5 novembre 2015`;
export const INCOME_RATIO = 3;

export interface TenantIncome {
  role: "Primary" | "CoTenant" | "Guarantor";
  /** Monthly income and other monthly income, euros; null: not recorded. */
  monthly_income: number | null;
  other_income: number | null;
}

const incomeOf = (t: TenantIncome) =>
  t.monthly_income === null ? null : cents(t.monthly_income) + cents(t.other_income ?? 0);

/** The tenants' monthly income against three times the rent, and each guarantor's against the primary's. */
export function guidanceVerdicts(facts: { rent_amount: number; tenants: readonly TenantIncome[] }): Advice[] {
  const payers = facts.tenants.filter((t) => t.role !== "Guarantor");
  const incomes = payers.map(incomeOf);
  const threshold = cents(facts.rent_amount) * INCOME_RATIO;
  const rule = "INCOME_THREE_TIMES_RENT";
  let ratio: Advice;
  if (payers.length === 0 || incomes.some((i) => i === null))
    ratio = verdict(
      rule,
      "UNKNOWN",
      `A tenant's monthly income is not recorded. ${GUIDANCE_NOTE}`,
      REFERENCE,
      {
        advice: true,
      },
    );
  else {
    const total = incomes.reduce((s: number, i) => s + (i as number), 0);
    const figures = {
      advice: true,
      tenants_income: euros(total),
      rent_amount: facts.rent_amount,
      threshold: euros(threshold),
    };
    ratio =
      total >= threshold
        ? verdict(
            rule,
            "PASS",
            `The tenants earn ${euros(total)} a month, at least three times the rent (${euros(threshold)}). ${GUIDANCE_NOTE}`,
            REFERENCE,
            figures,
          )
        : verdict(
            rule,
            "WARN",
            `The tenants earn ${euros(total)} a month, less than three times the rent (${euros(threshold)}). ${GUIDANCE_NOTE}`,
            REFERENCE,
            figures,
          );
  }
  const guarantors = facts.tenants.filter((t) => t.role === "Guarantor");
  const primary = facts.tenants.find((t) => t.role === "Primary");
  const grule = "GUARANTOR_EARNS_MORE";
  let guarantor: Advice;
  if (guarantors.length === 0)
    guarantor = verdict(grule, "NOT_APPLICABLE", `No guarantor. ${GUIDANCE_NOTE}`, REFERENCE, {
      advice: true,
    });
  else if (!primary || incomeOf(primary) === null || guarantors.some((g) => incomeOf(g) === null))
    guarantor = verdict(
      grule,
      "UNKNOWN",
      `The primary tenant's or a guarantor's income is not recorded. ${GUIDANCE_NOTE}`,
      REFERENCE,
      {
        advice: true,
      },
    );
  else {
    const base = incomeOf(primary) as number;
    const each = guarantors.map((g) => euros(incomeOf(g) as number));
    const lower = guarantors.filter((g) => (incomeOf(g) as number) <= base);
    const figures = { advice: true, primary_income: euros(base), guarantors_income: each };
    guarantor =
      lower.length === 0
        ? verdict(
            grule,
            "PASS",
            `Each guarantor earns more than the primary tenant (${euros(base)}). ${GUIDANCE_NOTE}`,
            REFERENCE,
            figures,
          )
        : verdict(
            grule,
            "WARN",
            `${lower.length} guarantor(s) earn no more than the primary tenant (${euros(base)}): ${each.join(", ")}. ${GUIDANCE_NOTE}`,
            REFERENCE,
            figures,
          );
  }
  return [ratio, guarantor];
}
