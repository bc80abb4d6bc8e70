import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accelerationDate,
  allocateByWeights,
  effectiveDueOn,
  formalNoticeGrounds,
  fundCalls,
  judgedNotice,
  lotOutstanding,
  noticeMetOn,
  paidByCall,
  quarterDueDates,
  remainingCallsFallDue,
} from "../../src/law/syndic.ts";

/** Copropriété fund calls: loi n° 65-557 du 10 juillet 1965, art. 14-1, 14-2, 19-2. */

const lots = [
  { estate_id: "a", tantiemes: 333 },
  { estate_id: "b", tantiemes: 333 },
  { estate_id: "c", tantiemes: 334 },
];

describe("art. 14-1: a quarter of the budget, due the first day of each quarter", () => {
  it("due dates are the first days of January, April, July, October", () => {
    expect(quarterDueDates(2026)).toEqual(["2026-01-01", "2026-04-01", "2026-07-01", "2026-10-01"]);
  });

  it("splits 10,000.01 EUR into quarters summing exactly (the odd cent to the first quarter)", () => {
    expect(allocateByWeights(1_000_001, [1, 1, 1, 1])).toEqual([250_001, 250_000, 250_000, 250_000]);
  });

  it("allocates each quarter by tantièmes to the cent, largest remainder", () => {
    const calls = fundCalls(2026, 1_000_000, 0, lots);
    expect(calls).toHaveLength(12);
    const q1 = calls.filter((c) => c.quarter === 1).map((c) => c.amount_cents);
    // 2,500.00 EUR × 333/1000 = 832.50 each; the cent left goes to the largest remainder (c: 835.00 exact).
    expect(q1).toEqual([83_250, 83_250, 83_500]);
    expect(calls.every((c) => c.kind === "BUDGET")).toBe(true);
  });

  it("the largest remainder wins the odd cent; ties go to the earlier lot", () => {
    expect(allocateByWeights(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateByWeights(101, [1, 2])).toEqual([34, 67]);
  });

  it("always sums back exactly, per quarter and per year (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000_000 }),
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 50 }),
        (amount, weights) => {
          const parts = allocateByWeights(amount, weights);
          expect(parts.reduce((s, p) => s + p, 0)).toBe(amount);
          expect(parts.every((p) => p >= 0)).toBe(true);
          const calls = fundCalls(
            2026,
            amount,
            0,
            weights.map((t, i) => ({ estate_id: String(i), tantiemes: t })),
          );
          expect(calls.reduce((s, c) => s + c.amount_cents, 0)).toBe(amount);
        },
      ),
    );
  });
});

describe("art. 14-2: the works fund is called apart", () => {
  it("has its own calls on the same quarters", () => {
    const calls = fundCalls(2026, 400_000, 20_000, lots);
    const works = calls.filter((c) => c.kind === "WORKS_FUND");
    expect(works).toHaveLength(12);
    expect(works.reduce((s, c) => s + c.amount_cents, 0)).toBe(20_000);
    expect(works.map((c) => c.due_on).slice(0, 3)).toEqual(["2026-01-01", "2026-01-01", "2026-01-01"]);
  });

  it("no works fund, no works calls", () => {
    expect(fundCalls(2026, 400_000, 0, lots).some((c) => c.kind === "WORKS_FUND")).toBe(false);
  });
});

describe("art. 19-2: a formal notice unanswered more than 30 days brings the year's remaining calls forward", () => {
  const calls = fundCalls(2026, 1_000_000, 0, lots);
  const notice = { estate_id: "a", sent_on: "2026-04-10", answered_on: null };
  it("falls due on the 31st day after the notice", () => {
    expect(accelerationDate("2026-04-10")).toBe("2026-05-11");
  });
  it.each([
    ["the 30th day: still running", "2026-05-10", null, "PASS"],
    ["the 31st day: the remaining calls fall due", "2026-05-11", null, "FAIL"],
    ["answered on the 30th day: nothing falls due", "2026-06-01", "2026-05-10", "PASS"],
    ["answered on the 31st day: too late", "2026-06-01", "2026-05-11", "FAIL"],
  ])("%s", (_, today, answered_on, status) => {
    const v = remainingCallsFallDue({ ...notice, answered_on }, calls, today);
    expect(v.status).toBe(status);
    expect(v.legal_reference).toMatch(/art\. 19-2/);
  });

  it("brings forward only the lot's calls not yet due", () => {
    const v = remainingCallsFallDue(notice, calls, "2026-05-11");
    // Lot a's July and October calls; April's was already due.
    expect(v.details.calls).toEqual([
      { kind: "BUDGET", quarter: 3, amount: 832.5 },
      { kind: "BUDGET", quarter: 4, amount: 832.5 },
    ]);
    const july = calls.find((c) => c.estate_id === "a" && c.quarter === 3);
    const otherLot = calls.find((c) => c.estate_id === "b" && c.quarter === 3);
    if (!july || !otherLot) throw new Error("calls missing");
    expect(effectiveDueOn(july, [notice], "2026-05-11")).toBe("2026-05-11");
    expect(effectiveDueOn(july, [notice], "2026-05-10")).toBe("2026-07-01");
    expect(effectiveDueOn(otherLot, [notice], "2026-05-11")).toBe("2026-07-01");
  });
});

