import { type LeaseType, underLoi89 } from "./leaseTypes.ts";
import { cents, euros } from "./money.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The deposit (docs/compliance.md, "Deposit"). Judged when the deposit is set, on the rent of that
 * day: « Il ne doit faire l'objet d'aucune révision durant l'exécution du contrat » (art. 22), so a
 * later rent change neither fails the cap nor changes the deposit.
 */

export interface DepositFacts {
  lease_type: LeaseType;
  /** The rent excluding charges when the deposit is set (the rent at signing). */
  rent_amount: number;
  deposit_amount: number | null;
  rent_frequency: string | null;
  payment_terms: string | null;
}

const CAP: Partial<Record<LeaseType, { months: number; article: string }>> = {
  UNFURNISHED: { months: 1, article: `${LOI_89}, art. 22` },
  FURNISHED: { months: 2, article: `${LOI_89}, art. 25-6` },
  STUDENT: { months: 2, article: `${LOI_89}, art. 25-6` },
  MOBILITY: { months: 0, article: `${LOI_89}, art. 25-13` },
};

const MONTHS_OF: Record<string, number> = { MONTHLY: 1, QUARTERLY: 3, ANNUALLY: 12 };

/** How many months of rent are paid in advance: a period paid at its start (terme à échoir). */
export function monthsPaidInAdvance(terms: Pick<DepositFacts, "rent_frequency" | "payment_terms">): number {
  if (terms.payment_terms !== "TERME_A_ECHOIR") return 0;
  return MONTHS_OF[terms.rent_frequency ?? "MONTHLY"] ?? 1;
}

const RULE = "DEPOSIT_CAP";
const ADVANCE = `${LOI_89}, art. 22 al. 2`;

export function depositVerdict(facts: DepositFacts): Verdict {
  const cap = CAP[facts.lease_type];
  if (!cap || !underLoi89(facts.lease_type))
    return verdict(RULE, "NOT_APPLICABLE", `A ${facts.lease_type} lease is outside loi n° 89-462`, LOI_89);
  const details = {
    deposit_amount: facts.deposit_amount,
    rent_amount: facts.rent_amount,
    rent_frequency: facts.rent_frequency,
    payment_terms: facts.payment_terms,
  };
  if (facts.deposit_amount === null || cents(facts.deposit_amount) === 0)
    return verdict(RULE, "PASS", "No deposit is required", cap.article, details);
  const advance = monthsPaidInAdvance(facts);
  // Art. 25-3 applies art. 22 to furnished leases: al. 2 binds them as it binds the unfurnished.
  const advanceRef = facts.lease_type === "UNFURNISHED" ? ADVANCE : `${ADVANCE}, applied by art. 25-3`;
  if (advance > 2)
    return verdict(
      RULE,
      "FAIL",
      `No deposit may be required when the rent is payable in advance for more than two months (${advanceRef})`,
      advanceRef,
      {
        ...details,
        months_paid_in_advance: advance,
        errors: [
          {
            field: "deposit_amount",
            message: `The rent is paid ${advance} months in advance (${facts.rent_frequency}, ${facts.payment_terms}): no deposit may be required unless the lessee asks to pay monthly`,
          },
        ],
      },
    );
  const max = cents(facts.rent_amount) * cap.months;
  if (cents(facts.deposit_amount) > max)
    return verdict(
      RULE,
      "FAIL",
      `The deposit of a ${facts.lease_type} lease may not exceed ${cap.months} month(s) of rent excluding charges (${cap.article})`,
      cap.article,
      {
        ...details,
        errors: [
          {
            field: "deposit_amount",
            message: `Deposit ${euros(cents(facts.deposit_amount))} exceeds the cap of ${euros(max)} (${cap.months} month(s) of rent ${euros(cents(facts.rent_amount))} excluding charges, ${cap.article})`,
          },
        ],
      },
    );
  return verdict(RULE, "PASS", `The deposit is within the cap of ${cap.article}`, cap.article, details);
}
