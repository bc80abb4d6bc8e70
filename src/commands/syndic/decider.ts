import {
  evolveSyndicBudget,
  lawCallsOf,
  lawPaymentsOf,
  type SyndicEvent,
  type SyndicState,
} from "../../events/syndic.ts";
import { toEuros } from "../../law/money.ts";
import {
  formalNoticeGrounds,
  fundCalls,
  type Lot,
  lotOutstanding,
  worksFundVerdict,
} from "../../law/syndic.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, enforce, notFound, validationError } from "../../platform/errors.ts";
import { deterministicUuid } from "../../platform/ids.ts";

/** A syndic budget's commands (docs/charges.md, "Syndic"). Amounts in cents; the route checked the lots. */
export type SyndicCommand =
  | {
      type: "VoteSyndicBudget";
      budget_id: string;
      place_id: string;
      year: number;
      amount_cents: number;
      works_fund_cents: number;
      /** Dispensed from the works fund (art. 14-2-1), a fact the caller states. */
      works_fund_dispensed?: boolean;
      lots: Lot[];
    }
  | {
      type: "SendFormalNotice";
      budget_id: string;
      notice_id: string;
      estate_id: string;
      sent_on: string;
      today: string;
    }
  | { type: "AnswerFormalNotice"; budget_id: string; notice_id: string; answered_on: string; today: string }
  | {
      type: "RecordSyndicPayment";
      budget_id: string;
      payment_id: string;
      estate_id: string;
      paid_on: string;
      amount_cents: number;
      today: string;
    };

const notAfterToday = (date: string, today: string, field: string) => {
  if (date > today)
    throw validationError("Invalid formal notice data", [
      { field, message: `Must not be after today (${today}, Europe/Paris)` },
    ]);
};

export const syndicDecider: Decider<SyndicState, SyndicCommand, SyndicEvent> = {
  initialState: () => null,
  evolve: evolveSyndicBudget,
  decide(command, budget) {
    switch (command.type) {
      case "VoteSyndicBudget": {
        if (budget)
          throw conflict(`A budget for ${command.year} is already voted for place ${command.place_id}`);
        // At least 5 % of the budget goes to the works fund (loi n° 65-557 art. 14-2-1 II): 422.
        enforce(
          worksFundVerdict({
            budget: toEuros(command.amount_cents),
            works_fund: toEuros(command.works_fund_cents),
            dispensed: command.works_fund_dispensed === true,
          }),
        );
        const calls = fundCalls(
          command.year,
          command.amount_cents,
          command.works_fund_cents,
          command.lots,
        ).map((c) => ({
          call_id: deterministicUuid(
            "syndic-call",
            command.budget_id,
            c.kind,
            String(c.quarter),
            c.estate_id,
          ),
          kind: c.kind,
          quarter: c.quarter,
          due_on: c.due_on,
          estate_id: c.estate_id,
          amount: toEuros(c.amount_cents),
        }));
        return [
          {
            type: "SyndicBudgetVoted",
            data: {
              budget_id: command.budget_id,
              place_id: command.place_id,
              year: command.year,
              amount: toEuros(command.amount_cents),
              works_fund_amount: toEuros(command.works_fund_cents),
              lots: command.lots,
              calls,
            },
          },
        ];
      }
      case "SendFormalNotice": {
        if (!budget) throw notFound("Syndic budget", command.budget_id);
        notAfterToday(command.sent_on, command.today, "sent_on");
        if (!budget.lots.some((l) => l.estate_id === command.estate_id))
          throw validationError("Invalid formal notice data", [
            { field: "estate_id", message: "Not a lot of this budget" },
          ]);
        // Only for a provision unpaid at its due date (art. 19-2).
        enforce(
          formalNoticeGrounds(lawCallsOf(budget), lawPaymentsOf(budget), command.estate_id, command.sent_on),
        );
        const { budget_id, notice_id, estate_id, sent_on } = command;
        return [{ type: "SyndicFormalNoticeSent", data: { budget_id, notice_id, estate_id, sent_on } }];
      }
      case "AnswerFormalNotice": {
        if (!budget) throw notFound("Syndic budget", command.budget_id);
        const notice = budget.notices.find((n) => n.notice_id === command.notice_id);
        if (!notice) throw notFound("Formal notice", command.notice_id);
        if (notice.answered_on)
          throw conflict(`Formal notice ${command.notice_id} was answered on ${notice.answered_on}`);
        notAfterToday(command.answered_on, command.today, "answered_on");
        if (command.answered_on < notice.sent_on)
          throw validationError("Invalid formal notice data", [
            { field: "answered_on", message: `Must not be before the notice (${notice.sent_on})` },
          ]);
        const { budget_id, notice_id, answered_on } = command;
        return [{ type: "SyndicFormalNoticeAnswered", data: { budget_id, notice_id, answered_on } }];
      }
      case "RecordSyndicPayment": {
        if (!budget) throw notFound("Syndic budget", command.budget_id);
        const invalid = (field: string, message: string) =>
          validationError("Invalid syndic payment", [{ field, message }]);
        if (command.paid_on > command.today)
          throw invalid("paid_on", `Must not be after today (${command.today}, Europe/Paris)`);
        if (!budget.lots.some((l) => l.estate_id === command.estate_id))
          throw invalid("estate_id", "Not a lot of this budget");
        const owed = lotOutstanding(lawCallsOf(budget), lawPaymentsOf(budget), command.estate_id);
        if (command.amount_cents > owed)
          throw invalid(
            "amount",
            `More than the lot's calls of ${budget.year} still owe (${toEuros(owed)} EUR)`,
          );
        const { budget_id, payment_id, estate_id, paid_on } = command;
        return [
          {
            type: "SyndicPaymentRecorded",
            data: { budget_id, payment_id, estate_id, paid_on, amount: toEuros(command.amount_cents) },
          },
        ];
      }
    }
  },
};