describe("code civil art. 1342-10: a lot's payment goes to its calls due first, the oldest first", () => {
  // Lot a of a 4,000.00 EUR budget and a 400.00 EUR works fund: 333.00 + 33.30 each quarter.
  const calls = fundCalls(2026, 400_000, 40_000, lots);
  const of = (paid: number[], estate = "a") =>
    calls.flatMap((c, i) => (c.estate_id === estate ? [`${c.kind} Q${c.quarter} ${paid[i]}`] : []));

  it("pays the calls due on the day paid before any call not yet due, the oldest first", () => {
    const paid = paidByCall(calls, [{ estate_id: "a", paid_on: "2026-04-15", amount_cents: 70_000 }]);
    // 700.00 on 15 April: Q1's 366.30, then Q2's two calls share the 333.70 left, 10 to 1.
    expect(of(paid)).toEqual([
      "BUDGET Q1 33300",
      "BUDGET Q2 30336",
      "BUDGET Q3 0",
      "BUDGET Q4 0",
      "WORKS_FUND Q1 3330",
      "WORKS_FUND Q2 3034",
      "WORKS_FUND Q3 0",
      "WORKS_FUND Q4 0",
    ]);
  });

  it("shares a payment between calls due the same day in proportion to what they owe", () => {
    const paid = paidByCall(calls, [{ estate_id: "a", paid_on: "2026-01-02", amount_cents: 11_000 }]);
    // 333.00 and 33.30 owed on 1 January: 110.00 split 10 to 1.
    expect(of(paid).slice(0, 1)).toEqual(["BUDGET Q1 10000"]);
    expect(of(paid)[4]).toBe("WORKS_FUND Q1 1000");
  });

  it("pays in advance, the earliest call first, only once nothing due is left; other lots untouched", () => {
    const paid = paidByCall(calls, [
      { estate_id: "a", paid_on: "2026-02-01", amount_cents: 40_000 },
      { estate_id: "a", paid_on: "2026-01-10", amount_cents: 36_630 },
    ]);
    // The earlier payment first: it settles Q1. Nothing is due on 1 February then: the 400.00 pays
    // Q2 in advance, and the 33.70 left goes to Q3's two calls.
    expect(of(paid)).toEqual([
      "BUDGET Q1 33300",
      "BUDGET Q2 33300",
      "BUDGET Q3 3064",
      "BUDGET Q4 0",
      "WORKS_FUND Q1 3330",
      "WORKS_FUND Q2 3330",
      "WORKS_FUND Q3 306",
      "WORKS_FUND Q4 0",
    ]);
    expect(of(paid, "b").every((line) => line.endsWith(" 0"))).toBe(true);
  });

  it("never pays a call more than it asks; what is owed plus what is paid is the lot's calls (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            estate_id: fc.constantFrom("a", "b", "c"),
            paid_on: fc.constantFrom("2025-12-01", "2026-01-01", "2026-05-20", "2026-12-31"),
            amount_cents: fc.integer({ min: 1, max: 200_000 }),
          }),
          { maxLength: 8 },
        ),
        (payments) => {
          const paid = paidByCall(calls, payments);
          paid.forEach((p, i) => {
            expect(p).toBeGreaterThanOrEqual(0);
            expect(p).toBeLessThanOrEqual(calls[i].amount_cents);
          });
          for (const lot of ["a", "b", "c"]) {
            const asked = calls.reduce((s, c) => (c.estate_id === lot ? s + c.amount_cents : s), 0);
            const given = payments.reduce((s, p) => (p.estate_id === lot ? s + p.amount_cents : s), 0);
            expect(lotOutstanding(calls, payments, lot)).toBe(Math.max(0, asked - given));
          }
        },
      ),
    );
  });
});

