import { addDays, addMonths } from "./calendar.ts";
import { cents, toEuros } from "./money.ts";

/**
 * The rent periods of a lease and what each one calls (docs/rent-cycle.md): the tenant pays rent
 * and charges "aux termes convenus" (loi n° 89-462 du 6 juillet 1989, art. 7 a). Pure: civil days
 * (src/law/calendar.ts), amounts in whole cents, splits by largest remainder.
 *
 * Decisions (docs/decisions.md, "Rent cycle"):
 * - Periods are anchored on the first day of the lease's start month and last 1, 3 or 12 months
 *   (`rent_frequency`; null is MONTHLY, the usual term): a monthly lease's periods are the calendar
 *   months; a quarterly lease starting in February has quarters February-April, May-July...
 * - The first period starts on the lease's start date and the last ends on its end date (when the
 *   lease has one): both are prorated by days, `{days, of_days}` of the full period.
 * - A rent change (index revision, validated amendment) applies from its effective date; one that
 *   falls inside a period splits it by days: each part is paid at the terms in force on its days.
 * - TERME_A_ECHOIR (null too: rent paid in advance is the usual term) is due on `payment_day`
 *   (null: the 1st) of the period's first month, clamped to that month's last day, and never before
 *   the lease starts; TERME_ECHU is due on the period's last day.
 */

export type RentFrequency = "MONTHLY" | "QUARTERLY" | "ANNUALLY";
export type PaymentTerms = "TERME_A_ECHOIR" | "TERME_ECHU";

export const ART_7_A = "loi n° 89-462 du 6 juillet 1989, art. 7 a";

export const MONTHS_OF_FREQUENCY: Record<RentFrequency, number> = { MONTHLY: 1, QUARTERLY: 3, ANNUALLY: 12 };

/** Rent and charges in force from a date (a revision or an amendment's effective date). */
export interface RentChange {
  effective_date: string;
  rent_amount: number;
  charges_amount: number | null;
}

export interface RentScheduleFacts {
  start_date: string;
  /** The lease's last day (notice end, term of a lease that ends at its term), null: it runs on. */
  end_date: string | null;
  rent_frequency: RentFrequency | null;
  payment_terms: PaymentTerms | null;
  payment_day: number | null;
  /** Rent and charges from the start. */
  rent_amount: number;
  charges_amount: number | null;
  changes: readonly RentChange[];
  /** A lease taken over: its periods are called from the one holding this day; absent or null: from the start. */
  takeover_date?: string | null;
}

/** What a rent call states of its period: dates and amounts (also the account's and receipts' figures). */
export interface PeriodFigures {
  period_start: string;
  period_end: string;
  due_date: string;
  rent_amount: number;
  charges_amount: number;
  total_amount: number;
}

export interface RentPeriod extends PeriodFigures {
  prorated: { days: number; of_days: number } | null;
}

const DAY_MS = 86_400_000;
const utc = (date: string) => Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10));

/** Days from `from` to `to`, both included (0 when `to` is before `from`). */
export const daysIn = (from: string, to: string): number =>
  Math.max(0, Math.round((utc(to) - utc(from)) / DAY_MS) + 1);

const lastDayOfMonth = (date: string) => addDays(addMonths(`${date.slice(0, 7)}-01`, 1), -1);

/**
 * `amount` (cents) split in proportion to `weights` so the parts sum back to it exactly: each part
 * rounded down, the cents left go one each to the largest remainders (ties: the earlier part).
 */
export function splitByLargestRemainder(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + w, 0);
  if (total <= 0) return weights.map((_, i) => (i === 0 ? amount : 0));
  const exact = weights.map((w) => (amount * w) / total);
  const parts = exact.map(Math.floor);
  let left = amount - parts.reduce((s, p) => s + p, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    parts[i] += 1;
    left -= 1;
  }
  return parts;
}

/** The full period `index` (0: the one holding the start date): its first and last days. */
export function nominalPeriod(
  facts: Pick<RentScheduleFacts, "start_date" | "rent_frequency">,
  index: number,
) {
  const months = MONTHS_OF_FREQUENCY[facts.rent_frequency ?? "MONTHLY"];
  const anchor = `${facts.start_date.slice(0, 7)}-01`;
  const start = addMonths(anchor, index * months);
  return { start, end: addDays(addMonths(anchor, (index + 1) * months), -1) };
}

