import { addDays } from "./calendar.ts";
import { euros } from "./money.ts";
import { type Verdict, verdict } from "./verdict.ts";

/**
 * Copropriété fund calls (docs/charges.md, "Syndic"). Pure: amounts in whole cents, dates
 * YYYY-MM-DD.
 *
 * - Loi n° 65-557 du 10 juillet 1965, art. 14-1: the co-owners pay provisions equal to a quarter of
 *   the voted budget, due the first day of each quarter (unless the general assembly fixes other
 *   terms; this service applies the statutory ones).
 * - Art. 14-2 (II, fonds de travaux, since loi ALUR; art. 14-2-1 since ordonnance n° 2019-1101): the
 *   works fund is an annual contribution called apart, on the same terms as the budget's provisions.
 * - Art. 19-2: when a provision is not paid when due and a formal notice stays unanswered for more
 *   than 30 days, the provisions of the year not yet due fall due at once.
 * - Code civil art. 1342-10: a payment whose payer names no debt goes to the debts due first, the
 *   oldest first, equal ones in proportion (a lot's payments to its calls).
 */

export const ART_14_1 = "loi n° 65-557 du 10 juillet 1965, art. 14-1";
export const ART_14_2 =
  "loi n° 65-557 du 10 juillet 1965, art. 14-2 (fonds de travaux; art. 14-2-1 since 2019)";
export const ART_19_2 = "loi n° 65-557 du 10 juillet 1965, art. 19-2";

/** The days a formal notice gives before the year's remaining provisions fall due (art. 19-2). */
export const FORMAL_NOTICE_DAYS = 30;

/**
 * `amount` cents split in proportion to integer `weights` (tantièmes) so the parts sum back exactly:
 * each part rounded down, the cents left one each to the largest remainders (ties: the earlier
 * part). Integer arithmetic throughout: no float decides a cent.
 */
export function allocateByWeights(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + BigInt(w), 0n);
  if (total <= 0n) throw new Error("The weights must sum to more than 0");
  const a = BigInt(amount);
  const parts = weights.map((w) => (a * BigInt(w)) / total);
  let left = a - parts.reduce((s, p) => s + p, 0n);
  const order = weights
    .map((w, i) => ({ i, r: (a * BigInt(w)) % total }))
    .sort((x, y) => (y.r > x.r ? 1 : y.r < x.r ? -1 : x.i - y.i));
  for (const { i } of order) {
    if (left <= 0n) break;
    parts[i] += 1n;
    left -= 1n;
  }
  return parts.map(Number);
}

/** The first day of each quarter of `year`: the due dates of the provisions (art. 14-1). */
export const quarterDueDates = (year: number): string[] =>
  ["01", "04", "07", "10"].map((m) => `${String(year).padStart(4, "0")}-${m}-01`);

export type FundKind = "BUDGET" | "WORKS_FUND";

export interface Lot {
  estate_id: string;
  tantiemes: number;
}

export interface FundCall {
  kind: FundKind;
  quarter: number;
  due_on: string;
  estate_id: string;
  amount_cents: number;
}

/**
 * The year's calls: for the budget (art. 14-1) and, apart, the works fund (art. 14-2), each a
 * quarter of the year's amount due the first day of each quarter, each quarter allocated to the
 * lots by tantièmes. Exact to the cent both ways: a quarter's lots sum to the quarter, the
 * quarters to the year (the cents a quarter split leaves go to the earliest quarters).
 */
export function fundCalls(
  year: number,
  budgetCents: number,
  worksFundCents: number,
  lots: readonly Lot[],
): FundCall[] {
  const dates = quarterDueDates(year);
  const weights = lots.map((l) => l.tantiemes);
  const calls: FundCall[] = [];
  for (const [kind, amount] of [
    ["BUDGET", budgetCents],
    ["WORKS_FUND", worksFundCents],
  ] as const) {
    if (amount <= 0) continue;
    allocateByWeights(amount, [1, 1, 1, 1]).forEach((quarterCents, q) => {
      allocateByWeights(quarterCents, weights).forEach((cents, i) => {
        calls.push({
          kind,
          quarter: q + 1,
          due_on: dates[q],
          estate_id: lots[i].estate_id,
          amount_cents: cents,
        });
      });
    });
  }
  return calls;
}

export interface FormalNotice {
  estate_id: string;
  sent_on: string;
  /** The day the lot paid what the notice claimed; null while unpaid. */
  answered_on: string | null;
}

/** The day the year's remaining provisions fall due after an unanswered notice: 30 days after it, the next day. */
export const accelerationDate = (sentOn: string): string => addDays(sentOn, FORMAL_NOTICE_DAYS + 1);

