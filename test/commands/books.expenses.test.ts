import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ownerExpenseDecider } from "../../src/commands/books/expenses.ts";
import { type IssuePayout, payoutDecider } from "../../src/commands/books/payouts.ts";
import { EXPENSE_KINDS, type OwnerExpense, type OwnerExpenseEvent } from "../../src/events/books/index.ts";
import { fold } from "../../src/platform/decider.ts";
import { ApiError } from "../../src/platform/errors.ts";
import {
  EXPENSE_ACCOUNTS,
  expensePostings,
  isBalanced,
  payoutPosting,
} from "../../src/projections/books/index.ts";
import { pain001 } from "../../src/queries/books/pain001.ts";

const OWNER = "00000000-0000-4000-8000-0000000000a1";
const OTHER = "00000000-0000-4000-8000-0000000000b2";
const EXPENSE = "00000000-0000-4000-8000-0000000000e1";
const expense = (over: Partial<OwnerExpense> = {}): OwnerExpense => ({
  expense_id: EXPENSE,
  owner_id: OWNER,
  kind: "WORKS",
  amount: 1200,
  paid_on: "2025-02-10",
  label: "Peinture",
  lease_id: null,
  estate_id: null,
  ...over,
});
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error("not refused");
};

describe("owner expenses (docs/accounting.md, 'Owner expenses')", () => {
  const recorded: OwnerExpenseEvent = { type: "OwnerExpenseRecorded", data: expense() };
  const noFacts = { estate_owner_id: undefined, lease_owner_id: undefined };

  it("records an expense of the owner's estate or lease; refuses another owner's", () => {
    const mine = expense({ estate_id: "00000000-0000-4000-8000-0000000000f1" });
    expect(
      ownerExpenseDecider.decide(
        {
          type: "RecordOwnerExpense",
          expense: mine,
          facts: { estate_owner_id: OWNER, lease_owner_id: null },
        },
        {},
      ),
    ).toEqual([{ type: "OwnerExpenseRecorded", data: mine }]);
    expect(
      refusal(() =>
        ownerExpenseDecider.decide(
          {
            type: "RecordOwnerExpense",
            expense: mine,
            facts: { estate_owner_id: OTHER, lease_owner_id: null },
          },
          {},
        ),
      ).status,
    ).toBe(422);
    const lease = expense({ lease_id: "00000000-0000-4000-8000-0000000000f2" });
    expect(
      refusal(() =>
        ownerExpenseDecider.decide({ type: "RecordOwnerExpense", expense: lease, facts: noFacts }, {}),
      ).status,
    ).toBe(422);
  });

  it("cancels once: an unknown expense is 404, a cancelled one 409", () => {
    const state = fold(ownerExpenseDecider, [recorded]);
    const cancel = {
      type: "CancelOwnerExpense" as const,
      owner_id: OWNER,
      expense_id: EXPENSE,
      today: "2026-12-03",
    };
    const events = ownerExpenseDecider.decide(cancel, state);
    expect(events).toEqual([
      {
        type: "OwnerExpenseCancelled",
        data: { expense_id: EXPENSE, owner_id: OWNER, cancelled_on: "2026-12-03" },
      },
    ]);
    expect(
      refusal(() => ownerExpenseDecider.decide(cancel, fold(ownerExpenseDecider, [recorded, ...events])))
        .status,
    ).toBe(409);
    expect(refusal(() => ownerExpenseDecider.decide(cancel, {})).status).toBe(404);
  });

  it("posts the invoice in the purchases journal and its payment in the bank's: D 6xx / C 401, D 401 / C 512", () => {
    const [invoice, payment] = expensePostings(expense());
    expect(invoice).toMatchObject({ journal: "HA", date: "2025-02-10" });
    expect(invoice.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ["615000", 120000, 0],
      ["401000", 0, 120000],
    ]);
    expect(payment.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ["401000", 120000, 0],
      ["512000", 0, 120000],
    ]);
  });

  it("the co-ownership regularisation moves no money: D 614800 / C 614200", () => {
    const postings = expensePostings(expense({ kind: "COOWNERSHIP_REGULARISATION", amount: 45 }));
    expect(postings).toHaveLength(1);
    expect(postings[0].lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ["614800", 4500, 0],
      ["614200", 0, 4500],
    ]);
  });

  it("whatever the kind and amount, each posting balances and a cancellation nets every account to zero", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXPENSE_KINDS), fc.integer({ min: 1, max: 100_000_000 }), (kind, c) => {
        const x = expense({ kind, amount: c / 100 });
        const all = [...expensePostings(x), ...expensePostings(x, true)];
        expect(all.every(isBalanced)).toBe(true);
        const net = new Map<string, number>();
        for (const l of all.flatMap((p) => p.lines))
          net.set(l.account, (net.get(l.account) ?? 0) + l.debit - l.credit);
        expect([...net.values()].every((v) => v === 0)).toBe(true);
        expect(all[0].lines[0].account).toBe(
          kind === "COOWNERSHIP_REGULARISATION" ? "614800" : EXPENSE_ACCOUNTS[kind],
        );
      }),
    );
  });
});

