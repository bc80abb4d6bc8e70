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
import { depositVerdict } from "../../src/law/deposit.ts";
import { irlValuesVerdict, rentFreezeVerdict } from "../../src/law/rent.ts";

const dpe = (energy_label: string, valid_until = "2034-01-01", diagnosis_date = "2024-01-02") => ({
  energy_label,
  diagnosis_date,
  valid_until,
});

/** The IRL as shipped (migration 060), no publication dates: INSEE's calendar applies. */
const IRL = Object.entries({
  "2022-Q1": 133.93,
  "2022-Q2": 135.84,
  "2022-Q3": 136.27,
  "2022-Q4": 137.26,
  "2023-Q1": 138.61,
  "2023-Q2": 140.59,
  "2023-Q3": 141.03,
  "2023-Q4": 142.06,
  "2024-Q1": 143.46,
  "2024-Q2": 145.17,
  "2024-Q3": 144.51,
  "2024-Q4": 144.64,
  "2025-Q1": 145.47,
  "2025-Q2": 146.68,
  "2025-Q3": 145.77,
}).map(([quarter, value]) => ({
  quarter,
  value,
  published_on: null,
  source: "shipped" as const,
  note: null,
}));

const previous = (
  over: Partial<NonNullable<ComplianceFacts["previous_lease"]>> = {},
): NonNullable<ComplianceFacts["previous_lease"]> => ({
  id: "l0",
  rent_amount: 800,
  ended_on: "2024-12-31",
  irl_reference_quarter: null,
  last_index_revision_on: null,
  ...over,
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
    end_date: null,
    duration_months: 36,
    rent_amount: 800,
    deposit_amount: 800,
    rent_frequency: "MONTHLY",
    payment_terms: "TERME_A_ECHOIR",
    lessor: "NATURAL_PERSON",
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
  previous_lease: previous(),
  rent_changes: [],
  irl: IRL,
  reletting_claims: null,
  handover: { entry_report_signed: true, annexed: [] },
  ...over,
});

describe("deposit cap (loi 89-462 art. 22, 25-6, 25-13)", () => {
  it("passes exactly at one month of rent and fails one cent over, with the 422's own message", () => {
    expect(depositCapCheck(given({}, { deposit_amount: 800 })).status).toBe("PASS");
    const over = depositCapCheck(given({}, { deposit_amount: 800.01 }));
    expect(over).toMatchObject({ status: "FAIL", legal_reference: expect.stringContaining("art. 22") });
    const guard = depositVerdict({
      lease_type: "UNFURNISHED",
      rent_amount: 800,
      deposit_amount: 800.01,
      rent_frequency: null,
      payment_terms: null,
    });
    expect(guard).toMatchObject({ status: "FAIL", message: over.message });
  });
  it("caps a furnished deposit at two months and forbids any for a bail mobilité", () => {
    expect(depositCapCheck(given({}, { lease_type: "FURNISHED", deposit_amount: 1600 })).status).toBe("PASS");
    expect(depositCapCheck(given({}, { lease_type: "FURNISHED", deposit_amount: 1600.01 })).status).toBe(
      "FAIL",
    );
    expect(depositCapCheck(given({}, { lease_type: "MOBILITY", deposit_amount: 0 })).status).toBe("PASS");
    const mobility = depositCapCheck(given({}, { lease_type: "MOBILITY", deposit_amount: 0.01 }));
    expect(mobility).toMatchObject({ status: "FAIL", legal_reference: expect.stringContaining("25-13") });
    expect(depositCapCheck(given({}, { lease_type: "COMMERCIAL", deposit_amount: 9999 })).status).toBe(
      "NOT_APPLICABLE",
    );
  });
});

