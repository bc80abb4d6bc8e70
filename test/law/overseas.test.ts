import { describe, expect, it } from "vitest";
import { decencyVerdict } from "../../src/law/dpe.ts";
import { isOverseas, overseasIrlShieldVerdict } from "../../src/law/overseas.ts";
import { rentFreezeVerdict } from "../../src/law/rent.ts";

/** Overseas departments (postal codes 971-974, 976): the IRL shield, the decency calendar, the freeze. */

describe("overseas departments", () => {
  it("are told by the postal code", () => {
    expect(["97100", "97200", "97300", "97400", "97600"].map(isOverseas)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["97500", "75011", "", null].map(isOverseas)).toEqual([false, false, false, false]);
  });

  it("IRL shield 2.5 % for 2022-Q3..2024-Q1 (loi n° 2022-1158 art. 12): +2.5 % passes, a cent more fails", () => {
    const shield = (new_rent: number, new_quarter = "2023-Q2") =>
      overseasIrlShieldVerdict({ current_rent: 1000, new_rent, new_quarter });
    expect(shield(1025)).toMatchObject({
      rule: "IRL_OVERSEAS_SHIELD",
      status: "PASS",
      details: { max_rent: "1025.00" },
    });
    expect(shield(1025.01).status).toBe("FAIL");
    expect(shield(1025.01).legal_reference).toMatch(/2022-1158.*art\. 12/);
    expect(shield(1030, "2022-Q2").status).toBe("NOT_APPLICABLE");
    expect(shield(1030, "2024-Q2").status).toBe("NOT_APPLICABLE");
    expect(shield(1025, "2022-Q3").status).toBe("PASS");
    expect(shield(1025.01, "2024-Q1").status).toBe("FAIL");
  });

  it("decency: G not decent from 2028-01-01, F from 2031-01-01, for contracts from then (loi n° 2021-1104 art. 160)", () => {
    const lease = (start_date: string) => ({
      lease_type: "UNFURNISHED" as const,
      start_date,
      end_date: null,
      duration_months: null,
      status: "ACTIVE",
    });
    const judge = (start: string, label: string, overseas = true) =>
      decencyVerdict({ lease: lease(start), on: start, dpe: { energy_label: label }, overseas }).status;
    expect(judge("2027-12-31", "G")).toBe("PASS");
    expect(judge("2028-01-01", "G")).toBe("FAIL");
    expect(judge("2030-12-31", "F")).toBe("PASS");
    expect(judge("2031-01-01", "F")).toBe("FAIL");
    expect(judge("2034-01-01", "E")).toBe("PASS");
    // Metropolitan France keeps its calendar.
    expect(judge("2025-01-01", "G", false)).toBe("FAIL");
  });

  it("the F/G freeze reaches contracts concluded or renewed from 2024-07-01 (loi n° 2021-1104 art. 159)", () => {
    const freeze = (period_start: string, overseas: boolean) =>
      rentFreezeVerdict({
        current_rent: 800,
        new_rent: 810,
        effective_date: "2025-01-01",
        dpe: { energy_label: "G", valid_until: null },
        period_start,
        overseas,
      }).status;
    expect(freeze("2024-06-30", true)).toBe("PASS");
    expect(freeze("2024-07-01", true)).toBe("FAIL");
    expect(freeze("2024-06-30", false)).toBe("FAIL");
  });
});
