import { describe, expect, it } from "vitest";
import { dpeValidUntil } from "../../src/law/dpe.ts";
import {
  indexCapVerdict,
  indexChainVerdict,
  indexRevisionVerdict,
  irlCapped,
  irlValuesVerdict,
  quarterPlus,
  quartersBetween,
  reevaluationVerdict,
  rentFreezeVerdict,
  worksIncreaseVerdict,
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

  it("a DPE with no stated end is valid until the day before its 10th anniversary", () => {
    const noEnd = { energy_label: "F", valid_until: null, diagnosis_date: "2022-01-10" };
    expect(change(901, { dpe: noEnd, effective_date: "2032-01-09" }).status).toBe("FAIL");
    expect(change(901, { dpe: noEnd, effective_date: "2032-01-10" })).toMatchObject({
      status: "UNKNOWN",
      message: "No DPE is valid on 2032-01-10",
    });
    expect(dpeValidUntil("2022-01-10", null)).toBe("2032-01-09");
    expect(dpeValidUntil("2024-02-29", null)).toBe("2034-02-27");
    // Made before the 2021 method: its early end still applies.
    expect(dpeValidUntil("2019-01-01", null)).toBe("2024-12-31");
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

describe("the revision chain (art. 17-1 I; loi n° 2014-366)", () => {
  // A lease from 2023-07-01 naming 2023-Q2; its first revision 2023-Q2 -> 2024-Q2 was applied.
  const index = (reference_quarter: string, new_quarter: string) => ({
    type: "IRL",
    reference_quarter,
    reference_value: 145.17,
    new_quarter,
    new_value: 146.68,
  });
  const chain = (over: Partial<Parameters<typeof indexChainVerdict>[0]> = {}) =>
    indexChainVerdict({
      start_date: "2023-07-01",
      contract_quarter: "2023-Q2",
      current_quarter: "2024-Q2",
      index: index("2024-Q2", "2025-Q2"),
      effective_date: "2025-07-01",
      requested_on: null,
      ...over,
    });
  const failed = (v: ReturnType<typeof chain>) => ({ status: v.status, field: v.details.errors?.[0]?.field });

  it("counts quarters across years", () => {
    expect(quarterPlus("2024-Q3", 4)).toBe("2025-Q3");
    expect(quarterPlus("2024-Q1", -1)).toBe("2023-Q4");
    expect(quarterPlus("2024-Q4", 1)).toBe("2025-Q1");
    expect(quartersBetween("2023-Q2", "2025-Q2")).toBe(8);
    expect(quartersBetween("2025-Q2", "2024-Q3")).toBe(-3);
  });

  it("the reference is the last applied revision's quarter: an older one is refused", () => {
    expect(chain()).toMatchObject({ rule: "IRL_REVISION_CHAIN", status: "PASS", legal_reference: ART_17_1 });
    const older = chain({ index: index("2023-Q2", "2024-Q2") });
    expect(failed(older)).toEqual({ status: "FAIL", field: "index.reference_quarter" });
    expect(older.message).toContain(`the reference quarter is now 2024-Q2 (${ART_17_1})`);
    // A year not revised (lost): the next revision still spans one year, from a later reference.
    expect(chain({ index: index("2025-Q2", "2026-Q2"), effective_date: "2026-07-01" }).status).toBe("PASS");
  });

  it("the new quarter is 4 quarters after the reference, no more, no less", () => {
    expect(failed(chain({ index: index("2024-Q2", "2025-Q1") }))).toEqual({
      status: "FAIL",
      field: "index.new_quarter",
    });
    expect(failed(chain({ index: index("2024-Q2", "2025-Q3") }))).toEqual({
      status: "FAIL",
      field: "index.new_quarter",
    });
    expect(chain({ index: index("2024-Q2", "2025-Q3") }).details.errors?.[0]?.message).toContain(
      "expected 2025-Q2",
    );
  });

  it("takes effect on the year's anniversary at the earliest: the day before is refused", () => {
    const first = { current_quarter: "2023-Q2", index: index("2023-Q2", "2024-Q2") };
    expect(chain({ ...first, effective_date: "2024-07-01" }).status).toBe("PASS");
    const early = chain({ ...first, effective_date: "2024-06-30" });
    expect(failed(early)).toEqual({ status: "FAIL", field: "effective_date" });
    expect(early.message).toContain("year 1 of the contract takes effect on its anniversary 2024-07-01");
    expect(failed(chain({ effective_date: "2025-06-30" }))).toEqual({
      status: "FAIL",
      field: "effective_date",
    });
    // No contract quarter: the first anniversary at least.
    expect(
      failed(chain({ contract_quarter: null, current_quarter: null, effective_date: "2024-06-30" })),
    ).toEqual({
      status: "FAIL",
      field: "effective_date",
    });
  });

  it("never before the lessor's request (no retroactivity, loi n° 2014-366)", () => {
    expect(chain({ requested_on: "2025-09-15", effective_date: "2025-09-15" }).status).toBe("PASS");
    const before = chain({ requested_on: "2025-09-15", effective_date: "2025-09-14" });
    expect(failed(before)).toEqual({ status: "FAIL", field: "effective_date" });
    expect(before.legal_reference).toBe(`${ART_17_1}; loi n° 2014-366 du 24 mars 2014, art. 6`);
  });

  it("a request more than one year after the anniversary forfeits that year", () => {
    // Anniversary 2025-07-01: asked on 2026-07-01 is within the year, 2026-07-02 is not.
    expect(chain({ requested_on: "2026-07-01", effective_date: "2026-07-01" }).status).toBe("PASS");
    const late = chain({ requested_on: "2026-07-02", effective_date: "2026-07-02" });
    expect(failed(late)).toEqual({ status: "FAIL", field: "requested_on" });
    expect(late.message).toContain("has renounced it for that year");
    expect(late.details).toMatchObject({ anniversary: "2025-07-01", last_request_day: "2026-07-01" });
    // Without a request date, the effective date is the request.
    expect(failed(chain({ effective_date: "2026-07-02" }))).toEqual({
      status: "FAIL",
      field: "effective_date",
    });
  });

  it("is not this rule's for another index", () => {
    expect(chain({ index: { ...index("2024-Q2", "2025-Q2"), type: "ICC" } }).status).toBe("NOT_APPLICABLE");
  });
});

describe("works increase (art. 17-1 II, III)", () => {
  const works = (over: Partial<Parameters<typeof worksIncreaseVerdict>[0]> = {}) =>
    worksIncreaseVerdict({ agreed_by_clause: true, works_completed: true, energy_label: "D", ...over });
  it("only by an express clause, after the works, never on F or G", () => {
    expect(works()).toMatchObject({
      rule: "WORKS_INCREASE",
      status: "PASS",
      legal_reference: `${LAW}, art. 17-1 II`,
    });
    expect(works({ agreed_by_clause: false }).details.errors?.[0]?.field).toBe("reason");
    expect(works({ works_completed: false }).details.errors?.[0]?.field).toBe("effective_date");
    expect(works({ energy_label: "F" })).toMatchObject({
      status: "FAIL",
      legal_reference: `${LAW}, art. 17-1 III`,
    });
    expect(works({ energy_label: "G" }).status).toBe("FAIL");
    expect(works({ energy_label: "E" }).status).toBe("PASS");
  });
});

describe("re-evaluation of a manifestly under-valued rent at renewal (art. 17-2)", () => {
  const reevaluate = (over: Partial<Parameters<typeof reevaluationVerdict>[0]> = {}) =>
    reevaluationVerdict({
      lease_type: "UNFURNISHED",
      term: "2027-12-31",
      proposed_on: "2027-06-30",
      current_rent: 800,
      proposed_rent: 900,
      neighbourhood_rent: 1000,
      high_demand_zone: true,
      energy_label: "D",
      renewal_months: 36,
      decree_until: "2028-07-31",
      ...over,
    });
  const field = (v: ReturnType<typeof reevaluate>) => v.details.errors?.[0]?.field;
  it("proposed at least six months before the term: the day before the anniversary-equivalent", () => {
    expect(reevaluate().status).toBe("PASS");
    expect(field(reevaluate({ proposed_on: "2027-07-01" }))).toBe("proposed_on");
  });
  it("in a high-demand zone half the difference, to the cent; elsewhere the neighbourhood's rent", () => {
    expect(reevaluate().details.max_rent).toBe("900.00");
    expect(field(reevaluate({ proposed_rent: 900.01 }))).toBe("rent_amount");
    expect(reevaluate({ high_demand_zone: false, proposed_rent: 1000 })).toMatchObject({
      status: "PASS",
      legal_reference: `${LAW}, art. 17-2`,
    });
    expect(field(reevaluate({ high_demand_zone: false, proposed_rent: 1000.01 }))).toBe("rent_amount");
    // 800.01 to 1000: half of 199.99 rounded down.
    expect(reevaluate({ current_rent: 800.01, proposed_rent: 850 }).details.max_rent).toBe("900.00");
  });
  it("only an under-valued rent; never on F or G from 2022-08-24; another lease type is not 17-2's", () => {
    expect(field(reevaluate({ neighbourhood_rent: 800 }))).toBe("neighbourhood_rent");
    expect(reevaluate({ energy_label: "G" })).toMatchObject({
      status: "FAIL",
      legal_reference: expect.stringContaining("2021-1104"),
    });
    // Renewed 2022-08-23, before the freeze: judged on the figures.
    expect(reevaluate({ energy_label: "F", term: "2022-08-22", proposed_on: "2022-02-22" }).status).toBe(
      "PASS",
    );
    expect(reevaluate({ energy_label: "F", term: "2022-08-23", proposed_on: "2022-02-23" }).status).toBe(
      "FAIL",
    );
    expect(reevaluate({ lease_type: "FURNISHED" }).status).toBe("NOT_APPLICABLE");
  });
  it("by thirds up to 10 % on a renewal under six years, by sixths above or on six years", () => {
    expect(reevaluate({ proposed_rent: 880 }).details.steps).toEqual(["826.66", "853.33", "880.00"]);
    expect(reevaluate({ proposed_rent: 880.01 }).details.steps).toHaveLength(6);
    expect(reevaluate().details.steps).toEqual(["816.66", "833.33", "850.00", "866.66", "883.33", "900.00"]);
    expect(reevaluate({ proposed_rent: 850, renewal_months: 72 }).details.steps).toHaveLength(6);
    expect(reevaluate({ proposed_rent: 850, renewal_months: 71 }).details.steps).toHaveLength(3);
  });
  it("in a high-demand zone, past the décret's last renewal: UNKNOWN", () => {
    expect(reevaluate({ decree_until: "2027-12-31" }).status).toBe("UNKNOWN");
    // The neighbourhood's rent still caps it.
    expect(reevaluate({ decree_until: "2027-12-31", proposed_rent: 1000.01 }).status).toBe("FAIL");
    expect(reevaluate({ decree_until: "2028-01-01" }).status).toBe("PASS");
  });
});
