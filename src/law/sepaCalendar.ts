import { addDays } from "./calendar.ts";

/**
 * The SEPA Direct Debit Core calendar (EPC SDD Core rulebook, since version 9.0 of November 2016:
 * D-1 for every sequence, FRST and RCUR alike): a collection reaches the debtor's bank at least one
 * TARGET2 business day before its due date. TARGET2 is closed on Saturdays, Sundays, 1 January,
 * Good Friday, Easter Monday, 1 May, 25 and 26 December.
 */

/** Easter Sunday of a year (the Gregorian computus, anonymous algorithm). */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export function isTargetBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = date.slice(5);
  if (["01-01", "05-01", "12-25", "12-26"].includes(md)) return false;
  const e = easter(Number(date.slice(0, 4)));
  return date !== addDays(e, -2) && date !== addDays(e, 1);
}

/** The next TARGET2 business day strictly after `date`. */
export function nextTargetBusinessDay(date: string): string {
  let d = addDays(date, 1);
  while (!isTargetBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/**
 * The earliest due date of a collection sent today: the file reaches the bank on a business day
 * (today if it is one, else the next) and the due date is a business day after it (D-1).
 */
export function earliestCollectionDate(today: string): string {
  const sent = isTargetBusinessDay(today) ? today : nextTargetBusinessDay(today);
  return nextTargetBusinessDay(sent);
}
