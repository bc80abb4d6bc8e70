import { describe, expect, it } from "vitest";
import { syndicDecider } from "../../src/commands/syndic/decider.ts";
import type { SyndicEvent } from "../../src/events/syndic.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** A syndic budget's payments, given / when / then (no database). */

const spec = deciderSpec(syndicDecider);
const budget_id = "b";
const voted: SyndicEvent = {
  type: "SyndicBudgetVoted",
  data: {
    budget_id,
    place_id: "p",
    year: 2026,
    amount: 800,
    works_fund_amount: 0,
    lots: [{ estate_id: "a", tantiemes: 1 }],
    calls: [1, 2, 3, 4].map((quarter) => ({
      call_id: `c${quarter}`,
      kind: "BUDGET" as const,
      quarter,
      due_on: `2026-${String(quarter * 3 - 2).padStart(2, "0")}-01`,
      estate_id: "a",
      amount: 200,
    })),
  },
};
const pay = (amount_cents: number, extra: Partial<{ estate_id: string; paid_on: string }> = {}) => ({
  type: "RecordSyndicPayment" as const,
  budget_id,
  payment_id: "pay",
  estate_id: "a",
  paid_on: "2026-02-01",
  amount_cents,
  today: "2026-06-01",
  ...extra,
});
const recorded = (amount: number): SyndicEvent => ({
  type: "SyndicPaymentRecorded",
  data: { budget_id, payment_id: "pay", estate_id: "a", paid_on: "2026-02-01", amount },
});

describe("syndic payments", () => {
  it("records a lot's payment in euros", () => {
    spec
      .given([voted])
      .when(pay(25_050))
      .then([recorded(250.5)]);
  });
  it("takes up to what the lot's calls still owe, no more (400 on amount)", () => {
    spec
      .given([voted, recorded(250.5)])
      .when(pay(54_950))
      .then([recorded(549.5)]);
    spec
      .given([voted, recorded(250.5)])
      .when(pay(54_951))
      .thenRefuses(400, /Invalid syndic payment/, ["amount"]);
  });
  it("refuses a lot not of the budget, a day after today, and an unknown budget", () => {
    spec
      .given([voted])
      .when(pay(100, { estate_id: "z" }))
      .thenRefuses(400, undefined, ["estate_id"]);
    spec
      .given([voted])
      .when(pay(100, { paid_on: "2026-06-02" }))
      .thenRefuses(400, undefined, ["paid_on"]);
    spec.given([]).when(pay(100)).thenRefuses(404);
  });
});

describe("syndic formal notices", () => {
  const notice = {
    type: "SendFormalNotice" as const,
    budget_id,
    notice_id: "n",
    estate_id: "a",
    sent_on: "2026-04-10",
    today: "2026-06-01",
  };
  it("are sent for a provision unpaid at its due date", () => {
    spec
      .given([voted, recorded(200)])
      .when(notice)
      .then([
        {
          type: "SyndicFormalNoticeSent",
          data: { budget_id, notice_id: "n", estate_id: "a", sent_on: "2026-04-10" },
        },
      ]);
  });
  it("are refused (422, art. 19-2) when what is due by then is paid", () => {
    spec
      .given([voted, recorded(400)])
      .when(notice)
      .thenRefuses(422, /art\. 19-2/, ["estate_id"]);
  });
});

describe("syndic budget vote: the works fund (loi n° 65-557 art. 14-2-1 II)", () => {
  const vote = (works_fund_cents: number, works_fund_dispensed?: boolean) => ({
    type: "VoteSyndicBudget" as const,
    budget_id,
    place_id: "p",
    year: 2026,
    amount_cents: 1_000_000,
    works_fund_cents,
    works_fund_dispensed,
    lots: [{ estate_id: "a", tantiemes: 1 }],
  });
  it("takes exactly 5 % of the budget and refuses a cent less (422 on works_fund_amount)", () => {
    const [event] = spec.given([]).when(vote(50_000)).thenEvents();
    expect(event?.data).toMatchObject({ works_fund_amount: 500 });
    spec
      .given([])
      .when(vote(49_999))
      .thenRefuses(422, /under 5 % of the budget: at least 500\.00 \(loi n° 65-557/, ["works_fund_amount"]);
  });
  it("takes no works fund from a dispensed copropriété", () => {
    const [event] = spec.given([]).when(vote(0, true)).thenEvents();
    expect(event?.data).toMatchObject({ works_fund_amount: 0 });
  });
});
