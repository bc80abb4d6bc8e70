import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  caretakerVerdict,
  chargeAlerts,
  type DistributionKey,
  type Expense,
  freezeVerdict,
  type Occupancy,
  prescriptionVerdict,
  type RegularisationFacts,
  recoverableExpense,
  regularise,
  serviceExpenses,
  settlementVerdict,
  splitExactly,
  taxVerdict,
  twelfthsVerdict,
} from "../../src/law/charges.ts";

/** Charges and their regularisation (loi n° 89-462 art. 23, 7-1; décret n° 87-713) at their boundaries. */

const estates = ["e1", "e2", "e3"];
const key: DistributionKey = {
  id: "k",
  name: "Tantièmes",
  kind: "TANTIEMES",
  shares: [
    { estate_id: "e1", share: 333 },
    { estate_id: "e2", share: 333 },
    { estate_id: "e3", share: 334 },
  ],
};
const expense = (over: Partial<Expense> = {}): Expense => ({
  id: "x1",
  source: "CHARGE",
  label: "Ascenseur",
  category: "ELEVATORS",
  amount: 100_001,
  from: "2025-01-01",
  to: "2025-12-31",
  key_id: "k",
  ...over,
});
const facts = (over: Partial<RegularisationFacts> = {}): RegularisationFacts => ({
  lease_id: "l1",
  estate_id: "e1",
  lease_type: "UNFURNISHED",
  settlement: "PROVISION",
  period: { from: "2025-01-01", to: "2025-12-31" },
  regularised_on: "2026-03-01",
  expenses: [expense()],
  keys: [key],
  estate_ids: estates,
  occupancies: [
    { lease_id: "l1", estate_id: "e1", from: "2024-01-01", to: null },
    { lease_id: "l2", estate_id: "e2", from: "2025-07-01", to: null },
  ],
  provisions: [],
  ...over,
});

describe("splitExactly (largest remainder, BigInt)", () => {
  it("every split sums back exactly, whatever the amount and weights", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e11, max: 1e11 }),
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 60 }),
        (amount, weights) => {
          const parts = splitExactly(amount, weights);
          expect(parts.reduce((s, p) => s + p, 0)).toBe(amount);
        },
      ),
    );
  });
});

