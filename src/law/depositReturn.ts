import { addMonths } from "./calendar.ts";
import { cents, euros, toEuros } from "./money.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Returning the deposit at the end of a lease (loi n° 89-462 art. 22, docs/moving.md "Deposit"):
 *   - al. 3: within 2 months of the keys' return, less the sums still owed to the lessor, duly
 *     justified;
 *   - al. 4: within 1 month when the exit condition report matches the entry one;
 *   - al. 5: « lorsque les locaux loués se situent dans un immeuble collectif », the lessor may hold,
 *     duly justified, at most 20 % of the deposit until « l'arrêté annuel des comptes de
 *     l'immeuble »: only a building in copropriété has such accounts (docs/decisions.md);
 *   - al. 7: late, the deposit still owed is increased by 10 % of the monthly rent excluding
 *     charges for each started month of delay, « pas due lorsque l'origine du défaut de
 *     restitution dans les délais résulte de l'absence de transmission par le locataire de
 *     l'adresse de son nouveau domicile ».
 * Amounts are euros in, compared and split in whole cents.
 */

const ART_22 = `${LOI_89}, art. 22`;

/** When the deposit is due: 1 month after the keys' return when the exit report matches the entry, else 2. */
export function depositDueOn(keysReturnedOn: string, exitMatchesEntry: boolean | null): Verdict {
  const months = exitMatchesEntry === true ? 1 : 2;
  const due_on = addMonths(keysReturnedOn, months);
  return verdict(
    "DEPOSIT_DUE_DATE",
    "PASS",
    exitMatchesEntry === true
      ? `The exit report matches the entry report: the deposit is due within one month, by ${due_on}`
      : `The deposit is due within two months of the keys' return, by ${due_on}`,
    `${ART_22} al. ${exitMatchesEntry === true ? 4 : 3}`,
    { due_on, months },
  );
}

/**
 * Started months of delay from `dueOn` to `paidOn`: none when paid by the due day; 1 up to the
 * same day a month later; 40 days late is 2.
 */
export function startedMonthsLate(dueOn: string, paidOn: string): number {
  if (paidOn <= dueOn) return 0;
  let months = 1;
  while (addMonths(dueOn, months) < paidOn) months++;
  return months;
}

/**
 * The penalty for a late return: 10 % of the monthly rent (excluding charges) per started month;
 * none when the lateness comes from the tenant giving no forwarding address (`forwardingAddress`
 * false; true or null: given or not stated, the penalty runs).
 */
export function latePenalty(
  dueOn: string,
  paidOn: string,
  monthlyRent: number,
  forwardingAddress: boolean | null = null,
): Verdict {
  const months = startedMonthsLate(dueOn, paidOn);
  if (months > 0 && forwardingAddress === false)
    return verdict(
      "DEPOSIT_LATE_PENALTY",
      "NOT_APPLICABLE",
      `Returned ${months} started month(s) after ${dueOn}, but the tenant gave no forwarding address: no penalty (${ART_22} al. 7)`,
      `${ART_22} al. 7`,
      { late_months: months, late_penalty: 0, forwarding_address_given: false },
    );
  const penalty = toEuros(Math.round((months * cents(monthlyRent)) / 10));
  return verdict(
    "DEPOSIT_LATE_PENALTY",
    months === 0 ? "PASS" : "FAIL",
    months === 0
      ? `Returned by ${dueOn}: no penalty`
      : `Returned ${months} started month(s) after ${dueOn}: ${euros(cents(penalty))} EUR owed on top (10 % of the monthly rent ${euros(cents(monthlyRent))} per started month)`,
    `${ART_22} al. 7`,
    { late_months: months, late_penalty: penalty },
  );
}

export const DEDUCTION_KINDS = ["UNPAID_RENT", "REPAIR"] as const;
export type DeductionKind = (typeof DEDUCTION_KINDS)[number];

/** A deduction with the facts that justify it, as the route looked them up. */
export interface DeductionFacts {
  kind: DeductionKind;
  amount: number;
  /** UNPAID_RENT: what is still owed on the named rent call (null: no such call on the lease). */
  call_remaining?: number | null;
  /** REPAIR: whether the invoice's media exists (false: unknown or absent). */
  invoice_found?: boolean;
}

