import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnnexCode,
  type AnnexFacts,
  type AttachedAnnex,
  annexCompliance,
  handoverDocumentsVerdict,
  validUntil,
} from "../../src/law/annexes.ts";

/** Mandatory annexes and their validity on the signing date (src/law/annexes.ts), at the boundaries. */

const SIGNING = "2026-11-26";
const annex = (
  code: AnnexCode,
  document_date: string | null,
  extra: Partial<AttachedAnnex> = {},
): AttachedAnnex => ({
  code,
  document_date,
  valid_until: null,
  negative: null,
  ...extra,
});
const base: AnnexFacts = {
  signing_date: SIGNING,
  lease_type: "UNFURNISHED",
  construction_date: "2015-01-01",
  installation_date: "2015-01-01",
  has_gas_installation: false,
  in_copropriete: false,
  attached: [
    annex("NOTICE_INFORMATION", null),
    annex("DPE", "2024-03-15", { valid_until: "2034-03-14" }),
    annex("ERP", "2026-06-01"),
  ],
};
const codesOf = (list: { code: string }[]) => list.map((m) => m.code);
const withAttached = (attached: AttachedAnnex[], extra: Partial<AnnexFacts> = {}) => ({
  ...base,
  ...extra,
  attached: [...base.attached.filter((a) => !attached.some((b) => b.code === a.code)), ...attached],
});

describe("mandatory annexes (loi n° 89-462 art. 3, 3-2, 3-3, 25-5)", () => {
  it("a complete unfurnished lease of a recent building is compliant", () => {
    expect(annexCompliance(base)).toMatchObject({ status: "COMPLIANT", missing: [], expired: [] });
  });
  it("each always-mandatory annex missing is named with its article", () => {
    const result = annexCompliance({ ...base, attached: [] });
    expect(codesOf(result.missing)).toEqual(["NOTICE_INFORMATION", "DPE", "ERP"]);
    expect(result.missing[2].legal_reference).toMatch(/art\. 3-3/);
  });
  it("the entry report and a furnished lease's inventory are due at the keys' handover, never missing at signing", () => {
    const unfurnished = annexCompliance(base);
    expect(unfurnished.status).toBe("COMPLIANT");
    expect(codesOf(unfurnished.due_at_handover)).toEqual(["ENTRY_CONDITION_REPORT"]);
    expect(unfurnished.due_at_handover[0].legal_reference).toMatch(/art\. 3-2/);
    const furnishedLease = annexCompliance({ ...base, lease_type: "FURNISHED" });
    expect(furnishedLease.status).toBe("COMPLIANT");
    expect(codesOf(furnishedLease.due_at_handover)).toEqual(["ENTRY_CONDITION_REPORT", "INVENTORY"]);
    expect(furnishedLease.due_at_handover[1].legal_reference).toMatch(/art\. 25-5/);
    const attached = annexCompliance(withAttached([annex("ENTRY_CONDITION_REPORT", SIGNING)]));
    expect(attached.due_at_handover).toEqual([]);
    expect(attached.verdicts.find((v) => v.rule === "annex.ENTRY_CONDITION_REPORT")?.status).toBe("PASS");
    expect(annexCompliance({ ...base, lease_type: "COMMERCIAL", attached: [] }).status).toBe("COMPLIANT");
  });
  it("a CREP for a building built before 1949-01-01, not on that day", () => {
    expect(codesOf(annexCompliance({ ...base, construction_date: "1948-12-31" }).missing)).toEqual(["CREP"]);
    expect(annexCompliance({ ...base, construction_date: "1949-01-01" }).status).toBe("COMPLIANT");
  });
  it("the asbestos file (DAPP) is optional whatever the permit date: art. 3-3 3° has no décret", () => {
    for (const construction_date of ["1997-06-30", "1997-07-01", null]) {
      const result = annexCompliance({ ...base, construction_date: construction_date as string | null });
      expect(result.missing.map((m) => m.code)).not.toContain("ASBESTOS_DAPP");
      expect(result.verdicts.find((v) => v.rule === "annex.ASBESTOS_DAPP")).toMatchObject({
        status: "NOT_APPLICABLE",
        details: { optional: true },
      });
    }
    const attached = annexCompliance(withAttached([annex("ASBESTOS_DAPP", "2000-01-01")]));
    expect(attached.verdicts.find((v) => v.rule === "annex.ASBESTOS_DAPP")?.status).toBe("PASS");
  });
  it("electricity and gas reports for installations over 15 years old", () => {
    const old = { installation_date: "2011-11-25", has_gas_installation: true };
    expect(codesOf(annexCompliance({ ...base, ...old }).missing)).toEqual(["ELECTRICITY", "GAS"]);
    expect(annexCompliance({ ...base, ...old, installation_date: "2011-11-26" }).status).toBe("COMPLIANT");
    expect(codesOf(annexCompliance({ ...base, ...old, has_gas_installation: false }).missing)).toEqual([
      "ELECTRICITY",
    ]);
  });
  it("an unknown fact is UNKNOWN, not missing", () => {
    const result = annexCompliance({
      ...base,
      construction_date: null,
      installation_date: null,
      has_gas_installation: null,
      in_copropriete: null,
    });
    expect(result.status).toBe("COMPLIANT");
    expect(result.verdicts.filter((v) => v.status === "UNKNOWN").map((v) => v.details.code)).toEqual([
      "CREP",
      "ELECTRICITY",
      "GAS",
      "COPROPERTY_EXTRACTS",
    ]);
  });
});

