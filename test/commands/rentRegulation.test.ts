import { describe, expect, it } from "vitest";
import { rentRegulationDecider } from "../../src/commands/rentRegulation/decider.ts";
import type { RentRegulationEvent } from "../../src/events/rentRegulation.ts";
import { fold } from "../../src/platform/decider.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { constructionPeriodOf, rentRevision } from "../../src/queries/rentRegulation.ts";
import { putRentRegulationBody } from "../../src/queries/rentRegulationSchemas.ts";

const given = (events: RentRegulationEvent[]) => fold(rentRegulationDecider, events);

describe("rentRevision (loi n° 89-462, art. 17-1)", () => {
  it("caps the revised rent at rent × new / reference, rounded down to the cent", () => {
    // 850 × 146.68 / 145.17 = 858.8413...
    const r = rentRevision({ quarter: "2024-Q2", value: 145.17 }, { quarter: "2025-Q2", value: 146.68 }, 850);
    expect(r).toMatchObject({ capped_rent: 858.84, increase: 8.84, note: null });
    expect(r.formula).toBe("850.00 × 146.68 / 145.17 = 858.84 (rounded down to the cent)");
    // 1000 × 137.26 / 133.93 = 1024.8637...: a cent is never rounded up over the cap.
    expect(
      rentRevision({ quarter: "2022-Q1", value: 133.93 }, { quarter: "2022-Q4", value: 137.26 }, 1000)
        .capped_rent,
    ).toBe(1024.86);
    // Exact quotients stay exact (no float drift): 1234.56 × 2 / 1.
    expect(
      rentRevision({ quarter: "2020-Q1", value: 100 }, { quarter: "2021-Q1", value: 200 }, 1234.56)
        .capped_rent,
    ).toBe(2469.12);
  });

  it("says the IRL of 2022-Q3..2024-Q1 already carries the 3.5 % cap of loi n° 2022-1158", () => {
    const ref = { quarter: "2022-Q2", value: 135.84 };
    for (const [quarter, value, noted] of [
      ["2022-Q2", 135.84, false],
      ["2022-Q3", 136.27, true],
      ["2024-Q1", 143.46, true],
      ["2024-Q2", 145.17, false],
    ] as const) {
      const note = rentRevision(ref, { quarter, value }, 700).note;
      if (noted) expect(note, quarter).toMatch(/2022-1158.*art\. 12/);
      else expect(note, quarter).toBeNull();
    }
  });

  it("a falling index lowers the cap", () => {
    const r = rentRevision({ quarter: "2024-Q2", value: 145.17 }, { quarter: "2024-Q3", value: 144.51 }, 900);
    expect(r.capped_rent).toBe(895.9);
    expect(r.increase).toBe(-4.1);
  });
});

describe("rent regulation decider", () => {
  it("publishes an IRL value; the same again changes nothing; a correction is a new event", () => {
    const publish = {
      type: "PublishIrlValue" as const,
      quarter: "2025-Q4",
      value: 146.12,
      published_on: null,
    };
    const first = rentRegulationDecider.decide(publish, given([]));
    expect(first).toEqual([
      { type: "IrlValuePublished", data: { quarter: "2025-Q4", value: 146.12, published_on: null } },
    ]);
    expect(rentRegulationDecider.decide(publish, given(first))).toEqual([]);
    expect(rentRegulationDecider.decide({ ...publish, value: 146.2 }, given(first))).toHaveLength(1);
  });

  it("removing an estate override that is not there is a 404", () => {
    const remove = { type: "RemoveEstateRentRegulation" as const, estate_id: "e" };
    expect(() => rentRegulationDecider.decide(remove, given([]))).toThrow(ApiError);
    const set: RentRegulationEvent = {
      type: "EstateRentRegulationSet",
      data: {
        estate_id: "e",
        high_demand_zone: true,
        reference_rents: [],
        order_reference: null,
        effective_from: null,
      },
    };
    expect(rentRegulationDecider.decide(remove, given([set]))).toEqual([
      { type: "EstateRentRegulationRemoved", data: { estate_id: "e" } },
    ]);
    expect(() =>
      rentRegulationDecider.decide(
        remove,
        given([set, { type: "EstateRentRegulationRemoved", data: { estate_id: "e" } }]),
      ),
    ).toThrow(ApiError);
  });
});

describe("rent regulation schemas", () => {
  it("defaults the optional fields and refuses a duplicated line", () => {
    expect(putRentRegulationBody.parse({ high_demand_zone: false })).toEqual({
      high_demand_zone: false,
      reference_rents: [],
      order_reference: null,
      effective_from: null,
    });
    const line = {
      rooms: 1,
      construction_period: "BEFORE_1946",
      furnished: false,
      reference: 30,
      increased_reference: 36,
    };
    expect(
      putRentRegulationBody.safeParse({ high_demand_zone: true, reference_rents: [line, line] }).success,
    ).toBe(false);
    expect(
      putRentRegulationBody.safeParse({
        high_demand_zone: true,
        reference_rents: [line, { ...line, furnished: true }],
      }).success,
    ).toBe(true);
  });

  it("maps construction years to the orders' periods", () => {
    expect([1945, 1946, 1970, 1971, 1990, 1991].map(constructionPeriodOf)).toEqual([
      "BEFORE_1946",
      "1946_1970",
      "1946_1970",
      "1971_1990",
      "1971_1990",
      "AFTER_1990",
    ]);
  });
});