/**
 * Art. 19-2: a notice unanswered for more than 30 days makes the lot's calls of the year not yet due
 * fall due on the 31st day. PASS (nothing falls due early) while the 30 days run or once the notice
 * was answered within them; FAIL lists the calls brought forward and their new due date.
 */
export function remainingCallsFallDue(
  notice: FormalNotice,
  calls: readonly FundCall[],
  today: string,
): Verdict {
  const due = accelerationDate(notice.sent_on);
  const answeredInTime = notice.answered_on !== null && notice.answered_on < due;
  const later = calls.filter((c) => c.estate_id === notice.estate_id && c.due_on > due);
  const details = { notice_sent_on: notice.sent_on, falls_due_on: due };
  if (answeredInTime)
    return verdict(
      "SYNDIC_REMAINING_CALLS_DUE",
      "PASS",
      "The formal notice was answered within 30 days",
      ART_19_2,
      details,
    );
  if (today < due)
    return verdict(
      "SYNDIC_REMAINING_CALLS_DUE",
      "PASS",
      `The 30 days of the formal notice run until ${addDays(due, -1)}`,
      ART_19_2,
      details,
    );
  const total = later.reduce((s, c) => s + c.amount_cents, 0);
  return verdict(
    "SYNDIC_REMAINING_CALLS_DUE",
    "FAIL",
    `Formal notice of ${notice.sent_on} unanswered for more than 30 days: the year's ${later.length} remaining call(s), ${euros(total)} EUR, fall due on ${due}`,
    ART_19_2,
    {
      ...details,
      calls: later.map((c) => ({ kind: c.kind, quarter: c.quarter, amount: c.amount_cents / 100 })),
    },
  );
}

/** The due date of a call once the lot's formal notices are taken into account (art. 14-1, 19-2). */
export function effectiveDueOn(call: FundCall, notices: readonly FormalNotice[], today: string): string {
  let due = call.due_on;
  for (const notice of notices) {
    if (notice.estate_id !== call.estate_id) continue;
    const v = remainingCallsFallDue(notice, [call], today);
    const date = v.details.falls_due_on as string;
    if (v.status === "FAIL" && call.due_on > date && date < due) due = date;
  }
  return due;
}

/** A lot's payment to the syndic (cents), with no call named by the payer. */
export interface LotPayment {
  estate_id: string;
  paid_on: string;
  amount_cents: number;
}

/**
 * What each call has received, in cents, index for index with `calls`: each payment of a lot, in
 * the order paid, goes to that lot's calls as the code civil imputes a payment whose payer named no
 * debt (art. 1342-10): first to the calls due on the day paid, the oldest first; then, in advance,
 * to the calls not yet due, the earliest first. Calls due the same day (the budget's and the works
 * fund's) share a payment in proportion to what they owe ("toutes choses égales, elle se fait
 * proportionnellement"). What no call of the lot still owes is left over.
 */
export function paidByCall(calls: readonly FundCall[], payments: readonly LotPayment[]): number[] {
  const paid = calls.map(() => 0);
  const ordered = [...payments].sort((a, b) => a.paid_on.localeCompare(b.paid_on));
  for (const payment of ordered) {
    let left = payment.amount_cents;
    const mine = calls.flatMap((c, i) => (c.estate_id === payment.estate_id ? [i] : []));
    const days = [...new Set(mine.map((i) => calls[i].due_on))].sort();
    const order = [...days.filter((d) => d <= payment.paid_on), ...days.filter((d) => d > payment.paid_on)];
    for (const day of order) {
      const group = mine.filter((i) => calls[i].due_on === day);
      const owed = group.map((i) => calls[i].amount_cents - paid[i]);
      const take = Math.min(
        left,
        owed.reduce((sum, o) => sum + o, 0),
      );
      if (take === 0) continue;
      const parts = allocateByWeights(take, owed);
      group.forEach((i, k) => {
        paid[i] += parts[k];
      });
      left -= take;
    }
  }
  return paid;
}

/** What a lot's calls still owe, in cents, once its payments are applied. */
export const lotOutstanding = (
  calls: readonly FundCall[],
  payments: readonly LotPayment[],
  estateId: string,
) => {
  const paid = paidByCall(calls, payments);
  return calls.reduce((sum, c, i) => (c.estate_id === estateId ? sum + c.amount_cents - paid[i] : sum), 0);
};

/**
 * Art. 19-2 acts "à défaut du versement à sa date d'exigibilité d'une provision": a formal notice
 * needs a provision of the lot due by the day it is sent and unpaid that day (its payments applied
 * by `paidByCall`). FAIL names `estate_id`: the lot owes nothing due, the notice has no ground.
 */