export interface DepositReturnFacts {
  amount: number;
  deductions: DeductionFacts[];
  held: number;
  /** Whether the building is in copropriété (its annual accounts exist); null: not recorded. */
  in_copropriete?: boolean | null;
}

/**
 * The split of a deposit: PASS with `details.returned_amount` (amount − deductions − held, to the
 * cent), FAIL naming the fields when a deduction is not justified (art. 22 al. 3: "dûment
 * justifiées"), the held part passes 20 % (al. 5) or the whole passes the deposit.
 */
export function depositReturnVerdict(facts: DepositReturnFacts): Verdict {
  const errors: { field: string; message: string }[] = [];
  facts.deductions.forEach((d, i) => {
    const field = `deductions.${i}`;
    if (d.kind === "UNPAID_RENT") {
      if (d.call_remaining === null || d.call_remaining === undefined)
        errors.push({ field: `${field}.rent_call_id`, message: "No such rent call on this lease" });
      else if (cents(d.amount) > cents(d.call_remaining))
        errors.push({
          field: `${field}.amount`,
          message: `${euros(cents(d.amount))} is more than the ${euros(cents(d.call_remaining))} still owed on the call`,
        });
    } else if (!d.invoice_found)
      errors.push({
        field: `${field}.invoice_media_id`,
        message: "A repair is justified by its invoice (media)",
      });
  });
  const amount = cents(facts.amount);
  const cap = Math.floor(amount / 5);
  if (cents(facts.held) > 0 && facts.in_copropriete !== true)
    errors.push({
      field: "held",
      message:
        facts.in_copropriete === false
          ? "Nothing may be held: the building is not in copropriété, it has no annual accounts to wait for (art. 22 al. 5)"
          : "Nothing may be held unless the building is in copropriété (art. 22 al. 5): record its copropriété rules first",
    });
  else if (cents(facts.held) > cap)
    errors.push({ field: "held", message: `At most 20 % of the deposit may be held: ${euros(cap)}` });
  const deducted = facts.deductions.reduce((sum, d) => sum + cents(d.amount), 0);
  const returned = amount - deducted - cents(facts.held);
  if (returned < 0)
    errors.push({
      field: "deductions",
      message: `Deductions ${euros(deducted)} and held ${euros(cents(facts.held))} exceed the deposit ${euros(amount)}`,
    });
  if (errors.length > 0)
    return verdict(
      "DEPOSIT_RETURN",
      "FAIL",
      `The deposit's deductions must be justified and the held part at most 20 % (${ART_22} al. 3 and 5)`,
      ART_22,
      { errors },
    );
  return verdict("DEPOSIT_RETURN", "PASS", `${euros(returned)} returned of ${euros(amount)}`, ART_22, {
    returned_amount: toEuros(returned),
    deducted: toEuros(deducted),
    held: toEuros(cents(facts.held)),
  });
}

/**
 * The balance of the held part (art. 22 al. 5): "la régularisation définitive et la restitution du
 * solde, déduction faite, le cas échéant, des sommes restant dues au bailleur [...], sont effectuées
 * dans le mois qui suit l'approbation définitive des comptes de l'immeuble". PASS with
 * `details.balance_returned` (held − charges) and `details.due_on` (a month after the approval);
 * FAIL when the charges deducted pass what was held.
 */
export function depositBalanceVerdict(facts: {
  held: number;
  charges_deducted: number;
  accounts_approved_on: string;
}): Verdict {
  const held = cents(facts.held);
  const charges = cents(facts.charges_deducted);
  const due_on = addMonths(facts.accounts_approved_on, 1);
  if (charges > held)
    return verdict(
      "DEPOSIT_BALANCE",
      "FAIL",
      `The charges deducted (${euros(charges)}) pass what was held (${euros(held)}): only the held part may settle them`,
      `${ART_22} al. 5`,
      { errors: [{ field: "charges_deducted", message: `At most the held ${euros(held)}` }] },
    );
  return verdict(
    "DEPOSIT_BALANCE",
    "PASS",
    `The balance ${euros(held - charges)} is due within a month of the building's accounts' approval, by ${due_on}`,
    `${ART_22} al. 5`,
    { balance_returned: toEuros(held - charges), due_on },
  );
}