/** The index of the period holding `date` (negative before the lease's first period). */
export function periodIndexOn(
  facts: Pick<RentScheduleFacts, "start_date" | "rent_frequency">,
  date: string,
): number {
  const months = MONTHS_OF_FREQUENCY[facts.rent_frequency ?? "MONTHLY"];
  const elapsed =
    (+date.slice(0, 4) - +facts.start_date.slice(0, 4)) * 12 +
    (+date.slice(5, 7) - +facts.start_date.slice(5, 7));
  return Math.floor(elapsed / months);
}

/** Rent and charges in force on `date` (cents): the last change effective on or before it, else the start's. */
function termsOn(facts: RentScheduleFacts, date: string) {
  let terms = { rent: cents(facts.rent_amount), charges: cents(facts.charges_amount ?? 0) };
  let from = "";
  for (const c of facts.changes) {
    if (c.effective_date <= date && c.effective_date >= from) {
      terms = { rent: cents(c.rent_amount), charges: cents(c.charges_amount ?? 0) };
      from = c.effective_date;
    }
  }
  return terms;
}

/** The days of `[from, to]` split where a rent change takes effect. */
function segments(facts: RentScheduleFacts, from: string, to: string): { from: string; to: string }[] {
  const cuts = [...new Set(facts.changes.map((c) => c.effective_date))]
    .filter((d) => d > from && d <= to)
    .sort();
  const out: { from: string; to: string }[] = [];
  let start = from;
  for (const cut of cuts) {
    out.push({ from: start, to: addDays(cut, -1) });
    start = cut;
  }
  out.push({ from: start, to });
  return out;
}

/** Cents of `amount` a part of a full period owes: its share of the full period's split by days. */
const shareOf = (amount: number, full: { start: string; end: string }, part: { from: string; to: string }) =>
  splitByLargestRemainder(amount, [
    daysIn(full.start, addDays(part.from, -1)),
    daysIn(part.from, part.to),
    daysIn(addDays(part.to, 1), full.end),
  ])[1];

function dueDate(
  facts: RentScheduleFacts,
  full: { start: string },
  covered: { from: string; to: string },
): string {
  if (facts.payment_terms === "TERME_ECHU") return covered.to;
  const last = lastDayOfMonth(full.start);
  const day = Math.min(Math.max(1, facts.payment_day ?? 1), +last.slice(8, 10));
  const due = `${full.start.slice(0, 8)}${String(day).padStart(2, "0")}`;
  return due < covered.from ? covered.from : due;
}

/** The period `index` as the lease covers it, or null when the lease does not cover any of it. */
export function rentPeriod(facts: RentScheduleFacts, index: number): RentPeriod | null {
  const full = nominalPeriod(facts, index);
  const from = [full.start, facts.start_date].sort()[1];
  const to = facts.end_date !== null && facts.end_date < full.end ? facts.end_date : full.end;
  if (from > to) return null;
  let rent = 0;
  let charges = 0;
  for (const part of segments(facts, from, to)) {
    const terms = termsOn(facts, part.from);
    rent += shareOf(terms.rent, full, part);
    charges += shareOf(terms.charges, full, part);
  }
  const days = daysIn(from, to);
  const ofDays = daysIn(full.start, full.end);
  return {
    period_start: from,
    period_end: to,
    due_date: dueDate(facts, full, { from, to }),
    rent_amount: toEuros(rent),
    charges_amount: toEuros(charges),
    total_amount: toEuros(rent + charges),
    prorated: days === ofDays ? null : { days, of_days: ofDays },
  };
}

/**
 * Every period that has started on `today` (its first covered day is on or before it), from the
 * period holding `after` exclusive (a date already called: the last call's period start) or from the
 * lease's first period.
 */
export function periodsStartedBy(
  facts: RentScheduleFacts,
  today: string,
  after: string | null = null,
): RentPeriod[] {
  const out: RentPeriod[] = [];
  const resumed = after === null ? 0 : Math.max(0, periodIndexOn(facts, after) + 1);
  const taken = facts.takeover_date && facts.takeover_date > facts.start_date;
  const first = taken ? Math.max(resumed, periodIndexOn(facts, facts.takeover_date as string)) : resumed;
  for (let i = first; ; i++) {
    const full = nominalPeriod(facts, i);
    if (full.start > today || (facts.end_date !== null && full.start > facts.end_date)) break;
    const period = rentPeriod(facts, i);
    if (period && period.period_start <= today) out.push(period);
    if (facts.end_date !== null && full.end >= facts.end_date) break;
  }
  return out;
}
