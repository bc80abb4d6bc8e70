import { describe, expect, it } from "vitest";
import {
  indexCapVerdict,
  indexRevisionVerdict,
  irlCapped,
  irlValuesVerdict,
  rentFreezeVerdict,
} from "../../src/law/rent.ts";

/**
 * Rent changes during a lease (loi n° 89-462 art. 17-1, 17-2; loi n° 2021-1104 art. 159) at their
 * boundaries: the figure the law allows passes, one cent (or one day) past it fails, naming the
 * article and the figures compared.
 */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const ART_17_1 = `${LAW}, art. 17-1 I`;

describe("index revision cap (art. 17-1 I)", () => {
  const revise = (new_rent: number) =>
    indexCapVerdict({ current_rent: 1000, new_rent, reference_value: 140, new_value: 144.9 });

  it("a revised rent exactly at rent × new IRL / reference IRL passes; one cent above fails", () => {
    // 1000 × 144.90 / 140.00 = 1035.00 exactly.
    const details = { current_rent: 1000, reference_value: 140, new_value: 144.9, max_rent: "1035.00" };
    expect(revise(1035)).toEqual({
      rule: "IRL_REVISION_CAP",
      status: "PASS",
      message: `The revised rent is within the index cap (${ART_17_1})`,
      legal_reference: ART_17_1,
      details: { ...details, new_rent: 1035 },
    });
    expect(revise(1035.01)).toEqual({
      rule: "IRL_REVISION_CAP",
      status: "FAIL",
      message: `An index revision may not raise the rent above rent × new index / reference index (${ART_17_1})`,
      legal_reference: ART_17_1,
      details: {
        ...details,
        new_rent: 1035.01,
        errors: [
          {
            field: "rent_amount",
            message: "Revised rent 1035.01 exceeds the cap 1035.00 = 1000.00 × 144.9 / 140",
          },
        ],
      },
    });
  });

  it("rounds the cap down to the cent, the highest rent that passes", () => {
    // 800 × 145.17 / 143.46 = 809.535…: 809.53 passes, 809.54 does not.
    const at = (new_rent: number) =>
      indexCapVerdict({ current_rent: 800, new_rent, reference_value: 143.46, new_value: 145.17 }).status;
    expect(at(809.53)).toBe("PASS");
    expect(at(809.54)).toBe("FAIL");
  });
});