describe("art. 19-2: a formal notice needs a provision unpaid at its due date", () => {
  const calls = fundCalls(2026, 400_000, 0, lots);
  const q1 = 33_300; // lot a's first quarter
  it("PASS while a provision due is unpaid, naming it", () => {
    const v = formalNoticeGrounds(calls, [], "a", "2026-02-01");
    expect(v).toMatchObject({ rule: "SYNDIC_FORMAL_NOTICE_GROUNDS", status: "PASS" });
    expect(v.details.unpaid_calls).toEqual([
      { kind: "BUDGET", quarter: 1, due_on: "2026-01-01", unpaid: 333 },
    ]);
  });
  it("FAIL on estate_id when what is due is paid, or nothing is due yet", () => {
    const paid = [{ estate_id: "a", paid_on: "2026-01-15", amount_cents: q1 }];
    for (const v of [
      formalNoticeGrounds(calls, paid, "a", "2026-02-01"),
      formalNoticeGrounds(calls, [], "a", "2025-12-31"),
    ]) {
      expect(v.status).toBe("FAIL");
      expect(v.legal_reference).toContain("art. 19-2");
      expect(v.details.errors).toEqual([{ field: "estate_id", message: v.message }]);
    }
  });
  it("counts only the payments made by the day the notice is sent, and only the lot's", () => {
    const later = [{ estate_id: "a", paid_on: "2026-02-10", amount_cents: q1 }];
    expect(formalNoticeGrounds(calls, later, "a", "2026-02-01").status).toBe("PASS");
    const other = [{ estate_id: "b", paid_on: "2026-01-15", amount_cents: q1 }];
    expect(formalNoticeGrounds(calls, other, "a", "2026-02-01").status).toBe("PASS");
  });
});

describe("a formal notice met by the lot's payments", () => {
  const calls = fundCalls(2026, 400_000, 0, lots);
  const notice = { estate_id: "a", sent_on: "2026-04-10" }; // claims Q1 and Q2: 666.00
  it("is met the day the payments cover what was unpaid when it was sent", () => {
    const payments = [
      { estate_id: "a", paid_on: "2026-04-20", amount_cents: 40_000 },
      { estate_id: "b", paid_on: "2026-04-21", amount_cents: 66_600 },
      { estate_id: "a", paid_on: "2026-04-25", amount_cents: 26_600 },
    ];
    expect(noticeMetOn(notice, calls, payments)).toBe("2026-04-25");
    expect(noticeMetOn(notice, calls, payments.slice(0, 2))).toBeNull();
  });
  it("is not met by a payment that a later call due before it takes first (oldest first)", () => {
    // Paid on 5 July, after Q3 fell due: 666.00 goes to Q1 and Q2 first all the same.
    expect(
      noticeMetOn(notice, calls, [{ estate_id: "a", paid_on: "2026-07-05", amount_cents: 66_600 }]),
    ).toBe("2026-07-05");
  });
});

describe("art. 19-2 judges a notice met by payments as answered the day it was met", () => {
  const calls = fundCalls(2026, 400_000, 0, lots);
  const notice = { estate_id: "a", sent_on: "2026-04-10", answered_on: null }; // 30 days: to 10 May
  const paidOn = (paid_on: string) => [{ estate_id: "a", paid_on, amount_cents: 66_600 }];
  it("met on the 30th day: answered in time, nothing falls due early", () => {
    const judged = judgedNotice(notice, calls, paidOn("2026-05-10"));
    expect(judged).toMatchObject({ met_on: "2026-05-10", answered_on: "2026-05-10" });
    expect(remainingCallsFallDue(judged, calls, "2026-06-01").status).toBe("PASS");
  });
  it("met on the 31st day: too late, the remaining calls fall due", () => {
    const judged = judgedNotice(notice, calls, paidOn("2026-05-11"));
    expect(remainingCallsFallDue(judged, calls, "2026-06-01").status).toBe("FAIL");
  });
  it("the earlier of the stated answer and the payments counts", () => {
    const stated = { ...notice, answered_on: "2026-05-01" };
    expect(judgedNotice(stated, calls, paidOn("2026-05-20"))).toMatchObject({
      answered_on: "2026-05-01",
      met_on: "2026-05-20",
    });
    expect(judgedNotice(stated, calls, [])).toMatchObject({ answered_on: "2026-05-01", met_on: null });
  });
});