export function formalNoticeGrounds(
  calls: readonly FundCall[],
  payments: readonly LotPayment[],
  estateId: string,
  sentOn: string,
): Verdict {
  const paid = paidByCall(
    calls,
    payments.filter((p) => p.paid_on <= sentOn),
  );
  const unpaid = calls.flatMap((c, i) =>
    c.estate_id === estateId && c.due_on <= sentOn && paid[i] < c.amount_cents
      ? [{ kind: c.kind, quarter: c.quarter, due_on: c.due_on, unpaid: (c.amount_cents - paid[i]) / 100 }]
      : [],
  );
  if (unpaid.length > 0)
    return verdict(
      "SYNDIC_FORMAL_NOTICE_GROUNDS",
      "PASS",
      `${unpaid.length} provision(s) of the lot unpaid at their due date`,
      ART_19_2,
      { unpaid_calls: unpaid },
    );
  const message = `The lot owes no provision due by ${sentOn}: a formal notice needs one unpaid at its due date (${ART_19_2})`;
  return verdict("SYNDIC_FORMAL_NOTICE_GROUNDS", "FAIL", message, ART_19_2, {
    errors: [{ field: "estate_id", message }],
  });
}

/**
 * The day the lot's payments met what a formal notice claimed (its provisions due and unpaid on
 * the day sent, art. 19-2), payments applied by `paidByCall`; null while unmet. A notice met within
 * its 30 days did not stay "infructueuse".
 */
export function noticeMetOn(
  notice: Pick<FormalNotice, "estate_id" | "sent_on">,
  calls: readonly FundCall[],
  payments: readonly LotPayment[],
): string | null {
  const mine = payments.filter((p) => p.estate_id === notice.estate_id);
  const claimed = calls.flatMap((c, i) =>
    c.estate_id === notice.estate_id && c.due_on <= notice.sent_on ? [i] : [],
  );
  const days = [...new Set(mine.map((p) => p.paid_on).filter((d) => d >= notice.sent_on))].sort();
  for (const day of days) {
    const paid = paidByCall(
      calls,
      mine.filter((p) => p.paid_on <= day),
    );
    if (claimed.every((i) => paid[i] === calls[i].amount_cents)) return day;
  }
  return null;
}

/**
 * A notice as art. 19-2 judges it: answered on the day the syndic stated, or on the day the lot's
 * payments met its claim (`met_on`, noticeMetOn), whichever is earlier.
 */
export function judgedNotice<N extends FormalNotice>(
  notice: N,
  calls: readonly FundCall[],
  payments: readonly LotPayment[],
): N & { met_on: string | null } {
  const met_on = noticeMetOn(notice, calls, payments);
  const answered_on = [notice.answered_on, met_on].filter((d) => d !== null).sort()[0] ?? null;
  return { ...notice, answered_on, met_on };
}

export const ART_14_2_1 = "loi n° 65-557 du 10 juillet 1965, art. 14-2-1 II";
/** The works fund's yearly contribution: at least 5 % of the budget (art. 14-2-1 II). */
export const WORKS_FUND_MIN_PERCENT = 5;

/**
 * « Le montant [...] de la cotisation annuelle [au fonds de travaux] ne peut être inférieur à 5 % du
 * budget prévisionnel » (art. 14-2-1 II). The dispensations of the text (a copropriété of fewer than
 * ten lots deciding so unanimously, a technical diagnosis showing no works for ten years) are facts
 * the caller states (`dispensed`).
 */
export function worksFundVerdict(f: { budget: number; works_fund: number; dispensed?: boolean }): Verdict {
  const rule = "WORKS_FUND_MINIMUM";
  const min = Math.ceil((Math.round(f.budget * 100) * WORKS_FUND_MIN_PERCENT) / 100);
  const details = { ...f, minimum: min / 100 };
  if (f.dispensed)
    return verdict(
      rule,
      "NOT_APPLICABLE",
      "The copropriété is dispensed from the works fund",
      ART_14_2_1,
      details,
    );
  if (Math.round(f.works_fund * 100) >= min)
    return verdict(
      rule,
      "PASS",
      `The works fund is at least 5 % of the budget (${ART_14_2_1})`,
      ART_14_2_1,
      details,
    );
  return verdict(
    rule,
    "FAIL",
    `The works fund ${f.works_fund.toFixed(2)} is under 5 % of the budget: at least ${(min / 100).toFixed(2)} (${ART_14_2_1})`,
    ART_14_2_1,
    {
      ...details,
      errors: [
        {
          field: "works_fund_amount",
          message: `At least ${(min / 100).toFixed(2)} (5 % of ${f.budget.toFixed(2)})`,
        },
      ],
    },
  );
}
