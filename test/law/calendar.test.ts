import { describe, expect, it } from "vitest";
import {
  addDays,
  addMonths,
  addYears,
  lastDayBefore,
  legalToday,
  monthsOfTerm,
  termEnd,
} from "../../src/law/calendar.ts";
import { cents, euros, toEuros } from "../../src/law/money.ts";
import { verdict } from "../../src/law/verdict.ts";

/** The law's calendar (code de procédure civile art. 641) and money (whole cents). */

describe("months as délais count them (CPC art. 641)", () => {
  it("the same day of the month, else the month's last day; across years both ways", () => {
    expect(addMonths("2025-01-31", 1)).toBe("2025-02-28");
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
    expect(addMonths("2025-11-30", 3)).toBe("2026-02-28");
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-29");
    expect(addMonths("2025-01-15", -13)).toBe("2023-12-15");
    expect(addMonths("2025-12-15", 1)).toBe("2026-01-15");
    expect(addMonths("0999-01-05", 1)).toBe("0999-02-05");
  });

  it("years are 12 months: 29 February lands on 28 February", () => {
    expect(addYears("2024-02-29", 1)).toBe("2025-02-28");
    expect(addYears("2024-02-29", 4)).toBe("2028-02-29");
  });

  it("days cross months and years both ways", () => {
    expect(addDays("2024-12-31", 1)).toBe("2025-01-01");
    expect(addDays("2025-03-01", -1)).toBe("2025-02-28");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
  });
});

describe("terms", () => {
  it("a term ends the day before its anniversary", () => {
    expect(termEnd("2025-01-10", 36)).toBe("2028-01-09");
    expect(termEnd("2025-01-01", 12)).toBe("2025-12-31");
    expect(termEnd("2025-01-31", 1)).toBe("2025-02-27");
  });

  it("counts the whole months of a term from its start to the anniversary after its end; at least one", () => {
    expect(monthsOfTerm("2025-01-10", "2028-01-09")).toBe(36);
    expect(monthsOfTerm("2025-01-10", "2028-01-10")).toBe(36);
    expect(monthsOfTerm("2025-01-10", "2028-01-08")).toBe(35);
    expect(monthsOfTerm("2025-01-31", "2025-02-27")).toBe(1);
    expect(monthsOfTerm("2025-01-10", "2025-01-12")).toBe(1);
    expect(monthsOfTerm("2025-01-10", "2025-04-09")).toBe(3);
    expect(monthsOfTerm("2025-11-10", "2026-02-09")).toBe(3);
  });

  it("an act due N months before the term: the day before the anniversary-equivalent, its months run out by the term", () => {
    expect(lastDayBefore("2023-03-31", 6)).toBe("2022-09-30");
    expect(lastDayBefore("2027-12-31", 6)).toBe("2027-06-30");
    expect(lastDayBefore("2023-02-28", 6)).toBe("2022-08-31");
    expect(lastDayBefore("2025-06-09", 3)).toBe("2025-03-09");
    // 31 December - 6 months clamps to 30 June; 30 June + 6 months is 30 December, the term.
    expect(lastDayBefore("2027-12-30", 6)).toBe("2027-06-30");
    expect(lastDayBefore("2024-08-30", 6)).toBe("2024-02-29");
    expect(lastDayBefore("2024-02-28", 6)).toBe("2023-08-28");
  });

  it("the legal day is the day in Paris", () => {
    expect(legalToday("2025-06-30T22:30:00Z")).toBe("2025-07-01");
    expect(legalToday(new Date("2025-01-01T22:59:00Z"))).toBe("2025-01-01");
    expect(legalToday()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("money and verdicts", () => {
  it("compares amounts in whole cents and shows them with two decimals", () => {
    expect(cents(0.1 + 0.2)).toBe(30);
    expect(euros(123456n)).toBe("1234.56");
    expect(euros(5)).toBe("0.05");
    expect(toEuros(123456n)).toBe(1234.56);
  });

  it("a verdict without figures has empty details", () => {
    expect(verdict("A", "PASS", "ok", "ref")).toEqual({
      rule: "A",
      status: "PASS",
      message: "ok",
      legal_reference: "ref",
      details: {},
    });
  });
});
