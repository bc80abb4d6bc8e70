import { parisDate } from "../platform/formatDates.ts";

/**
 * The law's calendar (docs/compliance.md, "Calendar"): days are YYYY-MM-DD strings of the French
 * civil calendar. A legal "today" is the day in Paris, where the properties are: a notice given at
 * 00:30 in Paris is dated that Paris day, not the UTC day before.
 */

/** The legal day of an instant (default now): its date in Europe/Paris. */
export const legalToday = (at: Date | string = new Date()): string => parisDate(at);

const ymd = (date: string) => date.split("-").map(Number) as [number, number, number];
const format = (y: number, m: number, d: number) =>
  `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;

/**
 * `date` plus `months` as the code de procédure civile counts a period in months (art. 641): the
 * day of the last month bearing the same number as the starting day, or that month's last day when
 * it has none (31 January + 1 month = 28 or 29 February). Negative `months` count backwards.
 */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = ymd(date);
  const total = y * 12 + (m - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return format(year, month + 1, Math.min(d, last));
}

/** `date` plus `days` calendar days (negative: before). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = ymd(date);
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return format(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** `date` plus `years` (a period in years counts as 12 months: 29 February lands on 28 February). */
export const addYears = (date: string, years: number): string => addMonths(date, years * 12);

/**
 * The last day of a term of `months` from `start`: the day before the anniversary (a lease taking
 * effect on 10 January for 3 years ends on 9 January three years later).
 */
export const termEnd = (start: string, months: number): string => addDays(addMonths(start, months), -1);

/**
 * The last day an act due "N months before the term" may be received: the day before the
 * anniversary-equivalent N months before the day after the term (a term of 2023-03-31 needs a
 * 6-month notice by 2022-09-30; received 2022-10-01 it is late), the last day whose N months
 * (counted as art. 641 counts) run out by the term. Loi n° 89-462 art. 15 I, 25-8 I,
 * 17-2; code de commerce art. L. 145-4, L. 145-9.
 */
export function lastDayBefore(term: string, months: number): string {
  let day = addDays(addMonths(addDays(term, 1), -months), -1);
  // At a month's end the backward count clamps (31 December - 6 months = 30 June): the period
  // counted from receipt (art. 641) must still run out by the term, so move to its last such day.
  while (addMonths(addDays(day, 1), months) <= term) day = addDays(day, 1);
  return day;
}

/** Whole months from `start` to the anniversary following `end` (a term's length; at least 1). */
export function monthsOfTerm(start: string, end: string): number {
  const [y1, m1] = ymd(start);
  const [y2, m2] = ymd(addDays(end, 1));
  let months = (y2 - y1) * 12 + (m2 - m1);
  if (addMonths(start, months) > addDays(end, 1)) months -= 1;
  return Math.max(1, months);
}
