import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  depositBalanceVerdict,
  depositDueOn,
  depositReturnVerdict,
  latePenalty,
  startedMonthsLate,
} from "../../src/law/depositReturn.ts";
import { cents } from "../../src/law/money.ts";

/** Returning the deposit (loi n° 89-462 art. 22): each rule at its boundary. */

describe("the deposit's due date (art. 22 al. 3 and 4)", () => {
  it("one month after the keys when the exit report matches the entry one", () => {
    const v = depositDueOn("2026-03-31", true);
    expect(v.details).toEqual({ due_on: "2026-04-30", months: 1 });
    expect(v.legal_reference).toBe("loi n° 89-462 du 6 juillet 1989, art. 22 al. 4");
  });
  it("two months when it does not match, or no exit report establishes it", () => {
    expect(depositDueOn("2026-03-31", false).details).toEqual({ due_on: "2026-05-31", months: 2 });
    expect(depositDueOn("2026-03-31", null).details).toEqual({ due_on: "2026-05-31", months: 2 });
    expect(depositDueOn("2026-03-31", null).legal_reference).toMatch(/art\. 22 al\. 3$/);
  });
});

describe("the late penalty (art. 22 al. 7): 10 % of the monthly rent per started month", () => {
  it.each([
    ["2026-05-31", 0],
    ["2026-06-01", 1],
    ["2026-06-30", 1],
    ["2026-07-01", 2],
    ["2026-07-10", 2], // 40 days late
    ["2026-07-31", 2],
    ["2026-08-01", 3],
  ])("due 2026-05-31, returned %s: %i started month(s)", (returned, months) => {
    expect(startedMonthsLate("2026-05-31", returned)).toBe(months);
  });
  it("40 days late on a rent of 812.35: 2 × 81.235 = 162.47", () => {
    const v = latePenalty("2026-05-31", "2026-07-10", 812.35);
    expect(v.status).toBe("FAIL");
    expect(v.details).toEqual({ late_months: 2, late_penalty: 162.47 });
    expect(v.legal_reference).toMatch(/art\. 22 al\. 7$/);
  });
  it("on time: no penalty", () => {
    expect(latePenalty("2026-05-31", "2026-05-31", 800).details).toEqual({ late_months: 0, late_penalty: 0 });
  });
  it("no forwarding address from the tenant: no penalty however late (al. 7); given or not stated: it runs", () => {
    const none = latePenalty("2026-05-31", "2026-06-01", 800, false);
    expect(none).toMatchObject({
      status: "NOT_APPLICABLE",
      legal_reference: expect.stringMatching(/art\. 22 al\. 7$/),
      details: { late_months: 1, late_penalty: 0, forwarding_address_given: false },
    });
    expect(none.message).toMatch(/no forwarding address: no penalty/);
    expect(latePenalty("2026-05-31", "2026-06-01", 800, true).details).toEqual({
      late_months: 1,
      late_penalty: 80,
    });
    expect(latePenalty("2026-05-31", "2026-06-01", 800, null).details).toEqual({
      late_months: 1,
      late_penalty: 80,
    });
    expect(latePenalty("2026-05-31", "2026-05-31", 800, false).details).toEqual({
      late_months: 0,
      late_penalty: 0,
    });
  });
});

