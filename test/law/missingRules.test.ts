import { describe, expect, it } from "vitest";
import { statementNoticeVerdict } from "../../src/law/charges.ts";
import { finalEnergyDecencyVerdict } from "../../src/law/finalEnergy.ts";
import { rentComplementVerdict } from "../../src/law/rentComplement.ts";
import { worksFundVerdict } from "../../src/law/syndic.ts";

/** Rules added by the second reading of the law, each at its boundary. */

describe("complément de loyer (ELAN art. 140 III B; loi n° 2021-1104)", () => {
  const facts = {
    complement: 50,
    base_rent: 960,
    increased_reference_rent: 960,
    justification: "Terrasse de 40 m² avec vue dégagée",
    energy_label: "D",
  };
  it("a justified complement on a base rent at the increased reference passes; a cent over fails", () => {
    expect(rentComplementVerdict(facts)).toMatchObject({ rule: "RENT_COMPLEMENT", status: "PASS" });
    const over = rentComplementVerdict({ ...facts, base_rent: 960.01 });
    expect(over.status).toBe("FAIL");
    expect(over.details.errors?.map((e) => e.field)).toEqual(["base_rent"]);
  });
  it("none for a dwelling classed F or G, nor unjustified; none asked: not applicable", () => {
    for (const energy_label of ["F", "G"])
      expect(rentComplementVerdict({ ...facts, energy_label }).details.errors?.[0].message).toMatch(
        /classed [FG].*2021-1104/,
      );
    expect(rentComplementVerdict({ ...facts, energy_label: "E" }).status).toBe("PASS");
    expect(rentComplementVerdict({ ...facts, justification: " " }).details.errors?.[0].field).toBe(
      "justification",
    );
    expect(rentComplementVerdict({ ...facts, complement: 0 }).status).toBe("NOT_APPLICABLE");
    expect(rentComplementVerdict({ ...facts, energy_label: null }).status).toBe("UNKNOWN");
  });
});

describe("450 kWh/m²/year of final energy (décret n° 2021-19)", () => {
  const judge = (final_energy: number | null, concluded_on = "2023-01-01", overseas = false) =>
    finalEnergyDecencyVerdict({ final_energy, concluded_on, overseas }).status;
  it("450 passes, above fails, for contracts from 2023-01-01 in metropolitan France", () => {
    expect(judge(450)).toBe("PASS");
    expect(judge(450.1)).toBe("FAIL");
    expect(judge(451, "2022-12-31")).toBe("NOT_APPLICABLE");
    expect(judge(451, "2023-01-01", true)).toBe("NOT_APPLICABLE");
    expect(judge(null)).toBe("UNKNOWN");
  });
});

describe("the works fund, at least 5 % of the budget (loi n° 65-557 art. 14-2-1 II)", () => {
  it("exactly 5 % passes, a cent less fails", () => {
    expect(worksFundVerdict({ budget: 20_000, works_fund: 1000 }).status).toBe("PASS");
    const short = worksFundVerdict({ budget: 20_000, works_fund: 999.99 });
    expect(short).toMatchObject({ status: "FAIL", legal_reference: expect.stringContaining("14-2-1") });
    expect(short.details.errors?.[0].message).toBe("At least 1000.00 (5 % of 20000.00)");
    expect(worksFundVerdict({ budget: 10_000.01, works_fund: 500 }).status).toBe("FAIL");
    expect(worksFundVerdict({ budget: 20_000, works_fund: 0, dispensed: true }).status).toBe(
      "NOT_APPLICABLE",
    );
  });
});

describe("the charges statement a month before the regularisation is payable (art. 23)", () => {
  it("payable a month after the statement passes, the day before fails", () => {
    expect(statementNoticeVerdict("2026-03-15", "2026-04-15").status).toBe("PASS");
    const early = statementNoticeVerdict("2026-03-15", "2026-04-14");
    expect(early.status).toBe("FAIL");
    expect(early.message).toMatch(/payable from 2026-04-15.*art\. 23/);
  });
});
