import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  daysIn,
  periodsStartedBy,
  type RentScheduleFacts,
  rentPeriod,
  splitByLargestRemainder,
} from "../../src/law/rentPeriods.ts";

/** Rent periods (loi n° 89-462 art. 7 a: rent and charges paid at the agreed terms) at their boundaries. */

const lease = (over: Partial<RentScheduleFacts> = {}): RentScheduleFacts => ({
  start_date: "2026-01-01",
  end_date: null,
  rent_frequency: "MONTHLY",
  payment_terms: "TERME_A_ECHOIR",
  payment_day: 5,
  rent_amount: 900,
  charges_amount: 50,
  changes: [],
  ...over,
});

describe("monthly periods, due dates", () => {
  it("a full month calls the full rent and charges, due on payment_day of its month (terme à échoir)", () => {
    expect(rentPeriod(lease(), 1)).toEqual({
      period_start: "2026-02-01",
      period_end: "2026-02-28",
      due_date: "2026-02-05",
      rent_amount: 900,
      charges_amount: 50,
      total_amount: 950,
      prorated: null,
    });
  });

  it("payment_day 31 falls on the last day of February (28, 29 in a leap year) and on 30 April", () => {
    expect(rentPeriod(lease({ payment_day: 31 }), 1)?.due_date).toBe("2026-02-28");
    expect(rentPeriod(lease({ start_date: "2028-01-01", payment_day: 31 }), 1)?.due_date).toBe("2028-02-29");
    expect(rentPeriod(lease({ payment_day: 31 }), 3)?.due_date).toBe("2026-04-30");
    expect(rentPeriod(lease({ payment_day: 31 }), 0)?.due_date).toBe("2026-01-31");
  });

  it("null payment_day is the 1st; null payment_terms is terme à échoir; null frequency is monthly", () => {
    const p = rentPeriod(lease({ payment_day: null, payment_terms: null, rent_frequency: null }), 2);
    expect(p).toMatchObject({ period_start: "2026-03-01", period_end: "2026-03-31", due_date: "2026-03-01" });
  });

  it("terme échu is due on the period's last day", () => {
    expect(rentPeriod(lease({ payment_terms: "TERME_ECHU" }), 1)?.due_date).toBe("2026-02-28");
    expect(rentPeriod(lease({ payment_terms: "TERME_ECHU", end_date: "2026-02-10" }), 1)?.due_date).toBe(
      "2026-02-10",
    );
  });
});

describe("first and last periods prorated by days", () => {
  it("a lease starting on 16 January calls 16/31 of January, due on its first day when payment_day is before it", () => {
    const p = rentPeriod(lease({ start_date: "2026-01-16" }), 0);
    // 900 × 16/31 = 464.516 -> 464.52; 50 × 16/31 = 25.806 -> 25.81
    expect(p).toEqual({
      period_start: "2026-01-16",
      period_end: "2026-01-31",
      due_date: "2026-01-16",
      rent_amount: 464.52,
      charges_amount: 25.81,
      total_amount: 490.33,
      prorated: { days: 16, of_days: 31 },
    });
  });

  it("a lease ending on 10 March calls 10/31 of March, and nothing after", () => {
    const facts = lease({ end_date: "2026-03-10" });
    expect(rentPeriod(facts, 2)).toMatchObject({
      period_start: "2026-03-01",
      period_end: "2026-03-10",
      prorated: { days: 10, of_days: 31 },
      rent_amount: 290.32,
    });
    expect(rentPeriod(facts, 3)).toBeNull();
    expect(periodsStartedBy(facts, "2026-12-31").map((p) => p.period_start)).toEqual([
      "2026-01-01",
      "2026-02-01",
      "2026-03-01",
    ]);
  });

  it("a lease starting on the last day of a month calls one day of it", () => {
    expect(rentPeriod(lease({ start_date: "2026-01-31" }), 0)?.prorated).toEqual({ days: 1, of_days: 31 });
  });
});

describe("quarterly and annual periods", () => {
  it("quarters are anchored on the start month; the first is prorated from the start day", () => {
    const facts = lease({
      rent_frequency: "QUARTERLY",
      start_date: "2026-02-15",
      rent_amount: 3000,
      charges_amount: 0,
    });
    expect(rentPeriod(facts, 0)).toMatchObject({
      period_start: "2026-02-15",
      period_end: "2026-04-30",
      due_date: "2026-02-15",
      prorated: { days: 75, of_days: 89 },
    });
    expect(rentPeriod(facts, 1)).toMatchObject({
      period_start: "2026-05-01",
      period_end: "2026-07-31",
      due_date: "2026-05-05",
      total_amount: 3000,
      prorated: null,
    });
  });

  it("an annual period is twelve months from the start month; 2028 has 366 days", () => {
    const facts = lease({
      rent_frequency: "ANNUALLY",
      start_date: "2028-01-01",
      payment_terms: "TERME_ECHU",
    });
    expect(rentPeriod(facts, 0)).toMatchObject({
      period_end: "2028-12-31",
      due_date: "2028-12-31",
      prorated: null,
    });
    // Anchored on the start month: July 2028 to June 2029 (365 days), from 15 July.
    expect(rentPeriod(lease({ rent_frequency: "ANNUALLY", start_date: "2028-07-15" }), 0)).toMatchObject({
      period_end: "2029-06-30",
      prorated: { days: 351, of_days: 365 },
    });
  });
});

