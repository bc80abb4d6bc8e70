import { cents, euros, toEuros } from "./money.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Reminders of unpaid rent (docs/rent-cycle.md, "Reminders"). The law fixes no schedule: the levels
 * are the landlord's (configuration; default J+5 reminder, J+15 second reminder, J+30 formal
 * notice). What it fixes is that a reminder costs the tenant nothing and adds nothing to the debt.
 * Loi n° 89-462 art. 4, a clause is deemed unwritten:
 *   i) « qui autorise le bailleur à percevoir des amendes ou des pénalités en cas d'infraction aux
 *      clauses d'un contrat de location […] » (no late-payment penalty);
 *   p) « qui fait supporter au locataire des frais de relance ou d'expédition de la quittance »
 *      (no fee for a reminder).
 * Our own rules on top (docs/decisions.md, "Rent reminders"): each level at most once per call,
 * never once the call is paid, at least 24 hours between two reminders of the same call, the lowest
 * level due first (two levels due on the same day go out a day apart, in order).
 */

export const ART_4_I = `${LOI_89}, art. 4 i`;
export const ART_4_P = `${LOI_89}, art. 4 p`;

export const REMINDER_KINDS = ["REMINDER", "SECOND_REMINDER", "FORMAL_NOTICE"] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];

export interface ReminderLevel {
  level: number;
  days_after_due: number;
  kind: ReminderKind;
}

export const DEFAULT_REMINDER_LEVELS: ReminderLevel[] = [
  { level: 1, days_after_due: 5, kind: "REMINDER" },
  { level: 2, days_after_due: 15, kind: "SECOND_REMINDER" },
  { level: 3, days_after_due: 30, kind: "FORMAL_NOTICE" },
];

/** Hours that must pass between two reminders of the same call. */
export const MIN_HOURS_BETWEEN_REMINDERS = 24;

export interface ReminderFacts {
  due_date: string;
  /** What is still owed on the call (total minus what was allocated to it). */
  remaining_amount: number;
  /** The legal day (Europe/Paris) and the instant of the run. */
  today: string;
  now: string;
  levels: readonly ReminderLevel[];
  /** The reminders already sent for this call (whatever happened to its payments since). */
  sent: readonly { level: number; sent_at: string }[];
}

const DAY_MS = 86_400_000;
const utc = (date: string) => Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10));

/** Whole days from the due date to `today` (0 on the due date, negative before). */
export const daysLate = (due_date: string, today: string): number =>
  Math.round((utc(today) - utc(due_date)) / DAY_MS);

const RULE = "RENT_REMINDER";
const NO_FEE = `${ART_4_P}; ${ART_4_I}`;

/**
 * Whether a reminder of this call goes out now: PASS with `details` {level, kind, days_late,
 * amount_claimed (the remaining amount, nothing added), fee_amount 0}; NOT_APPLICABLE with the
 * reason otherwise (paid, no level due yet, every due level sent, the last one under 24 h ago).
 */
export function reminderVerdict(facts: ReminderFacts): Verdict {
  const late = daysLate(facts.due_date, facts.today);
  const none = (message: string, details: Record<string, unknown> = {}) =>
    verdict(RULE, "NOT_APPLICABLE", message, NO_FEE, { days_late: late, ...details });
  if (cents(facts.remaining_amount) <= 0) return none("The call is paid: no reminder");
  const sentLevels = new Set(facts.sent.map((s) => s.level));
  const due = [...facts.levels]
    .sort((a, b) => a.days_after_due - b.days_after_due || a.level - b.level)
    .filter((l) => l.days_after_due <= late && !sentLevels.has(l.level));
  if (due.length === 0)
    return none(
      facts.levels.some((l) => l.days_after_due <= late)
        ? "Every reminder level due so far has been sent"
        : `No reminder level is due ${late} day(s) after the due date`,
    );
  if (facts.sent.length > 0) {
    const last = Math.max(...facts.sent.map((s) => Date.parse(s.sent_at)));
    const next = new Date(last + MIN_HOURS_BETWEEN_REMINDERS * 3_600_000).toISOString();
    if (Date.parse(facts.now) < Date.parse(next))
      return none(`A reminder of this call was sent less than ${MIN_HOURS_BETWEEN_REMINDERS} hours ago`, {
        next_possible_at: next,
      });
  }
  const level = due[0];
  return verdict(
    RULE,
    "PASS",
    `Reminder level ${level.level} (${level.kind}) is due ${late} day(s) after the due date: ${euros(cents(facts.remaining_amount))} is claimed, no fee or penalty (${NO_FEE})`,
    NO_FEE,
    {
      level: level.level,
      kind: level.kind,
      days_late: late,
      amount_claimed: toEuros(cents(facts.remaining_amount)),
      fee_amount: 0,
    },
  );
}

/**
 * A letter claiming rent may claim what is owed and nothing more: an amount above it carries a fee
 * (art. 4 p) or a penalty (art. 4 i). FAIL names the excess.
 */
export function claimVerdict(claimed_amount: number, owed_amount: number): Verdict {
  const excess = cents(claimed_amount) - cents(owed_amount);
  if (excess <= 0)
    return verdict("NO_FEE_OR_PENALTY", "PASS", "The amount claimed is what is owed", NO_FEE, {
      claimed_amount,
      owed_amount,
    });
  return verdict(
    "NO_FEE_OR_PENALTY",
    "FAIL",
    `A reminder may not add a fee or a penalty to the rent owed (${NO_FEE}): ${euros(excess)} above the ${euros(cents(owed_amount))} owed`,
    NO_FEE,
    {
      claimed_amount,
      owed_amount,
      errors: [{ field: "amount_claimed", message: `${euros(excess)} more than what is owed` }],
    },
  );
}
