import { addDays } from "./calendar.ts";
import { type Verdict, verdict } from "./verdict.ts";

/**
 * Pre-notification of a SEPA Core direct debit (EPC016-06, SEPA Core Direct Debit Scheme Rulebook;
 * its section number is not cited: the rulebook's text could not be read here, only secondary
 * sources stating the 14 days): the creditor tells the debtor the amount and the due date at
 * least 14 calendar days before the debit, unless creditor and debtor agreed another delay (the
 * lease may set a shorter one). The day the notice reached the tenant counts as day 0: a notice
 * reached on 1 December allows a debit on 15 December, not on 14 December.
 */
export const SDD_PRENOTIFICATION = "EPC SEPA Core Direct Debit Scheme Rulebook (EPC016-06), pre-notification";
export const SDD_PRENOTIFICATION_DAYS = 14;

export function prenotificationVerdict(input: {
  /** The legal day the pre-notification reached the debtor; null when it did not (yet). */
  notified_on: string | null;
  /** The debit date (the collection's due date). */
  debit_on: string;
  /** A shorter delay the lease agreed, in calendar days (null: the rulebook's 14). */
  agreed_days?: number | null;
}): Verdict {
  const days =
    input.agreed_days != null && input.agreed_days >= 0 && input.agreed_days < SDD_PRENOTIFICATION_DAYS
      ? input.agreed_days
      : SDD_PRENOTIFICATION_DAYS;
  const rule = "sdd_prenotification";
  if (input.notified_on === null)
    return verdict(
      rule,
      "FAIL",
      `The tenant has not received the pre-notification of this debit (amount and date at least ${days} calendar days before it)`,
      SDD_PRENOTIFICATION,
      { notified_on: null, debit_on: input.debit_on, days },
    );
  const latest = addDays(input.debit_on, -days);
  const details = {
    notified_on: input.notified_on,
    debit_on: input.debit_on,
    days,
    latest_notice_on: latest,
  };
  return input.notified_on <= latest
    ? verdict(
        rule,
        "PASS",
        `Pre-notified at least ${days} calendar days before the debit`,
        SDD_PRENOTIFICATION,
        details,
      )
    : verdict(
        rule,
        "FAIL",
        `Pre-notified on ${input.notified_on}, less than ${days} calendar days before the debit on ${input.debit_on} (it had to reach the tenant by ${latest})`,
        SDD_PRENOTIFICATION,
        details,
      );
}
