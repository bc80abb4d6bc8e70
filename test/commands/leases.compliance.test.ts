import { describe, expect, it } from "vitest";
import {
  type ComplianceFacts,
  decencyCalendarCheck,
  depositCapCheck,
  dpeRentFreezeCheck,
  dpeValidAtStartCheck,
  evaluateCompliance,
  irlRevisionCapCheck,
  overallStatus,
  relettingCapCheck,
  rentControlCheck,
} from "../../src/commands/leases/compliance.ts";
import { checkDepositCap } from "../../src/commands/leases/rules.ts";

const dpe = (energy_label: string, valid_until = "2034-01-01", diagnosis_date = "2024-01-02") => ({
  energy_label,
  diagnosis_date,
  valid_until,
});

/** Given a lease with these facts (defaults: a compliant unfurnished lease of 800 €). */
const given = (
  over: Partial<ComplianceFacts> = {},
  lease: Partial<ComplianceFacts["lease"]> = {},
): ComplianceFacts => ({
  lease: {
    id: "l1",
    lease_type: "UNFURNISHED",
    status: "ACTIVE",
    start_date: "2025-01-01",
    rent_amount: 800,
    deposit_amount: 800,
    ...lease,
  },
  on: "2025-06-01",
  estate: { area: 40, rooms: 2, construction_year: 1980 },
  dpe_at_start: dpe("D"),
  latest_dpe_before_start: dpe("D"),
  dpe_on: dpe("D"),
  regulation: {
    high_demand_zone: true,
    reference_rents: [
      {
        rooms: 2,
        construction_period: "1971_1990",
        furnished: false,
        reference: 20,
        increased_reference: 24,
      },
    ],
    effective_from: null,
  },
  previous_lease: { id: "l0", rent_amount: 800, ended_on: "2024-12-31" },
  rent_changes: [],
  ...over,
});

describe("deposit cap (loi 89-462 art. 22, 25-6, 25-13)", () => {
  it("passes exactly at one month of rent and fails one cent over, with the 422's own message", () => {
    expect(depositCapCheck(given({}, { deposit_amount: 800 })).status).toBe("PASS");
    const over = depositCapCheck(given({}, { deposit_amount: 800.01 }));
    expect(over).toMatchObject({ status: "FAIL", legal_reference: expect.stringContaining("art. 22") });
    expect(() =>
      checkDepositCap({ lease_type: "UNFURNISHED", rent_amount: 800, deposit_amount: 800.01 }),
    ).toThrow(over.message);
  });
  it("caps a furnished deposit at two months and forbids any for a bail mobilité", () => {
    expect(depositCapCheck(given({}, { lease_type: "FURNISHED", deposit_amount: 1600 })).status).toBe("PASS");
    expect(depositCapCheck(given({}, { lease_type: "FURNISHED", deposit_amount: 1600.01 })).status).toBe(
      "FAIL",
    );
    const mobility = depositCapCheck(given({}, { lease_type: "MOBILITY", deposit_amount: 0.01 }));
    expect(mobility).toMatchObject({ status: "FAIL", legal_reference: expect.stringContaining("25-13") });
    expect(depositCapCheck(given({}, { lease_type: "COMMERCIAL", deposit_amount: 9999 })).status).toBe(
      "NOT_APPLICABLE",
    );
  });
});

