import { cents } from "../law/money.ts";
import type { FundCall, FundKind, Lot, LotPayment } from "../law/syndic.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Syndic budgets (docs/design.md §7.4, docs/charges.md "Syndic"): one stream per budget voted for a
 * place and a year, `syndic_budget-<uuid>` (the id derives from the place and the year: one budget
 * per place and year). The vote records the lots' shares and the year's fund calls as computed
 * then (src/law/syndic.ts); formal notices, their answers and the lots' payments follow.
 */

export const syndicBudgetStream = (id: string) => `syndic_budget-${id}`;

export interface SyndicFundCall {
  call_id: string;
  kind: FundKind;
  quarter: number;
  due_on: string;
  estate_id: string;
  amount: number;
}

export interface SyndicNotice {
  notice_id: string;
  estate_id: string;
  sent_on: string;
  answered_on: string | null;
}

/** A lot's payment to the syndic, applied to its calls by the code civil (src/law/syndic.ts, paidByCall). */
export interface SyndicPayment {
  payment_id: string;
  estate_id: string;
  paid_on: string;
  amount: number;
}

export type SyndicEvent =
  | {
      type: "SyndicBudgetVoted";
      data: {
        budget_id: string;
        place_id: string;
        year: number;
        amount: number;
        works_fund_amount: number;
        lots: Lot[];
        calls: SyndicFundCall[];
      };
    }
  | {
      type: "SyndicFormalNoticeSent";
      data: { budget_id: string; notice_id: string; estate_id: string; sent_on: string };
    }
  | {
      type: "SyndicFormalNoticeAnswered";
      data: { budget_id: string; notice_id: string; answered_on: string };
    }
  | { type: "SyndicPaymentRecorded"; data: { budget_id: string } & SyndicPayment };

export const syndicEventTypes = allEventTypes<SyndicEvent["type"]>()([
  "SyndicBudgetVoted",
  "SyndicFormalNoticeSent",
  "SyndicFormalNoticeAnswered",
  "SyndicPaymentRecorded",
]);

export interface SyndicBudget {
  budget_id: string;
  place_id: string;
  year: number;
  amount: number;
  works_fund_amount: number;
  lots: Lot[];
  calls: SyndicFundCall[];
  notices: SyndicNotice[];
  payments: SyndicPayment[];
}

export type SyndicState = SyndicBudget | null;

/** The one fold of a budget stream. */
export function evolveSyndicBudget(state: SyndicState, event: SyndicEvent): SyndicState {
  switch (event.type) {
    case "SyndicBudgetVoted":
      return { ...event.data, notices: [], payments: [] };
    case "SyndicFormalNoticeSent": {
      if (!state) return state;
      const { notice_id, estate_id, sent_on } = event.data;
      return { ...state, notices: [...state.notices, { notice_id, estate_id, sent_on, answered_on: null }] };
    }
    case "SyndicFormalNoticeAnswered":
      if (!state) return state;
      return {
        ...state,
        notices: state.notices.map((n) =>
          n.notice_id === event.data.notice_id ? { ...n, answered_on: event.data.answered_on } : n,
        ),
      };
    case "SyndicPaymentRecorded": {
      if (!state) return state;
      const { budget_id: _, ...payment } = event.data;
      return { ...state, payments: [...state.payments, payment] };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The budget's calls and payments as the rules count them, in cents (src/law/syndic.ts). */
export const lawCallsOf = (budget: Pick<SyndicBudget, "calls">): FundCall[] =>
  budget.calls.map((c) => ({ ...c, amount_cents: cents(c.amount) }));
export const lawPaymentsOf = (budget: Pick<SyndicBudget, "payments">): LotPayment[] =>
  budget.payments.map((p) => ({ ...p, amount_cents: cents(p.amount) }));