describe("regularise (art. 23)", () => {
  it("the place's leases and vacancy sum to the recoverable total, to the cent, for any occupancy", () => {
    const day = fc
      .integer({ min: 0, max: 364 })
      .map((d) => new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10));
    const occupancy = fc.record({ estate: fc.constantFrom(...estates), a: day, b: day });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50_000, max: 10_000_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(occupancy, { maxLength: 3 }),
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 3, maxLength: 3 }),
        (amounts, occ, shares) => {
          const occupancies: Occupancy[] = occ.map((o, i) => {
            const [from, to] = [o.a, o.b].sort();
            return { lease_id: `l${i}`, estate_id: o.estate, from, to };
          });
          // One lease per estate: the split assumes no two leases occupy one estate at once.
          const seen = new Set<string>();
          const single = occupancies.filter((o) => !seen.has(o.estate_id) && seen.add(o.estate_id));
          const r = regularise(
            facts({
              lease_id: single[0]?.lease_id ?? "none",
              expenses: amounts.map((amount, i) =>
                expense({ id: `x${i}`, amount, key_id: i % 2 ? "k" : null }),
              ),
              keys: [{ ...key, shares: estates.map((estate_id, i) => ({ estate_id, share: shares[i] })) }],
              occupancies: single,
            }),
          );
          const total = r.place_split.reduce((s, p) => s + p.amount, 0);
          expect(total).toBe(r.recoverable_total);
          expect(r.lines.reduce((s, l) => s + l.place_amount, 0)).toBe(r.recoverable_total);
        },
      ),
    );
  });

  it("share × days occupied / days of the period − provisions, to the cent", () => {
    const r = regularise(
      facts({
        provisions: [{ period_start: "2025-12-01", period_end: "2026-01-31", charges: 6_200 }],
      }),
    );
    // 1000.01 € × 333/1000 for the whole year.
    expect(r.lease_amount).toBe(33_300);
    // Half the two-month call falls in 2025: 31 of 62 days.
    expect(r.provisions_called).toBe(3_100);
    expect(r.balance).toBe(30_200);
    const l2 = regularise(facts({ lease_id: "l2", estate_id: "e2" }));
    // 184 of 365 days.
    expect(l2.lease_amount).toBe(Math.round((100_001 * 333 * 184) / (1000 * 365)));
    expect(l2.days_occupied).toBe(184);
    // e3 vacant all year, e2 half: the owner keeps those parts.
    expect(r.place_split.filter((p) => p.lease_id === null).reduce((s, p) => s + p.amount, 0)).toBe(
      100_001 - 33_300 - l2.lease_amount,
    );
  });

  it("leaves out non-recoverable expenses and those barred by art. 7-1, with the reason", () => {
    const r = regularise(
      facts({
        expenses: [expense({ id: "nr", category: "NON_RECOVERABLE" }), expense({ id: "ok" })],
      }),
    );
    expect(r.excluded.map((e) => [e.expense_id, e.legal_reference])).toEqual([
      ["nr", "décret n° 87-713 du 26 août 1987, annexe"],
    ]);
  });

  it("heading VIII: only the TEOM/REOM and the taxe de balayage are recovered, never another tax", () => {
    const tax = (t: Expense["tax"], id = String(t)) =>
      expense({ id, category: "TAXES_AND_FEES", tax: t, amount: 10_000 });
    const r = regularise(
      facts({
        expenses: [tax("TEOM"), tax("REOM"), tax("TAXE_BALAYAGE"), tax("OTHER"), tax(null, "unnamed")],
      }),
    );
    expect(r.excluded.map((e) => [e.expense_id, e.legal_reference])).toEqual([
      ["OTHER", "décret n° 87-713 du 26 août 1987, annexe, VIII (impositions et redevances)"],
      ["unnamed", "décret n° 87-713 du 26 août 1987, annexe, VIII (impositions et redevances)"],
    ]);
    expect(r.excluded[0].reason).toMatch(/taxe foncière.*stays with the owner/);
    expect(r.excluded[1].reason).toMatch(/not named/);
    expect(r.recoverable_total).toBe(30_000);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({
      category: "TAXES_AND_FEES",
      heading: "VIII. Impositions et redevances",
    });
  });

  it("the tax verdict: PASS for the three, FAIL otherwise, not applicable outside heading VIII", () => {
    for (const t of ["TEOM", "REOM", "TAXE_BALAYAGE"] as const)
      expect(taxVerdict("TAXES_AND_FEES", t)).toMatchObject({ status: "PASS", rule: "RECOVERABLE_TAX" });
    expect(taxVerdict("TAXES_AND_FEES", "OTHER").status).toBe("FAIL");
    expect(taxVerdict("TAXES_AND_FEES", undefined).status).toBe("FAIL");
    expect(taxVerdict("WASTE_AND_HYGIENE", null).status).toBe("NOT_APPLICABLE");
    expect(recoverableExpense({ category: "TAXES_AND_FEES", tax: "TEOM" })).toBe(true);
    expect(recoverableExpense({ category: "TAXES_AND_FEES", tax: "OTHER" })).toBe(false);
    expect(recoverableExpense({ category: "NON_RECOVERABLE", tax: null })).toBe(false);
    expect(recoverableExpense({ category: "ELEVATORS" })).toBe(true);
  });

  it("a flat rate is not regularised (art. 25-10, 25-18)", () => {
    expect(settlementVerdict("FURNISHED", "FLAT")).toMatchObject({
      status: "FAIL",
      legal_reference: expect.stringContaining("art. 25-10"),
    });
    expect(settlementVerdict("MOBILITY", "FLAT")).toMatchObject({
      status: "FAIL",
      legal_reference: expect.stringContaining("art. 25-18"),
    });
    expect(settlementVerdict("UNFURNISHED", "PROVISION").status).toBe("PASS");
  });
});