describe("IRL revision cap (art. 17-1)", () => {
  // 800 × 145.47 / 140.59 = 827.7686… → cap 827.76
  const revision = (rent_amount: number, new_quarter = "2024-Q1") => ({
    effective_date: "2025-01-01",
    rent_amount,
    previous_rent_amount: 800,
    reason: "INDEX_REVISION",
    index: {
      type: "IRL" as const,
      reference_quarter: "2023-Q1",
      reference_value: 140.59,
      new_quarter,
      new_value: 145.47,
    },
    dpe: dpe("D"),
  });
  it("passes at the cap to the cent and fails one cent above", () => {
    const at = irlRevisionCapCheck(given({ rent_changes: [revision(827.76)] }));
    expect(at.status).toBe("PASS");
    const above = irlRevisionCapCheck(given({ rent_changes: [revision(827.77)] }));
    expect(above.status).toBe("FAIL");
    expect(JSON.stringify(above.details)).toContain("827.76");
  });
  it("says the 2022-Q3..2024-Q1 values carry the 3.5 % ceiling of loi 2022-1158", () => {
    expect(irlRevisionCapCheck(given({ rent_changes: [revision(827.76)] })).message).toContain("2022-1158");
    expect(irlRevisionCapCheck(given({ rent_changes: [revision(827.76, "2024-Q2")] })).message).not.toContain(
      "2022-1158",
    );
  });
  it("is not applicable without any index revision", () => {
    expect(irlRevisionCapCheck(given()).status).toBe("NOT_APPLICABLE");
  });
});

describe("F/G rent freeze (art. 17-1 as amended, from 2022-08-24)", () => {
  const increase = (effective_date: string, label: string | null) => ({
    effective_date,
    rent_amount: 810,
    previous_rent_amount: 800,
    reason: "AGREEMENT",
    index: null,
    dpe: label ? dpe(label) : null,
  });
  it("fails an increase on an F or G estate on and after 2022-08-24, not the day before", () => {
    expect(dpeRentFreezeCheck(given({ rent_changes: [increase("2022-08-24", "G")] })).status).toBe("FAIL");
    expect(dpeRentFreezeCheck(given({ rent_changes: [increase("2023-01-01", "F")] })).status).toBe("FAIL");
    expect(dpeRentFreezeCheck(given({ rent_changes: [increase("2022-08-23", "G")] })).status).toBe(
      "NOT_APPLICABLE",
    );
    expect(dpeRentFreezeCheck(given({ rent_changes: [increase("2023-01-01", "E")] })).status).toBe("PASS");
  });
  it("fails a new letting above the previous tenant's rent on a G estate; UNKNOWN without a DPE", () => {
    const relet = given({ dpe_at_start: dpe("G") }, { rent_amount: 850 });
    expect(dpeRentFreezeCheck(relet).status).toBe("FAIL");
    expect(dpeRentFreezeCheck(given({ rent_changes: [increase("2023-01-01", null)] })).status).toBe(
      "UNKNOWN",
    );
  });
});

describe("rent control (loi ELAN art. 140)", () => {
  it("passes at the increased reference rent × area and fails one cent above", () => {
    // 24 €/m² × 40 m² = 960.00
    expect(rentControlCheck(given({}, { rent_amount: 960 })).status).toBe("PASS");
    const above = rentControlCheck(given({}, { rent_amount: 960.01 }));
    expect(above).toMatchObject({ status: "FAIL", details: { max_rent: "960.00", increased_reference: 24 } });
  });
  it("is UNKNOWN without reference rents, or without the dwelling's line", () => {
    expect(rentControlCheck(given({ regulation: null })).status).toBe("UNKNOWN");
    const noLine = given({ estate: { area: 40, rooms: 3, construction_year: 1980 } });
    expect(rentControlCheck(noLine).status).toBe("UNKNOWN");
    expect(
      rentControlCheck(given({ estate: { area: 40, rooms: null, construction_year: 1980 } })).message,
    ).toContain("number_of_room");
  });
});