describe("IRL values as INSEE published them (art. 17-1 I)", () => {
  const index = (type: string, reference_value: number, new_value: number) => ({
    type,
    reference_quarter: "2024-Q2",
    reference_value,
    new_quarter: "2025-Q2",
    new_value,
  });
  const published = { reference_value: 145.17, new_value: 146.68 };

  it("names each quarter whose given value differs from INSEE's, by field", () => {
    expect(irlValuesVerdict(index("IRL", 145.17, 146.68), published)).toEqual({
      rule: "IRL_VALUES",
      status: "PASS",
      message: "The IRL values are INSEE's",
      legal_reference: ART_17_1,
      details: {},
    });
    expect(irlValuesVerdict(index("IRL", 145, 147), published)).toEqual({
      rule: "IRL_VALUES",
      status: "FAIL",
      message: `An IRL revision must use the index values published by INSEE (${ART_17_1})`,
      legal_reference: ART_17_1,
      details: {
        errors: [
          {
            field: "index.reference_value",
            message: "The IRL of 2024-Q2 is 145.17 as published by INSEE, not 145",
          },
          {
            field: "index.new_value",
            message: "The IRL of 2025-Q2 is 146.68 as published by INSEE, not 147",
          },
        ],
      },
    });
    const onlyNew = irlValuesVerdict(index("IRL", 145.17, 146.69), published);
    expect(onlyNew.details.errors?.map((e) => e.field)).toEqual(["index.new_value"]);
  });

  it("takes a quarter INSEE has not published as given, and judges only the IRL", () => {
    expect(irlValuesVerdict(index("IRL", 1, 2), { reference_value: null, new_value: null }).status).toBe(
      "PASS",
    );
    expect(irlValuesVerdict(index("ILC", 1, 2), published)).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "Not an IRL revision",
    });
  });

  it("quarters 2022-Q3 to 2024-Q1 carry the 3.5 % cap of loi n° 2022-1158", () => {
    expect([irlCapped("2022-Q2"), irlCapped("2022-Q3"), irlCapped("2024-Q1"), irlCapped("2024-Q2")]).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe("which leases an index revises, and how often (art. 17-1 I, 25-12)", () => {
  const revision = (over: Partial<Parameters<typeof indexRevisionVerdict>[0]> = {}) =>
    indexRevisionVerdict({
      lease_type: "UNFURNISHED",
      index_type: "IRL",
      effective_date: "2025-03-01",
      last_index_revision_on: null,
      ...over,
    });

  it("the IRL, once a year: a year after the last revision to the day, not the day before", () => {
    expect(revision()).toEqual({
      rule: "INDEX_REVISION_ALLOWED",
      status: "PASS",
      message: `An IRL revision, at most once a year (${ART_17_1})`,
      legal_reference: ART_17_1,
      details: {},
    });
    expect(revision({ last_index_revision_on: "2024-03-01" }).status).toBe("PASS");
    expect(revision({ last_index_revision_on: "2024-03-02" })).toEqual({
      rule: "INDEX_REVISION_ALLOWED",
      status: "FAIL",
      message: `The rent is revised at most once a year (${ART_17_1})`,
      legal_reference: ART_17_1,
      details: {
        last_index_revision_on: "2024-03-02",
        errors: [
          {
            field: "effective_date",
            message:
              "The last index revision took effect on 2024-03-02: the next one takes effect on 2025-03-02 at the earliest",
          },
        ],
      },
    });
  });

  it("only the IRL under loi 89-462, furnished leases as unfurnished ones", () => {
    for (const lease_type of ["UNFURNISHED", "FURNISHED", "STUDENT"] as const)
      expect(revision({ lease_type, index_type: "ILC" })).toEqual({
        rule: "INDEX_REVISION_ALLOWED",
        status: "FAIL",
        message: `A lease under loi n° 89-462 is revised on the IRL only (${ART_17_1})`,
        legal_reference: ART_17_1,
        details: { errors: [{ field: "index.type", message: "ILC is not the IRL" }] },
      });
  });

  it("never a bail mobilité (art. 25-12); outside loi 89-462 not this law's rule", () => {
    expect(revision({ lease_type: "MOBILITY" })).toEqual({
      rule: "INDEX_REVISION_ALLOWED",
      status: "FAIL",
      message: `The rent of a bail mobilité is not revised on an index (${LAW}, art. 25-12: art. 17-1 does not apply)`,
      legal_reference: `${LAW}, art. 25-12`,
      details: { errors: [{ field: "reason", message: "No index revision on a MOBILITY lease" }] },
    });
    expect(revision({ lease_type: "COMMERCIAL", index_type: "ILC" })).toEqual({
      rule: "INDEX_REVISION_ALLOWED",
      status: "NOT_APPLICABLE",
      message: "A COMMERCIAL lease is outside loi n° 89-462",
      legal_reference: LAW,
      details: {},
    });
  });
});

describe("rent freeze of housing classed F or G (art. 17-1 III, loi n° 2021-1104 art. 159)", () => {
  const FREEZE = `${LAW}, art. 17-1 III and 17-2 (loi n° 2021-1104, art. 159)`;
  const G = { energy_label: "G", valid_until: "2030-01-01" };
  const change = (new_rent: number, over: Partial<Parameters<typeof rentFreezeVerdict>[0]> = {}) =>
    rentFreezeVerdict({
      current_rent: 900,
      new_rent,
      effective_date: "2025-03-01",
      dpe: G,
      period_start: "2025-01-01",
      ...over,
    });
  const details = (new_rent: number, energy_label: string | null = "G") => ({
    current_rent: 900,
    new_rent,
    effective_date: "2025-03-01",
    period_start: "2025-01-01",
    energy_label,
  });

  it("an unchanged rent is no increase; a rise of one cent on G fails, naming the label and figures", () => {
    expect(change(900)).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "NOT_APPLICABLE",
      message: "Not a rent increase",
      legal_reference: FREEZE,
      details: details(900),
    });
    expect(change(850).status).toBe("NOT_APPLICABLE");
    expect(change(900.01)).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "FAIL",
      message: `The rent of housing classed G may not be increased (${LAW}, art. 17-1 III)`,
      legal_reference: FREEZE,
      details: {
        ...details(900.01),
        errors: [
          {
            field: "rent_amount",
            message:
              "Rent 900.01 is above the current 900.00 while the estate's DPE on 2025-03-01 is G (valid until 2030-01-01)",
          },
        ],
      },
    });
  });

  it("freezes F as G; E may rise", () => {
    expect(change(950, { dpe: { energy_label: "F", valid_until: null } }).status).toBe("FAIL");
    expect(change(950, { dpe: { energy_label: "E", valid_until: null } })).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "PASS",
      message: "Housing classed E: the rent may rise",
      legal_reference: FREEZE,
      details: details(950, "E"),
    });
  });

  it("binds on the DPE's last valid day; the day after no DPE is valid: UNKNOWN", () => {
    expect(change(950, { dpe: { energy_label: "G", valid_until: "2025-03-01" } }).status).toBe("FAIL");
    expect(change(950, { dpe: { energy_label: "G", valid_until: "2025-02-28" } })).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "UNKNOWN",
      message: "No DPE is valid on 2025-03-01",
      legal_reference: FREEZE,
      details: details(950),
    });
    for (const dpe of [null, { energy_label: null, valid_until: null }])
      expect(change(950, { dpe })).toMatchObject({
        status: "UNKNOWN",
        message: "No DPE is valid on 2025-03-01: whether the rent could rise is unknown",
        details: { energy_label: null },
      });
  });

  it("applies to contracts concluded or renewed from 2022-08-24, not the day before", () => {
    expect(change(950, { period_start: "2022-08-24" }).status).toBe("FAIL");
    expect(change(950, { period_start: "2022-08-23" })).toMatchObject({
      status: "PASS",
      message:
        "The contract in force on 2025-03-01 was concluded or renewed on 2022-08-23, before 2022-08-24: the freeze applies from its renewal (loi n° 2021-1104 art. 159)",
    });
  });
});
