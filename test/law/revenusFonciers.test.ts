import { describe, expect, it } from "vitest";
import { flatManagementCosts, microFoncierVerdict } from "../../src/law/revenusFonciers.ts";

describe("revenus fonciers (CGI art. 31, 32)", () => {
  it("the micro-foncier is possible up to 15,000 € of gross rents, not a cent more (art. 32, 1)", () => {
    expect(microFoncierVerdict(15_000)).toMatchObject({ status: "PASS", legal_reference: "CGI, art. 32, 1" });
    expect(microFoncierVerdict(0).status).toBe("PASS");
    const over = microFoncierVerdict(15_000.01);
    expect(over.status).toBe("FAIL");
    expect(over.message).toContain("real regime");
  });

  it("line 222 is 20 € per dwelling", () => {
    expect(flatManagementCosts(0)).toBe(0);
    expect(flatManagementCosts(3)).toBe(60);
  });
});
