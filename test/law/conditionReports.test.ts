import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  changeOf,
  compareRooms,
  completionWindowVerdict,
  exitMatchesEntry,
  heatingWindow,
  type ReportRoom,
} from "../../src/law/conditionReports.ts";
import {
  furnishedInventoryVerdict,
  REQUIRED_FURNITURE,
  REQUIRED_ITEMS,
} from "../../src/law/furnishedInventory.ts";

/** Condition reports (loi n° 89-462 art. 3-2, décret n° 2016-382) and furniture (décret n° 2015-981 art. 2). */

describe("completing an entry report: ten days from its signing (art. 3-2)", () => {
  const window = (received_on: string, heating = false, signed_on = "2026-03-01") =>
    completionWindowVerdict({ signed_on, received_on, heating });
  it("day 10 passes, day 11 fails, citing the article", () => {
    expect(window("2026-03-01").status).toBe("PASS");
    expect(window("2026-03-11").status).toBe("PASS");
    const late = window("2026-03-12");
    expect(late).toMatchObject({
      status: "FAIL",
      legal_reference: "loi n° 89-462 du 6 juillet 1989, art. 3-2",
    });
    expect(late.details.errors).toEqual([
      { field: "received_on", message: expect.stringContaining("2026-03-11") },
    ]);
  });
  it("counts across months and years", () => {
    expect(window("2027-01-07", false, "2026-12-28").status).toBe("PASS");
    expect(window("2027-01-08", false, "2026-12-28").status).toBe("FAIL");
  });
  it("a request before the signing fails", () => {
    expect(window("2026-02-28").status).toBe("FAIL");
  });
  it("heating elements: also the first month of the heating season (15 October to 14 November)", () => {
    expect(window("2026-10-14", true).status).toBe("FAIL");
    expect(window("2026-10-15", true).status).toBe("PASS");
    expect(window("2026-11-14", true).status).toBe("PASS");
    expect(window("2026-11-15", true).status).toBe("FAIL");
    // Not a heating element: the season does not reopen the window.
    expect(window("2026-10-20", false).status).toBe("FAIL");
  });
  it("the season in progress counts when signed during its first month, else the next one", () => {
    expect(heatingWindow("2026-10-20")).toEqual({ from: "2026-10-15", to: "2026-11-14" });
    expect(heatingWindow("2026-11-14")).toEqual({ from: "2026-10-15", to: "2026-11-14" });
    expect(heatingWindow("2026-11-15")).toEqual({ from: "2027-10-15", to: "2027-11-14" });
    expect(heatingWindow("0999-12-01")).toEqual({ from: "1000-10-15", to: "1000-11-14" });
  });
});

describe("comparing an exit with its entry", () => {
  const room = (name: string, ...elements: [string, "NEW" | "GOOD" | "FAIR" | "POOR"][]): ReportRoom => ({
    name,
    elements: elements.map(([element, condition]) => ({ element, condition })),
  });
  it("worse, same, better by the scale NEW > GOOD > FAIR > POOR", () => {
    expect(changeOf("GOOD", "POOR")).toBe("WORSE");
    expect(changeOf("FAIR", "FAIR")).toBe("SAME");
    expect(changeOf("FAIR", "NEW")).toBe("BETTER");
  });
  it("room by room (by room_id, else by name ignoring case) and element by element", () => {
    const rooms = compareRooms(
      [room("Cuisine", ["Sol", "GOOD"], ["Four", "GOOD"]), room("Chambre", ["Murs", "FAIR"])],
      [room("chambre", ["Murs", "FAIR"]), room("Cuisine", ["sol", "FAIR"]), room("Cave", ["Porte", "GOOD"])],
    );
    expect(rooms.map((r) => [r.name, r.change])).toEqual([
      ["Cuisine", "WORSE"],
      ["Chambre", "SAME"],
      ["Cave", "ONLY_AT_EXIT"],
    ]);
    expect(rooms[0].elements.map((e) => [e.element, e.change])).toEqual([
      ["Sol", "WORSE"],
      ["Four", "ONLY_AT_ENTRY"],
    ]);
    expect(exitMatchesEntry(rooms)).toBe(false);
  });
  it("a report compared with itself matches; any element made worse does not", () => {
    const grade = fc.constantFrom("NEW" as const, "GOOD" as const, "FAIR" as const, "POOR" as const);
    const rooms = fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 8 }),
        elements: fc.uniqueArray(
          fc.record({ element: fc.string({ minLength: 1, maxLength: 8 }), condition: grade }),
          {
            selector: (e) => e.element.trim().toLowerCase(),
            maxLength: 5,
          },
        ),
      }),
      { selector: (r) => r.name.trim().toLowerCase(), minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(rooms, (report) => {
        expect(exitMatchesEntry(compareRooms(report, report))).toBe(true);
        const target = report.find((r) => r.elements.some((e) => e.condition !== "POOR"));
        if (!target) return;
        const worse = report.map((r) =>
          r !== target
            ? r
            : {
                ...r,
                elements: r.elements.map((e, i) =>
                  i === r.elements.findIndex((x) => x.condition !== "POOR")
                    ? { ...e, condition: "POOR" as const }
                    : e,
                ),
              },
        );
        expect(exitMatchesEntry(compareRooms(report, worse))).toBe(false);
      }),
    );
  });
});

describe("furniture of a furnished dwelling (décret n° 2015-981 art. 2)", () => {
  const all = REQUIRED_ITEMS.map((item) => ({ item, quantity: 1 }));
  const verdictOf = (
    items: { item: string; quantity: number }[] | null,
    lease_type = "FURNISHED" as const,
    start_date = "2025-01-01",
  ) =>
    furnishedInventoryVerdict({
      lease_type,
      start_date,
      inventory: items ? { recorded_on: start_date, items } : null,
    });
  it("lists the eleven items of art. 2", () => {
    expect(REQUIRED_FURNITURE.map((f) => f.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
  it("every item present passes; each one missing (or at quantity 0) fails with its number", () => {
    expect(verdictOf(all).status).toBe("PASS");
    for (const f of REQUIRED_FURNITURE) {
      const without = verdictOf(all.map((i) => (i.item === f.item ? { ...i, quantity: 0 } : i)));
      expect(without.status).toBe("FAIL");
      expect(without.message).toContain(`art. 2, ${f.number}°`);
    }
  });
  it("unknown without an inventory; not applicable to an unfurnished lease or one concluded before 2015-09-01", () => {
    expect(verdictOf(null).status).toBe("UNKNOWN");
    expect(verdictOf([], "UNFURNISHED" as "FURNISHED").status).toBe("NOT_APPLICABLE");
    expect(verdictOf([], "FURNISHED", "2015-08-31").status).toBe("NOT_APPLICABLE");
    expect(verdictOf([], "FURNISHED", "2015-09-01").status).toBe("FAIL");
  });
});
