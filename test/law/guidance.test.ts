import { describe, expect, it } from "vitest";
import { GUIDANCE_NOTE, guidanceVerdicts, type TenantIncome } from "../../src/law/guidance.ts";

/** SPEC's guidance on incomes, as advice (WARN with the figures), at its boundaries. */

const tenant = (
  role: TenantIncome["role"],
  monthly_income: number | null,
  other_income: number | null = null,
) => ({
  role,
  monthly_income,
  other_income,
});
const judge = (rent_amount: number, tenants: TenantIncome[]) => guidanceVerdicts({ rent_amount, tenants });

describe("income at least three times the rent (advice)", () => {
  it("exactly three times passes, a cent less warns, with the figures and the note", () => {
    expect(judge(800, [tenant("Primary", 2000), tenant("CoTenant", 300, 100)])[0]).toMatchObject({
      rule: "INCOME_THREE_TIMES_RENT",
      status: "PASS",
      details: { tenants_income: "2400.00", threshold: "2400.00", advice: true },
    });
    const short = judge(800, [tenant("Primary", 2399.99)])[0];
    expect(short.status).toBe("WARN");
    expect(short.message).toContain("2399.99");
    expect(short.message).toContain(GUIDANCE_NOTE);
    expect(short.message).toMatch(
      /no text imposes.*art\. 22-2.*décret n° 2015-1437.*art\. 22-1.*student or an apprentice/,
    );
    expect(short.legal_reference).toMatch(/art\. 22-1, 22-2; décret n° 2015-1437/);
  });
  it("a guarantor's income does not count; an unknown income is UNKNOWN, never a guess", () => {
    expect(judge(800, [tenant("Primary", 1000), tenant("Guarantor", 9000)])[0].status).toBe("WARN");
    expect(judge(800, [tenant("Primary", null)])[0].status).toBe("UNKNOWN");
    expect(judge(800, [])[0].status).toBe("UNKNOWN");
  });
});

describe("each guarantor earns more than the primary tenant (advice)", () => {
  it("a cent more passes, equal warns", () => {
    expect(judge(800, [tenant("Primary", 2000), tenant("Guarantor", 2000.01)])[1]).toMatchObject({
      rule: "GUARANTOR_EARNS_MORE",
      status: "PASS",
      details: { primary_income: "2000.00", guarantors_income: ["2000.01"] },
    });
    const equal = judge(800, [
      tenant("Primary", 2000),
      tenant("Guarantor", 3000),
      tenant("Guarantor", 1500, 500),
    ])[1];
    expect(equal.status).toBe("WARN");
    expect(equal.message).toMatch(
      /^1 guarantor\(s\) earn no more than the primary tenant \(2000\.00\): 3000\.00, 2000\.00/,
    );
  });
  it("no guarantor: not applicable; an unknown income: UNKNOWN", () => {
    expect(judge(800, [tenant("Primary", 2000)])[1].status).toBe("NOT_APPLICABLE");
    expect(judge(800, [tenant("Primary", 2000), tenant("Guarantor", null)])[1].status).toBe("UNKNOWN");
  });
});
