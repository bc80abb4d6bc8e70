import { describe, expect, it } from "vitest";
import { frenchDate, frenchDateTime } from "../../src/platform/frenchText.ts";
import { markupToContent } from "../../src/platform/pdf/renderTemplate.ts";

describe("French dates and times for documents", () => {
  it("writes the first of the month as 1er, the others as numbers, months in words", () => {
    expect(frenchDate("2026-12-01")).toBe("1er décembre 2026");
    expect(frenchDate("2026-12-02")).toBe("2 décembre 2026");
    expect(frenchDate("2027-02-28")).toBe("28 février 2027");
    expect(frenchDate("2026-08-31T23:00:00Z")).toBe("31 août 2026");
    expect(frenchDate("not a date")).toBeNull();
    expect(frenchDate(null)).toBeNull();
  });

  it("reads an instant in Paris time, across midnight and the daylight-saving change", () => {
    // 21:52 UTC is 22:52 in Paris in winter (UTC+1).
    expect(frenchDateTime("2026-12-01T21:52:00Z")).toBe("1er décembre 2026 à 22 h 52");
    // 23:30 UTC on 30 November is already 1 December in Paris.
    expect(frenchDateTime("2026-11-30T23:30:00Z")).toBe("1er décembre 2026 à 0 h 30");
    // Summer time (UTC+2): 22:05 UTC is 0 h 05 the next day.
    expect(frenchDateTime("2026-07-14T22:05:00Z")).toBe("15 juillet 2026 à 0 h 05");
    // The last minute before the change back to winter time (25 October 2026, 03:00 -> 02:00).
    expect(frenchDateTime("2026-10-25T00:59:00Z")).toBe("25 octobre 2026 à 2 h 59");
    expect(frenchDateTime("2026-10-25T01:00:00Z")).toBe("25 octobre 2026 à 2 h 00");
    expect(frenchDateTime("nope")).toBeNull();
  });

  it("drops a Markdown separator row from a table and keeps the data rows", () => {
    const [table] = markupToContent("| A | B |\n| --- | :-: |\n| x | - |") as {
      table: { body: unknown[] };
    }[];
    expect(table.table.body).toHaveLength(2);
  });
});