describe("re-letting cap in a high-demand zone (décret 2017-1198)", () => {
  it("passes at the previous rent and fails one cent above", () => {
    expect(relettingCapCheck(given({}, { rent_amount: 800 })).status).toBe("PASS");
    expect(relettingCapCheck(given({}, { rent_amount: 800.01 })).status).toBe("FAIL");
  });
  it("does not apply outside a high-demand zone, at a first letting or after 18 months of vacancy", () => {
    const regulation = { high_demand_zone: false, reference_rents: [], effective_from: null };
    expect(relettingCapCheck(given({ regulation }, { rent_amount: 900 })).status).toBe("NOT_APPLICABLE");
    expect(relettingCapCheck(given({ previous_lease: null }, { rent_amount: 900 })).status).toBe(
      "NOT_APPLICABLE",
    );
    const vacant = given({ previous_lease: { id: "l0", rent_amount: 800, ended_on: "2023-06-30" } });
    expect(relettingCapCheck({ ...vacant, lease: { ...vacant.lease, rent_amount: 900 } }).status).toBe(
      "NOT_APPLICABLE",
    );
    const notYet = given({ previous_lease: { id: "l0", rent_amount: 800, ended_on: "2023-07-01" } });
    expect(relettingCapCheck({ ...notYet, lease: { ...notYet.lease, rent_amount: 900 } }).status).toBe(
      "FAIL",
    );
    expect(relettingCapCheck(given({ regulation: null })).status).toBe("UNKNOWN");
  });
});

describe("DPE present and valid at the lease start", () => {
  it("fails when the DPE was valid until the day before the start; passes when valid on it", () => {
    const expired = dpe("D", "2024-12-31");
    const failed = dpeValidAtStartCheck(given({ dpe_at_start: null, latest_dpe_before_start: expired }));
    expect(failed).toMatchObject({ status: "FAIL", details: { dpe: { valid_until: "2024-12-31" } } });
    const onTheDay = dpe("D", "2025-01-01");
    expect(dpeValidAtStartCheck(given({ dpe_at_start: onTheDay })).status).toBe("PASS");
  });
  it("is UNKNOWN when no DPE is recorded at all", () => {
    expect(dpeValidAtStartCheck(given({ dpe_at_start: null, latest_dpe_before_start: null })).status).toBe(
      "UNKNOWN",
    );
  });
});

describe("decency calendar (G 2025, F 2028, E 2034)", () => {
  const on = (date: string, label: string) =>
    decencyCalendarCheck(given({ on: date, dpe_on: dpe(label) })).status;
  it("a G estate passes on 2024-12-31 and fails on 2025-01-01", () => {
    expect(on("2024-12-31", "G")).toBe("PASS");
    expect(on("2025-01-01", "G")).toBe("FAIL");
  });
  it("F from 2028-01-01, E from 2034-01-01, D never", () => {
    expect(on("2027-12-31", "F")).toBe("PASS");
    expect(on("2028-01-01", "F")).toBe("FAIL");
    expect(on("2033-12-31", "E")).toBe("PASS");
    expect(on("2034-01-01", "E")).toBe("FAIL");
    expect(on("2040-01-01", "D")).toBe("PASS");
    expect(decencyCalendarCheck(given({ dpe_on: null })).status).toBe("UNKNOWN");
  });
});

describe("overall status", () => {
  it("COMPLIANT when every check passes or does not apply", () => {
    const result = evaluateCompliance(given(), "2025-06-01T10:00:00.000Z");
    expect(result.checks.map((c) => [c.rule, c.status])).toEqual([
      ["DEPOSIT_CAP", "PASS"],
      ["IRL_REVISION_CAP", "NOT_APPLICABLE"],
      ["DPE_F_G_RENT_FREEZE", "NOT_APPLICABLE"],
      ["RENT_CONTROL", "PASS"],
      ["RELETTING_CAP", "PASS"],
      ["DPE_VALID_AT_START", "PASS"],
      ["DPE_DECENCY_CALENDAR", "PASS"],
    ]);
    expect(result.status).toBe("COMPLIANT");
    for (const c of result.checks) expect(c.legal_reference).not.toBe("");
  });
  it("NON_COMPLIANT on any FAIL even with UNKNOWNs; UNKNOWN when only data is missing", () => {
    const mixed = [{ status: "UNKNOWN" as const }, { status: "FAIL" as const }].map((c) => ({
      ...c,
      rule: "r",
      message: "",
      legal_reference: "",
      details: {},
    }));
    expect(overallStatus(mixed)).toBe("NON_COMPLIANT");
    expect(evaluateCompliance(given({ regulation: null }), "x").status).toBe("UNKNOWN");
  });
});
