import { describe, expect, it } from "vitest";
import { addMonths, legalToday, termEnd } from "../../src/law/calendar.ts";

/** The law's calendar (docs/compliance.md, "Calendar"). */
describe("one calendar for the law (src/law/calendar.ts)", () => {
  it("dates a legal today in Paris: 00:30 there is still the day before in UTC", () => {
    expect(legalToday("2026-11-25T23:30:00Z")).toBe("2026-11-26");
    expect(legalToday("2026-07-01T21:59:59Z")).toBe("2026-07-01");
    expect(legalToday("2026-07-01T22:00:00Z")).toBe("2026-07-02");
  });
  it("counts months as CPC art. 641 does, and a term ends the day before its anniversary", () => {
    expect(addMonths("2025-01-31", 1)).toBe("2025-02-28");
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
    expect(addMonths("2025-03-31", -1)).toBe("2025-02-28");
    expect(addMonths("2026-08-31", -18)).toBe("2025-02-28");
    expect(termEnd("2024-12-31", 36)).toBe("2027-12-30");
    expect(termEnd("2025-01-01", 36)).toBe("2027-12-31");
  });
});