describe("validity on the signing date", () => {
  it("ERP: made less than six months before the signing", () => {
    expect(annexCompliance(withAttached([annex("ERP", "2026-05-27")])).status).toBe("COMPLIANT");
    const expired = annexCompliance(withAttached([annex("ERP", "2026-05-26")]));
    expect(expired.expired).toEqual([expect.objectContaining({ code: "ERP", valid_until: "2026-11-25" })]);
  });
  it("electricity: 6 years", () => {
    const old = { installation_date: "1990-01-01" };
    expect(annexCompliance(withAttached([annex("ELECTRICITY", "2020-11-27")], old)).status).toBe("COMPLIANT");
    expect(codesOf(annexCompliance(withAttached([annex("ELECTRICITY", "2020-11-26")], old)).expired)).toEqual(
      ["ELECTRICITY"],
    );
  });
  it("CREP: 6 years, without limit when negative", () => {
    const lead = { construction_date: "1930-01-01" };
    const asbestos = annex("ASBESTOS_DAPP", "2000-01-01");
    const crep = (made: string, extra: Partial<AttachedAnnex> = {}) =>
      annexCompliance(withAttached([asbestos, annex("CREP", made, extra)], lead));
    expect(codesOf(crep("2020-11-26").expired)).toEqual(["CREP"]);
    expect(crep("2020-11-27").status).toBe("COMPLIANT");
    expect(crep("1990-01-01", { negative: true }).status).toBe("COMPLIANT");
  });
  it("DPE: 10 years, ended early for the ones made before the 2021 method (src/law/dpe.ts)", () => {
    expect(validUntil(annex("DPE", "2019-01-01", { valid_until: "2028-12-31" }))).toBe("2024-12-31");
    expect(
      codesOf(
        annexCompliance(withAttached([annex("DPE", "2019-01-01", { valid_until: "2028-12-31" })])).expired,
      ),
    ).toEqual(["DPE"]);
  });
  it("DPE with no stated end: valid until the day before its 10th anniversary", () => {
    expect(validUntil(annex("DPE", "2024-03-15", { valid_until: null }))).toBe("2034-03-14");
    expect(validUntil(annex("DPE", "2024-03-15", { valid_until: "2030-01-01" }))).toBe("2030-01-01");
  });
  it("an annex without its date cannot be judged valid", () => {
    expect(codesOf(annexCompliance(withAttached([annex("ERP", null)])).missing)).toEqual(["ERP"]);
  });
  it("property: a 6-year report is valid exactly while the signing is before its 6th anniversary", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4000 }), (days) => {
        const made = new Date(Date.UTC(2017, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);
        const until = validUntil(annex("ELECTRICITY", made)) as string;
        const anniversary = `${Number(made.slice(0, 4)) + 6}${made.slice(4)}`;
        return until < anniversary.replace("-02-29", "-02-28") || until === anniversary;
      }),
    );
  });
});

describe("the documents of the keys' handover in the lease's compliance (art. 3-2, 25-5)", () => {
  const facts = { lease_type: "FURNISHED" as const, entry_report: false, inventory: false };
  it("due before the lease is under way, a FAIL once ACTIVE without them, PASS with them", () => {
    for (const lease_status of ["DRAFT", "PENDING_SIGNATURE"])
      expect(handoverDocumentsVerdict({ ...facts, lease_status }).status).toBe("NOT_APPLICABLE");
    const active = handoverDocumentsVerdict({ ...facts, lease_status: "ACTIVE" });
    expect(active).toMatchObject({ rule: "HANDOVER_DOCUMENTS", status: "FAIL" });
    expect(active.details.missing).toEqual(["ENTRY_CONDITION_REPORT", "INVENTORY"]);
    expect(active.message).toMatch(/ACTIVE without ENTRY_CONDITION_REPORT and INVENTORY.*art\. 3-2, 25-5/);
    expect(
      handoverDocumentsVerdict({ ...facts, lease_status: "NOTICE", entry_report: true }).details.missing,
    ).toEqual(["INVENTORY"]);
    expect(
      handoverDocumentsVerdict({ ...facts, lease_status: "ACTIVE", entry_report: true, inventory: true })
        .status,
    ).toBe("PASS");
    // Unfurnished: the entry report only.
    expect(
      handoverDocumentsVerdict({
        ...facts,
        lease_type: "UNFURNISHED",
        lease_status: "ACTIVE",
        entry_report: true,
      }).status,
    ).toBe("PASS");
    expect(
      handoverDocumentsVerdict({ ...facts, lease_type: "COMMERCIAL", lease_status: "ACTIVE" }).status,
    ).toBe("NOT_APPLICABLE");
  });
});