describe("boundaries", () => {
  it("art. 7-1: claimable on the third anniversary of the period's end, barred the day after", () => {
    expect(prescriptionVerdict("2022-12-31", "2025-12-31").status).toBe("PASS");
    expect(prescriptionVerdict("2022-12-31", "2026-01-01").status).toBe("FAIL");
    const r = regularise(
      facts({
        period: { from: "2022-01-01", to: "2022-12-31" },
        regularised_on: "2026-01-01",
        expenses: [expense({ from: "2022-01-01", to: "2022-12-31" })],
      }),
    );
    expect(r.excluded[0]).toMatchObject({ legal_reference: expect.stringContaining("art. 7-1") });
    expect(r.recoverable_total).toBe(0);
  });

  it("art. 23 last paragraph: twelfths once regularised after 31 December of the next year", () => {
    expect(twelfthsVerdict("2025-12-31", "2026-12-31").details.instalments_allowed).toBe(false);
    expect(twelfthsVerdict("2025-12-31", "2027-01-01").details.instalments_allowed).toBe(true);
    const late = regularise(facts({ regularised_on: "2027-01-01" }));
    expect(late.instalments.allowed).toBe(true);
    expect(late.instalments.schedule).toHaveLength(12);
    expect(late.instalments.schedule.reduce((s, x) => s + x, 0)).toBe(late.balance);
  });

  it("freeze: the first and last frozen days are closed; the day after is open", () => {
    const frozen = [{ from: "2025-01-01", to: "2025-06-30" }];
    expect(freezeVerdict({ from: "2024-12-01", to: "2025-01-01" }, frozen).status).toBe("FAIL");
    expect(freezeVerdict({ from: "2025-06-30", to: "2025-07-10" }, frozen).status).toBe("FAIL");
    expect(freezeVerdict({ from: "2025-07-01", to: "2025-07-10" }, frozen).status).toBe("PASS");
    expect(freezeVerdict({ from: "2024-01-01", to: "2024-12-31" }, frozen).status).toBe("PASS");
  });

  it("alerts: annual review due after the year; overdue twelve months after its end", () => {
    const lease = [{ lease_id: "l1", settlement: "PROVISION" as const, from: "2025-01-01", to: null }];
    expect(chargeAlerts(lease, [], "2026-12-31")).toMatchObject([
      { kind: "ANNUAL_REVIEW_DUE", due_by: "2026-12-31" },
    ]);
    expect(chargeAlerts(lease, [], "2027-01-01")[0]).toMatchObject({
      kind: "REGULARISATION_OVERDUE",
      period: { from: "2025-01-01", to: "2025-12-31" },
    });
    expect(
      chargeAlerts(lease, [{ lease_id: "l1", from: "2025-01-01", to: "2025-12-31" }], "2026-06-01"),
    ).toEqual([]);
    expect(chargeAlerts([{ ...lease[0], settlement: "FLAT" }], [], "2027-01-01")).toEqual([]);
  });
});

describe("services", () => {
  it("décret 87-713 art. 2 c: a caretaker's pay recoverable at 75 % at most", () => {
    expect(caretakerVerdict(75).status).toBe("PASS");
    expect(caretakerVerdict(75.01)).toMatchObject({
      status: "FAIL",
      legal_reference: expect.stringContaining("art. 2 c"),
    });
    expect(caretakerVerdict(null).status).toBe("UNKNOWN");
  });

  it("a monthly contract recovers its percent per month, prorated where the window or the contract cuts it", () => {
    const s = {
      id: "s",
      label: "Ménage",
      category: "COMMON_AREAS" as const,
      amount: 10_000,
      frequency: "MONTHLY" as const,
      recoverable_share_percent: 75,
      recoverable_amount: null,
      from: "2025-01-01",
      to: "2025-06-15",
      key_id: null,
    };
    const out = serviceExpenses(s, { from: "2025-01-01", to: "2025-12-31" });
    expect(out).toHaveLength(6);
    expect(out.slice(0, 5).every((e) => e.amount === 7_500)).toBe(true);
    expect(out[5]).toMatchObject({ from: "2025-06-01", to: "2025-06-15", amount: 3_750 });
  });
});