describe("the split of the deposit (art. 22 al. 3 and 5)", () => {
  const repair = (amount: number) => ({ kind: "REPAIR" as const, amount, invoice_found: true });
  it("held: 20 % passes, a cent more fails", () => {
    expect(
      depositReturnVerdict({ amount: 800.05, deductions: [], held: 160.01, in_copropriete: true }).details,
    ).toEqual({
      returned_amount: 640.04,
      deducted: 0,
      held: 160.01,
    });
    const over = depositReturnVerdict({ amount: 800.05, deductions: [], held: 160.02, in_copropriete: true });
    expect(over.status).toBe("FAIL");
    expect(over.details.errors).toEqual([
      { field: "held", message: "At most 20 % of the deposit may be held: 160.01" },
    ]);
  });
  it("a hold-back only in a building in copropriété (al. 5): none elsewhere, nor when unknown", () => {
    const held = (in_copropriete: boolean | null) =>
      depositReturnVerdict({ amount: 800, deductions: [], held: 0.01, in_copropriete }).details.errors;
    expect(held(true)).toBeUndefined();
    expect(held(false)).toEqual([
      {
        field: "held",
        message:
          "Nothing may be held: the building is not in copropriété, it has no annual accounts to wait for (art. 22 al. 5)",
      },
    ]);
    expect(held(null)?.[0].message).toMatch(/unless the building is in copropriété/);
    expect(depositReturnVerdict({ amount: 800, deductions: [], held: 0, in_copropriete: false }).status).toBe(
      "PASS",
    );
  });
  it("an unpaid call at most what it still owes; a repair needs its invoice", () => {
    const v = depositReturnVerdict({
      amount: 800,
      held: 0,
      deductions: [
        { kind: "UNPAID_RENT", amount: 100.01, call_remaining: 100 },
        { kind: "UNPAID_RENT", amount: 10, call_remaining: null },
        { kind: "REPAIR", amount: 50, invoice_found: false },
      ],
    });
    expect(v.details.errors?.map((e) => e.field)).toEqual([
      "deductions.0.amount",
      "deductions.1.rent_call_id",
      "deductions.2.invoice_media_id",
    ]);
    expect(
      depositReturnVerdict({
        amount: 800,
        held: 0,
        deductions: [{ kind: "UNPAID_RENT", amount: 100, call_remaining: 100 }],
      }).details.returned_amount,
    ).toBe(700);
  });
  it("deductions over the deposit fail (the rest is claimed apart)", () => {
    expect(depositReturnVerdict({ amount: 800, held: 0, deductions: [repair(800.01)] }).status).toBe("FAIL");
    expect(
      depositReturnVerdict({ amount: 800, held: 0, deductions: [repair(800)] }).details.returned_amount,
    ).toBe(0);
  });
  it("returned + deductions + held = the deposit, to the cent", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500_000 }),
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 6 }),
        fc.integer({ min: 0, max: 100 }),
        (amount, parts, heldPercent) => {
          const held = Math.floor((amount * heldPercent) / 500) / 100; // up to 20 %
          const deductions = parts.map((p) => repair(p / 100));
          const v = depositReturnVerdict({ amount: amount / 100, deductions, held, in_copropriete: true });
          if (v.status === "FAIL") return parts.reduce((a, b) => a + b, 0) + cents(held) > amount;
          const sum =
            cents(v.details.returned_amount as number) + parts.reduce((a, b) => a + b, 0) + cents(held);
          return sum === amount;
        },
      ),
    );
  });
});

describe("the held part's balance (art. 22 al. 5)", () => {
  it("returns the held part less the charges, a month after the accounts' approval", () => {
    const v = depositBalanceVerdict({
      held: 160,
      charges_deducted: 45.5,
      accounts_approved_on: "2026-01-31",
    });
    expect(v.status).toBe("PASS");
    expect(v.details).toEqual({ balance_returned: 114.5, due_on: "2026-02-28" });
    expect(v.legal_reference).toContain("art. 22 al. 5");
  });
  it("refuses charges beyond what was held, to the cent", () => {
    expect(
      depositBalanceVerdict({ held: 160, charges_deducted: 160, accounts_approved_on: "2026-06-10" }).details
        .balance_returned,
    ).toBe(0);
    const over = depositBalanceVerdict({
      held: 160,
      charges_deducted: 160.01,
      accounts_approved_on: "2026-06-10",
    });
    expect(over.status).toBe("FAIL");
    expect(over.details.errors).toEqual([{ field: "charges_deducted", message: "At most the held 160.00" }]);
  });
});