describe("rent changes inside a period", () => {
  it("an IRL revision effective on 16 March splits March by days: 15 days at the old rent, 16 at the new", () => {
    const facts = lease({
      changes: [{ effective_date: "2026-03-16", rent_amount: 930, charges_amount: 50 }],
    });
    const march = rentPeriod(facts, 2);
    // 900 × 15/31 = 435.48; 930 × 16/31 = 480.00
    expect(march).toMatchObject({
      rent_amount: 915.48,
      charges_amount: 50,
      total_amount: 965.48,
      prorated: null,
    });
    expect(rentPeriod(facts, 3)).toMatchObject({ rent_amount: 930 });
    expect(rentPeriod(facts, 1)).toMatchObject({ rent_amount: 900 });
  });

  it("a change effective on the period's first day applies to the whole period", () => {
    const facts = lease({
      changes: [{ effective_date: "2026-03-01", rent_amount: 930, charges_amount: null }],
    });
    expect(rentPeriod(facts, 2)).toMatchObject({ rent_amount: 930, charges_amount: 0, total_amount: 930 });
  });
});

describe("periods that have started", () => {
  it("lists each started period once, from after a given period", () => {
    const facts = lease({ start_date: "2026-01-20" });
    expect(periodsStartedBy(facts, "2026-01-19")).toEqual([]);
    expect(periodsStartedBy(facts, "2026-01-20").map((p) => p.period_start)).toEqual(["2026-01-20"]);
    expect(periodsStartedBy(facts, "2026-04-01").map((p) => p.period_start)).toEqual([
      "2026-01-20",
      "2026-02-01",
      "2026-03-01",
      "2026-04-01",
    ]);
    expect(periodsStartedBy(facts, "2026-04-01", "2026-02-01").map((p) => p.period_start)).toEqual([
      "2026-03-01",
      "2026-04-01",
    ]);
    expect(periodsStartedBy(facts, "2026-04-01", "2026-04-01")).toEqual([]);
  });
});

describe("largest-remainder rounding (properties)", () => {
  it("the parts of any split sum back to the amount to the cent", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }),
        (amount, weights) => {
          const parts = splitByLargestRemainder(amount, weights);
          expect(parts.reduce((s, p) => s + p, 0)).toBe(amount);
          parts.forEach((p, i) => {
            expect(Math.abs(p - (amount * weights[i]) / weights.reduce((s, w) => s + w, 0))).toBeLessThan(1);
          });
        },
      ),
    );
  });

  it("a lease ending inside a period and its successor starting the next day sum to the full period", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500_000 }),
        fc.integer({ min: 0, max: 500_000 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 1, max: 27 }),
        fc.constantFrom("MONTHLY", "QUARTERLY", "ANNUALLY"),
        (rentCents, chargesCents, month, day, frequency) => {
          const start = `2027-${String(month + 1).padStart(2, "0")}-01`;
          const cut = `2027-${String(month + 1).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
          const terms = {
            rent_amount: rentCents / 100,
            charges_amount: chargesCents / 100,
            rent_frequency: frequency,
          };
          const before = rentPeriod(lease({ ...terms, start_date: start, end_date: cut }), 0);
          const after = rentPeriod(lease({ ...terms, start_date: start }), 0);
          expect(after?.prorated).toBeNull();
          // The first days as one lease, the rest as a lease starting the day after `cut`.
          const rest = rentPeriod(
            lease({
              ...terms,
              start_date: `2027-${String(month + 1).padStart(2, "0")}-${String(day + 1).padStart(2, "0")}`,
            }),
            0,
          );
          if (!before || !rest || !after) throw new Error("periods expected");
          expect(Math.round(before.rent_amount * 100) + Math.round(rest.rent_amount * 100)).toBe(rentCents);
          expect(Math.round(before.total_amount * 100) + Math.round(rest.total_amount * 100)).toBe(
            rentCents + chargesCents,
          );
          expect(before.prorated && rest.prorated && before.prorated.days + rest.prorated.days).toBe(
            daysIn(after.period_start, after.period_end),
          );
        },
      ),
    );
  });
});

describe("a tenancy taken over (takeover_date)", () => {
  const starts = (over: Partial<RentScheduleFacts>, today: string, after: string | null = null) =>
    periodsStartedBy(lease({ start_date: "2023-01-01", ...over }), today, after).map((p) => p.period_start);
  it("calls from the period holding the takeover date, in full: its last day and the next's first", () => {
    expect(starts({ takeover_date: "2025-02-28" }, "2025-03-15")).toEqual(["2025-02-01", "2025-03-01"]);
    expect(starts({ takeover_date: "2025-03-01" }, "2025-03-15")).toEqual(["2025-03-01"]);
    expect(
      periodsStartedBy(lease({ start_date: "2023-01-01", takeover_date: "2025-02-15" }), "2025-02-20")[0],
    ).toMatchObject({ period_start: "2025-02-01", prorated: null });
    // A takeover not yet reached calls nothing; none at all calls from the start.
    expect(starts({ takeover_date: "2025-04-01" }, "2025-03-15")).toEqual([]);
    expect(starts({ takeover_date: null }, "2023-02-15")).toEqual(["2023-01-01", "2023-02-01"]);
    // Once called, the next run resumes after the last call, whatever the takeover.
    expect(starts({ takeover_date: "2025-02-15" }, "2025-04-02", "2025-03-01")).toEqual(["2025-04-01"]);
  });
});