describe("payouts to the owners", () => {
  const issue = (over: Partial<IssuePayout["facts"]> = {}): IssuePayout => ({
    type: "IssuePayout",
    payout_id: "00000000-0000-4000-8000-0000000000c1",
    bank_account_id: "00000000-0000-4000-8000-0000000000d1",
    on: "2025-03-31",
    created_at: "2025-03-31T10:00:00.000Z",
    facts: {
      posted_payouts: 0,
      owners: [
        { owner_id: OWNER, due_cents: 134_300, has_iban: true },
        { owner_id: OTHER, due_cents: -5_000, has_iban: false },
      ],
      ...over,
    },
  });

  it("pays each owner with something due, nobody else", () => {
    const [event] = payoutDecider.decide(issue(), { payouts: [] });
    expect(event.data.transfers).toEqual([
      { owner_id: OWNER, amount: 1343, end_to_end_id: "RV0000000000004000800000000001" },
    ]);
    expect(event.data.transfers[0].end_to_end_id.length).toBeLessThanOrEqual(35);
  });

  it("refuses while the previous payout is not in the books, when nothing is due, and an owner without IBAN", () => {
    expect(refusal(() => payoutDecider.decide(issue(), { payouts: ["p"] })).status).toBe(409);
    expect(
      refusal(() =>
        payoutDecider.decide(issue({ owners: [{ owner_id: OWNER, due_cents: 0, has_iban: true }] }), {
          payouts: [],
        }),
      ).status,
    ).toBe(409);
    expect(
      refusal(() =>
        payoutDecider.decide(issue({ owners: [{ owner_id: OWNER, due_cents: 1, has_iban: false }] }), {
          payouts: [],
        }),
      ).status,
    ).toBe(422);
  });

  it("posts D 467 / C 512 in the owner's book; the file sums its transfers", () => {
    expect(
      payoutPosting("2025-03-31", 1343, "RV1")?.lines.map((l) => [l.account, l.debit, l.credit]),
    ).toEqual([
      ["467000", 134300, 0],
      ["512000", 0, 134300],
    ]);
    const xml = pain001({
      message_id: "M1",
      created_at: "2025-03-31T10:00:00.123Z",
      execution_date: "2025-03-31",
      debtor: { name: "Agence", iban: "FR7630004000031234567890143", bic: null },
      transfers: [
        {
          end_to_end_id: "E1",
          amount: 0.1,
          creditor: { name: "Hélène Moreau & fils", iban: "FR1420041010050500013M02606", bic: null },
          remittance: "x",
        },
        {
          end_to_end_id: "E2",
          amount: 0.2,
          creditor: { name: "Paul", iban: "FR7630006000011234567890189", bic: "BNPAFRPP" },
          remittance: "y",
        },
      ],
    });
    expect(xml).toContain("<CtrlSum>0.30</CtrlSum>");
    expect(xml).toContain("<CreDtTm>2025-03-31T10:00:00Z</CreDtTm>");
    expect(xml).toContain("<Nm>Helene Moreau fils</Nm>");
    expect(xml).toContain("<Othr>");
  });
});
