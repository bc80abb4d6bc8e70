import type { LeaseTerms } from "../../events/leases.ts";
import { unprocessable } from "../../platform/errors.ts";

/**
 * When a notice ends (docs/leases.md, "Notice"): the period the law fixes from the day the notice
 * is received (`effective_date` of LeaseNoticeGiven), by lease type and by who gives it.
 *   - lessee, unfurnished: 3 months, 1 month in a high-demand zone or in the cases the law lists
 *     (first job, transfer, job loss, health, RSA/AAH, social housing): loi n° 89-462 art. 15 I;
 *   - lessee, furnished (and student): 1 month: art. 25-8 I; bail mobilité: 1 month: art. 25-15;
 *   - lessor, unfurnished: at least 6 months before the term, ending the lease at the term: art. 15 I;
 *     furnished: 3 months before the term: art. 25-8 I; bail mobilité: no notice, it ends at its
 *     term (art. 25-14);
 *   - commercial, professional, parking leases are outside loi n° 89-462: the client's date.
 * Months count as délais do (code de procédure civile art. 641): the same day of the month, else
 * the month's last day.
 */

export const NOTICE_GIVERS = ["LESSEE", "LESSOR"] as const;
export type NoticeGiver = (typeof NOTICE_GIVERS)[number];

export interface NoticeFacts {
  given_by: NoticeGiver;
  /** The lessee invokes one of art. 15 I's cases for a 1-month notice. */
  reduced_notice: boolean;
  /** The estate's zone from its rent regulation; null when never set (not a high-demand zone). */
  high_demand_zone: boolean | null;
  /** A later end the client asks for; null for the legal one. */
  requested_end: string | null;
}

export const DEFAULT_NOTICE: NoticeFacts = {
  given_by: "LESSEE",
  reduced_notice: false,
  high_demand_zone: null,
  requested_end: null,
};

/** `date` plus `months` (code de procédure civile art. 641: same day, else the month's last day). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const month = m - 1 + months;
  const year = y + Math.floor(month / 12);
  const monthIndex = ((month % 12) + 12) % 12;
  const last = new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
  const day = Math.min(d, last);
  return `${String(year).padStart(4, "0")}-${String(monthIndex + 1).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

type NoticeTerms = Pick<LeaseTerms, "lease_type" | "start_date" | "end_date" | "duration_months">;

interface Period {
  months: number;
  law: string;
}

/** The statutory period, or null outside loi n° 89-462 (the client's date applies). */
function periodOf(terms: NoticeTerms, facts: NoticeFacts): Period | null {
  const law = "loi n° 89-462 du 6 juillet 1989";
  switch (terms.lease_type) {
    case "UNFURNISHED":
      if (facts.given_by === "LESSOR") return { months: 6, law: `${law}, art. 15 I` };
      return facts.high_demand_zone === true || facts.reduced_notice
        ? { months: 1, law: `${law}, art. 15 I (reduced notice)` }
        : { months: 3, law: `${law}, art. 15 I` };
    case "FURNISHED":
    case "STUDENT":
      return facts.given_by === "LESSOR"
        ? { months: 3, law: `${law}, art. 25-8 I` }
        : { months: 1, law: `${law}, art. 25-8 I` };
    case "MOBILITY":
      if (facts.given_by === "LESSOR")
        throw unprocessable(
          `The lessor cannot give notice on a bail mobilité: it ends at its term (${law}, art. 25-14)`,
          [{ field: "given_by", message: "Only the lessee gives notice on a bail mobilité (art. 25-15)" }],
        );
      return { months: 1, law: `${law}, art. 25-15` };
    default:
      return null;
  }
}

/**
 * The term a lessor's notice ends the lease at: its end date, else the first end of a period of
 * `duration_months` from the start (renewed tacitly: art. 10, art. 25-7) at least `earliest`.
 */
function termFor(terms: NoticeTerms, earliest: string, period: Period): string {
  if (terms.end_date !== null) {
    if (terms.end_date < earliest)
      throw unprocessable(
        `A lessor's notice must reach the lessee at least ${period.months} months before the term (${period.law})`,
        [
          {
            field: "effective_date",
            message: `The period ends ${earliest}, after the term ${terms.end_date}`,
          },
        ],
      );
    return terms.end_date;
  }
  if (terms.duration_months === null)
    throw unprocessable(
      `A lessor's notice takes effect at the lease's term (${period.law}); the lease has neither end_date nor duration_months`,
      [{ field: "given_by", message: "The lease's term is unknown" }],
    );
  let n = 1;
  while (addMonths(terms.start_date, n * terms.duration_months) < earliest) n++;
  return addMonths(terms.start_date, n * terms.duration_months);
}

/** The end of a notice received on `notifiedOn`; 422 when the law refuses it, figures in `details`. */
export function noticeEndDate(terms: NoticeTerms, notifiedOn: string, facts: NoticeFacts): string | null {
  const period = periodOf(terms, facts);
  if (period === null) {
    if (facts.requested_end !== null && facts.requested_end < notifiedOn)
      throw unprocessable("The notice cannot end before it is given", [
        { field: "notice_end_date", message: `${facts.requested_end} is before ${notifiedOn}` },
      ]);
    return facts.requested_end;
  }
  const earliest = addMonths(notifiedOn, period.months);
  const legal = facts.given_by === "LESSOR" ? termFor(terms, earliest, period) : earliest;
  if (facts.requested_end === null) return legal;
  if (facts.requested_end < legal)
    throw unprocessable(
      `The notice period is ${period.months} month(s) from ${notifiedOn} (${period.law}): it ends ${legal} at the earliest`,
      [{ field: "notice_end_date", message: `${facts.requested_end} is before ${legal}` }],
    );
  return facts.requested_end;
}