describe("IRL revision cap (art. 17-1)", () => {
  // 800 × 143.46 (2024-Q1) / 138.61 (2023-Q1) = 827.9921… → cap 827.99; the lease began 2023-07-01.
  const REFERENCE: Record<string, number> = { "2023-Q1": 138.61, "2023-Q2": 140.59 };
  const revision = (rent_amount: number, new_quarter = "2024-Q1", new_value = 143.46) => {
    const reference_quarter = `${Number(new_quarter.slice(0, 4)) - 1}${new_quarter.slice(4)}`;
    return {
      effective_date: "2024-07-01",
      rent_amount,
      previous_rent_amount: 800,
      reason: "INDEX_REVISION",
      index: {
        type: "IRL" as const,
        reference_quarter,
        reference_value: REFERENCE[reference_quarter] ?? 140,
        new_quarter,
        new_value,
      },
      dpe: dpe("D"),
    };
  };
  const revised = (...rent_changes: ReturnType<typeof revision>[]) =>
    irlRevisionCapCheck(given({ rent_changes }, { start_date: "2023-07-01" }));
  it("passes at the cap to the cent and fails one cent above, with the 422's figures", () => {
    expect(revised(revision(827.99)).status).toBe("PASS");
    const above = revised(revision(828));
    expect(above.status).toBe("FAIL");
    expect(JSON.stringify(above.details)).toContain("828.00 exceeds the cap 827.99");
  });
  it("says the 2022-Q3..2024-Q1 values carry the 3.5 % ceiling of loi 2022-1158 and uses them as published", () => {
    const capped = revised(revision(827.99));
    expect(capped.message).toContain("used as published");
    expect(capped.legal_reference).toContain("2022-1158");
    const later = revised(revision(826.06, "2024-Q2", 145.17));
    expect(later.status).toBe("PASS");
    expect(later.message).not.toContain("2022-1158");
  });
  it("fails a revision on values other than INSEE's, as the rent route refuses it", () => {
    const invented = revised(revision(830, "2024-Q1", 146));
    expect(invented.status).toBe("FAIL");
    expect(JSON.stringify(invented.details)).toContain("The IRL of 2024-Q1 is 143.46");
    expect(
      irlValuesVerdict(revision(830, "2024-Q1", 146).index, { reference_value: 138.61, new_value: 143.46 })
        .message,
    ).toContain("published by INSEE");
    // A quarter the data does not hold yet is taken as given.
    expect(revised(revision(830, "2031-Q1", 146)).status).toBe("PASS");
  });
  it("judges each revision against the one before: the worked example 1,000 € on 2023-Q2", () => {
    const chain = (second: { reference_quarter: string; reference_value: number }, rent_amount: number) => [
      { ...revision(1032.57, "2024-Q2", 145.17), previous_rent_amount: 1000 },
      {
        ...revision(rent_amount, "2025-Q2", 146.68),
        effective_date: "2025-07-01",
        previous_rent_amount: 1032.57,
        index: { type: "IRL" as const, ...second, new_quarter: "2025-Q2", new_value: 146.68 },
      },
    ];
    const start = { start_date: "2023-07-01", revision_reference_quarter: "2023-Q2" };
    const check = (changes: ReturnType<typeof chain>) =>
      irlRevisionCapCheck(given({ rent_changes: changes }, start));
    const from2024 = { reference_quarter: "2024-Q2", reference_value: 145.17 };
    expect(check(chain(from2024, 1043.31)).status).toBe("PASS");
    expect(check(chain(from2024, 1043.32)).status).toBe("FAIL");
    // Compounding again from the lease's first quarter: 1,077.29 € is refused.
    const fromStart = check(chain({ reference_quarter: "2023-Q2", reference_value: 140.59 }, 1077.29));
    expect(fromStart.status).toBe("FAIL");
    expect(JSON.stringify(fromStart.details)).toContain("before the current reference 2024-Q2");
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
  it("the 422 guard of the rent route refuses from 2022-08-24 on, exactly where the check fails", () => {
    const guard = (effective_date: string) =>
      rentFreezeVerdict({
        current_rent: 800,
        new_rent: 810,
        effective_date,
        dpe: dpe("G"),
        period_start: effective_date,
      });
    expect(guard("2022-08-23").status).toBe("PASS");
    expect(guard("2022-08-24").message).toMatch(/classed G.*17-1/);
    const failed = dpeRentFreezeCheck(given({ rent_changes: [increase("2022-08-24", "G")] }));
    expect(guard("2022-08-24")).toMatchObject({ status: "FAIL", message: failed.message });
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
  const relet = (
    rent_amount: number,
    prev: Partial<NonNullable<ComplianceFacts["previous_lease"]>> = {},
    over: Partial<ComplianceFacts> = {},
    start_date = "2025-01-01",
  ) =>
    relettingCapCheck(
      given(
        { previous_lease: previous({ irl_reference_quarter: "2024-Q1", ...prev }), ...over },
        {
          rent_amount,
          start_date,
        },
      ),
    );
  const none = { works_amount: 0, neighbourhood_rent: null };

  it("passes at the previous tenant's last rent whatever else is known", () => {
    expect(relet(800, { irl_reference_quarter: null }, { dpe_at_start: null }).status).toBe("PASS");
  });
  it("allows the IRL uplift to the cent: the latest index published on the start day over the previous reference", () => {
    // Published by 2025-01-01: 2024-Q3 (144.51; 2024-Q4 comes on 2025-01-15). 800 × 144.51 / 143.46 = 805.855… → 805.85
    const at = relet(805.85);
    expect(at).toMatchObject({
      status: "PASS",
      details: { max_rent: "805.85", irl_uplift: { new: { quarter: "2024-Q3" } } },
    });
    const above = relet(805.86, {}, { reletting_claims: none });
    expect(above).toMatchObject({ status: "FAIL", details: { max_rent: "805.85" } });
    // On 2025-01-15 the 2024-Q4 value (144.64) is out: 800 × 144.64 / 143.46 = 806.58
    expect(relet(806.58, { ended_on: "2025-01-14" }, {}, "2025-01-15").status).toBe("PASS");
    expect(relet(806.59, { ended_on: "2025-01-14" }, { reletting_claims: none }, "2025-01-15").status).toBe(
      "FAIL",
    );
  });
  it("gives no uplift when the previous lease was revised in the 12 months before the start", () => {
    expect(relet(800.01, { last_index_revision_on: "2024-01-01" }, { reletting_claims: none }).status).toBe(
      "FAIL",
    );
    expect(relet(805.85, { last_index_revision_on: "2023-12-31" }).status).toBe("PASS");
  });
  it("above the art. 3 cap with nothing stated is UNKNOWN, naming the facts that would decide", () => {
    const unknown = relet(805.86);
    expect(unknown.status).toBe("UNKNOWN");
    expect(unknown.message).toMatch(/works_amount.*neighbourhood_rent/);
    expect(relet(800.01, { irl_reference_quarter: null }).message).toContain("no IRL reference quarter");
  });
  it("works of at least half the last year's rent allow 15 % of their cost a year, to the cent", () => {
    // Threshold 6 × 800 = 4800.00; 4800 × 15 % / 12 = 60.00 a month on top of 805.85
    const works = (works_amount: number, rent: number) =>
      relet(rent, {}, { reletting_claims: { works_amount, neighbourhood_rent: null } }).status;
    expect(works(4800, 865.85)).toBe("PASS");
    expect(works(4800, 865.86)).toBe("FAIL");
    expect(works(4799.99, 805.86)).toBe("FAIL");
  });
  it("a manifestly under-valued rent may rise by half the gap to the neighbourhood's rent", () => {
    // (1000.00 - 805.85) / 2 = 97.075 → 97.07: cap 902.92
    const claims = { works_amount: null, neighbourhood_rent: 1000 };
    expect(relet(902.92, {}, { reletting_claims: claims }).status).toBe("PASS");
    const above = relet(902.93, {}, { reletting_claims: claims });
    expect(above).toMatchObject({ status: "FAIL", details: { max_rent: "902.92" } });
  });
  it("housing classed F or G gets neither the uplift nor an exception from 2022-08-24", () => {
    const g = { dpe_at_start: dpe("G") };
    const claims = { works_amount: 20000, neighbourhood_rent: 2000 };
    expect(relet(800.01, {}, { ...g, reletting_claims: claims })).toMatchObject({
      status: "FAIL",
      details: { max_rent: "800.00", energy_label: "G" },
    });
    // The day before: 800 × 135.84 (2022-Q2, out 2022-07-15) / 133.93 (2022-Q1) = 811.40
    const before = { irl_reference_quarter: "2022-Q1", ended_on: "2022-06-30" };
    expect(relet(811.4, before, g, "2022-08-23").status).toBe("PASS");
    expect(relet(800.01, before, g, "2022-08-24").status).toBe("FAIL");
    expect(relet(800.01, {}, { dpe_at_start: null }).status).toBe("UNKNOWN");
  });
  it("does not apply outside a high-demand zone, at a first letting or after 18 months of vacancy", () => {
    const regulation = { high_demand_zone: false, reference_rents: [], effective_from: null };
    expect(relettingCapCheck(given({ regulation }, { rent_amount: 900 })).status).toBe("NOT_APPLICABLE");
    expect(relettingCapCheck(given({ previous_lease: null }, { rent_amount: 900 })).status).toBe(
      "NOT_APPLICABLE",
    );
    expect(relet(900, { ended_on: "2023-06-30" }).status).toBe("NOT_APPLICABLE");
    expect(relet(900, { ended_on: "2023-07-01" }, { reletting_claims: none }).status).toBe("FAIL");
    expect(relettingCapCheck(given({ regulation: null })).status).toBe("UNKNOWN");
  });
  it("beyond the last recorded renewal (leases from 2026-08-01) any rent is UNKNOWN", () => {
    const revised = { last_index_revision_on: "2026-01-01" };
    const late = relet(
      800.01,
      { ...revised, ended_on: "2026-07-31" },
      { reletting_claims: none },
      "2026-08-01",
    );
    expect(late).toMatchObject({ status: "UNKNOWN", message: expect.stringContaining("2025-652") });
    const inTime = relet(
      800.01,
      { ...revised, ended_on: "2026-07-30" },
      { reletting_claims: none },
      "2026-07-31",
    );
    expect(inTime.status).toBe("FAIL");
    // A lapsed décret judges nothing, not even the same rent (no PASS on a rule that does not apply).
    expect(relet(800, { ...revised, ended_on: "2026-07-31" }, {}, "2026-08-01").status).toBe("UNKNOWN");
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
      ["FINAL_ENERGY_450", "PASS"],
      ["RENT_COMPLEMENT", "NOT_APPLICABLE"],
      ["FURNISHED_INVENTORY", "NOT_APPLICABLE"],
      ["HANDOVER_DOCUMENTS", "PASS"],
      // Advice, not law: no income on record is UNKNOWN and never counts in the status.
      ["INCOME_THREE_TIMES_RENT", "UNKNOWN"],
      ["GUARANTOR_EARNS_MORE", "NOT_APPLICABLE"],
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
