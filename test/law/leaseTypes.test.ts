import { describe, expect, it } from "vitest";
import { depositVerdict } from "../../src/law/deposit.ts";
import {
  chargeSettlementOf,
  contractPeriodStarts,
  endsAtTerm,
  firstTermMonths,
  furnished,
  LEASE_REGIMES,
  LEASE_TYPES,
  type LeaseType,
  mobilityDurationVerdict,
  mobilityMotiveVerdict,
  nextPeriodStartFrom,
  periodStartOn,
  renewalMonths,
  underLoi89,
} from "../../src/law/leaseTypes.ts";
import { DEFAULT_NOTICE, noticeVerdict } from "../../src/law/notice.ts";
import { indexRevisionVerdict } from "../../src/law/rent.ts";

/** Lease types and their terms (loi n° 89-462 art. 10, 25-7, 25-12 to 25-18). */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const RESIDENTIAL: LeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY", "STUDENT"];
const lease = (
  lease_type: LeaseType,
  over: { end_date?: string | null; duration_months?: number | null } = {},
) => ({
  lease_type,
  start_date: "2024-12-31",
  end_date: null,
  duration_months: null,
  ...over,
});

describe("the catalogue says what the rules do", () => {
  it("names each type once, residential ones under loi 89-462, furnished ones furnished", () => {
    expect(Object.keys(LEASE_REGIMES).sort()).toEqual([...LEASE_TYPES].sort());
    for (const type of LEASE_TYPES) {
      const regime = LEASE_REGIMES[type];
      expect(regime.code).toBe(type);
      expect(regime.under_loi_89_462, type).toBe(RESIDENTIAL.includes(type));
      expect(underLoi89(type), type).toBe(RESIDENTIAL.includes(type));
      expect(furnished(type), type).toBe(["FURNISHED", "MOBILITY", "STUDENT"].includes(type));
      if (regime.under_loi_89_462) {
        expect(regime.law, type).toMatch(/^loi n° 89-462 du 6 juillet 1989, titre Ier/);
        expect(regime.mandatory_mentions.length, type).toBeGreaterThan(0);
        expect(regime.mandatory_annexes.length, type).toBeGreaterThan(0);
        for (const ref of [regime.duration.legal_reference, regime.deposit.legal_reference])
          expect(ref, type).toMatch(/^loi n° 89-462 du 6 juillet 1989, art\. /);
      }
    }
  });

  it("renewal: tacit for unfurnished (3 years) and furnished (1 year), none for student and mobility", () => {
    for (const type of RESIDENTIAL) {
      const { duration } = LEASE_REGIMES[type];
      expect(duration.renewal_months, type).toBe(renewalMonths(type, "NATURAL_PERSON"));
      expect(duration.renewal, type).toBe(endsAtTerm(type) ? "NONE" : "TACIT");
      expect(duration.default_months, type).toBe(firstTermMonths(lease(type)));
    }
  });

  it("the deposit cap in months is the one the deposit rule applies", () => {
    for (const type of RESIDENTIAL) {
      const months = LEASE_REGIMES[type].deposit.cap_months as number;
      const at = (deposit_amount: number) =>
        depositVerdict({
          lease_type: type,
          rent_amount: 1000,
          deposit_amount,
          rent_frequency: null,
          payment_terms: null,
        });
      expect(at(1000 * months + 0.01).status, type).toBe("FAIL");
      if (months > 0) expect(at(1000 * months).status, type).toBe("PASS");
      expect(at(1000 * months + 0.01).legal_reference, type).toBe(
        LEASE_REGIMES[type].deposit.legal_reference,
      );
    }
  });

  it("the lessee's notice in months is the one the notice rule counts", () => {
    for (const type of RESIDENTIAL) {
      const months = LEASE_REGIMES[type].notice.lessee.months as number;
      const end = noticeVerdict(lease(type, { duration_months: 36 }), "2025-01-15", DEFAULT_NOTICE).details
        .notice_end_date;
      expect(end, type).toBe(`2025-${String(1 + months).padStart(2, "0")}-15`);
    }
  });

  it("the index: the IRL at most once a year, none for a bail mobilité", () => {
    for (const type of RESIDENTIAL) {
      const { index } = LEASE_REGIMES[type].index_revision;
      const allowed = indexRevisionVerdict({
        lease_type: type,
        index_type: "IRL",
        effective_date: "2025-06-01",
        last_index_revision_on: null,
      }).status;
      expect(index, type).toBe(allowed === "PASS" ? "IRL" : "NONE");
      expect(LEASE_REGIMES[type].index_revision.at_most_once_a_year, type).toBe(true);
    }
  });
});

describe("leases outside loi 89-462 in the catalogue", () => {
  it("state every part of the regime, UNKNOWN where no text is confirmed, no mentions or annexes of loi 89-462", () => {
    for (const type of ["COMMERCIAL", "PROFESSIONAL", "PARKING"] as const) {
      const regime = LEASE_REGIMES[type];
      expect(regime.mandatory_mentions, type).toEqual([]);
      expect(regime.mandatory_annexes, type).toEqual([]);
      expect(regime.deposit, type).toMatchObject({ cap_months: "UNKNOWN", legal_reference: "UNKNOWN" });
      expect(regime.index_revision, type).toEqual({
        index: "UNKNOWN",
        at_most_once_a_year: "UNKNOWN",
        legal_reference: "UNKNOWN",
      });
      for (const part of [regime.duration, regime.notice.lessee, regime.notice.lessor])
        expect(typeof part.legal_reference, type).toBe("string");
      expect(regime.notice.lessor.months, type).not.toBeUndefined();
      expect(regime.duration.renewal, type).not.toBeUndefined();
    }
    expect(LEASE_REGIMES.PARKING.notice).toEqual({
      lessee: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
      lessor: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
    });
  });

  it("residential lessors: 6 months unfurnished, 3 furnished, no notice for student and mobility leases", () => {
    expect(LEASE_REGIMES.UNFURNISHED.notice.lessor.months).toBe(6);
    expect(LEASE_REGIMES.FURNISHED.notice.lessor.months).toBe(3);
    expect(LEASE_REGIMES.STUDENT.notice.lessor.months).toBeNull();
    expect(LEASE_REGIMES.MOBILITY.notice.lessor.months).toBeNull();
  });
});

describe("renewal and term", () => {
  it("renews unfurnished leases 3 years, 6 for a legal-person lessor; furnished 1 year; others never", () => {
    expect(renewalMonths("UNFURNISHED", "NATURAL_PERSON")).toBe(36);
    expect(renewalMonths("UNFURNISHED", "LEGAL_PERSON")).toBe(72);
    expect(renewalMonths("FURNISHED", "LEGAL_PERSON")).toBe(12);
    for (const type of ["MOBILITY", "STUDENT", "COMMERCIAL", "PROFESSIONAL", "PARKING"] as const)
      expect(renewalMonths(type, "NATURAL_PERSON"), type).toBeNull();
    expect(LEASE_TYPES.filter(endsAtTerm)).toEqual(["MOBILITY", "STUDENT"]);
  });

  it("the first term: the duration stated, else from the end date, else the law's default", () => {
    expect(firstTermMonths(lease("UNFURNISHED", { duration_months: 48, end_date: "2026-12-30" }))).toBe(48);
    expect(firstTermMonths(lease("UNFURNISHED", { end_date: "2026-12-30" }))).toBe(24);
    expect(firstTermMonths(lease("UNFURNISHED"))).toBe(36);
    expect(firstTermMonths(lease("UNFURNISHED"), "LEGAL_PERSON")).toBe(72);
    expect(firstTermMonths(lease("FURNISHED"), "LEGAL_PERSON")).toBe(12);
    expect(firstTermMonths(lease("MOBILITY"))).toBeNull();
    expect(firstTermMonths(lease("COMMERCIAL"))).toBe(108);
    expect(firstTermMonths(lease("PARKING"))).toBeNull();
  });

  it("lists the days a contract is concluded and renewed, up to a day included", () => {
    const unfurnished = lease("UNFURNISHED", { duration_months: 36 });
    expect(contractPeriodStarts(unfurnished, "2030-12-30")).toEqual(["2024-12-31", "2027-12-31"]);
    expect(contractPeriodStarts(unfurnished, "2030-12-31")).toEqual([
      "2024-12-31",
      "2027-12-31",
      "2030-12-31",
    ]);
    expect(contractPeriodStarts(unfurnished, "2030-12-31", "LEGAL_PERSON")).toEqual([
      "2024-12-31",
      "2027-12-31",
    ]);
    expect(contractPeriodStarts(lease("UNFURNISHED"), "2031-01-01", "LEGAL_PERSON")).toEqual([
      "2024-12-31",
      "2030-12-31",
    ]);
    expect(contractPeriodStarts(lease("STUDENT", { duration_months: 9 }), "2030-01-01")).toEqual([
      "2024-12-31",
    ]);
    expect(contractPeriodStarts(lease("PARKING"), "2030-01-01")).toEqual(["2024-12-31"]);
  });

  it("counts renewals back from an end date a renewal moved", () => {
    // Furnished from 2024-12-31, end date moved by two renewals to 2027-12-30.
    const renewed = lease("FURNISHED", { end_date: "2027-12-30" });
    expect(contractPeriodStarts(renewed, "2027-12-31")).toEqual([
      "2024-12-31",
      "2025-12-31",
      "2026-12-31",
      "2027-12-31",
    ]);
    expect(periodStartOn(renewed, "2026-12-30")).toBe("2025-12-31");
    expect(periodStartOn(renewed, "2026-12-31")).toBe("2026-12-31");
  });

  it("the next conclusion or renewal on or after a day; null when the lease is never renewed", () => {
    const unfurnished = lease("UNFURNISHED", { duration_months: 36 });
    expect(nextPeriodStartFrom(unfurnished, "2024-12-31")).toBe("2024-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2025-01-01")).toBe("2027-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2027-12-31")).toBe("2027-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2028-01-01")).toBe("2030-12-31");
    // The 3-year term stated, then 6-year renewals (art. 10).
    expect(nextPeriodStartFrom(unfurnished, "2028-01-01", "LEGAL_PERSON")).toBe("2033-12-31");
    expect(nextPeriodStartFrom(lease("MOBILITY", { duration_months: 10 }), "2025-01-01")).toBeNull();
    expect(nextPeriodStartFrom(lease("PARKING"), "2025-01-01")).toBeNull();
  });
});

describe("bail mobilité (art. 25-12 to 25-18)", () => {
  const ref = `${LAW}, art. 25-14`;
  const mobility = (over: { end_date?: string | null; duration_months?: number | null }) =>
    mobilityDurationVerdict({ ...lease("MOBILITY", over), start_date: "2025-01-15" });

  it("lasts 1 to 10 months by its duration", () => {
    for (const d of [1, 10]) expect(mobility({ duration_months: d }).status, `${d}`).toBe("PASS");
    for (const d of [0, 11])
      expect(mobility({ duration_months: d }), `${d}`).toEqual({
        rule: "MOBILITY_DURATION",
        status: "FAIL",
        message: `A bail mobilité lasts 1 to 10 months (${ref})`,
        legal_reference: ref,
        details: {
          start_date: "2025-01-15",
          end_date: null,
          duration_months: d,
          errors: [{ field: "duration_months", message: `${d} months is outside 1 to 10 months` }],
        },
      });
  });

  it("ends between the day before its 1-month and its 10-month anniversaries", () => {
    expect(mobility({ end_date: "2025-02-14" })).toEqual({
      rule: "MOBILITY_DURATION",
      status: "PASS",
      message: `The bail mobilité lasts 1 to 10 months (${ref})`,
      legal_reference: ref,
      details: { start_date: "2025-01-15", end_date: "2025-02-14", duration_months: null },
    });
    expect(mobility({ end_date: "2025-11-14" }).status).toBe("PASS");
    for (const end of ["2025-02-13", "2025-11-15"])
      expect(mobility({ end_date: end }).details.errors, end).toEqual([
        {
          field: "end_date",
          message: "A bail mobilité starting 2025-01-15 ends between 2025-02-14 and 2025-11-14",
        },
      ]);
    expect(
      mobility({ duration_months: 12, end_date: "2026-01-14" }).details.errors?.map((e) => e.field),
    ).toEqual(["duration_months", "end_date"]);
  });

  it("is UNKNOWN without duration nor end; other leases are not judged", () => {
    expect(mobility({})).toMatchObject({
      status: "UNKNOWN",
      message: "The lease states neither its duration nor its end",
    });
    expect(mobilityDurationVerdict(lease("FURNISHED", { duration_months: 40 }))).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "Not a bail mobilité",
    });
  });

  it("names its motive of mobility (art. 25-13)", () => {
    const mref = `${LAW}, art. 25-13`;
    expect(mobilityMotiveVerdict("MOBILITY", "stage")).toEqual({
      rule: "MOBILITY_MOTIVE",
      status: "PASS",
      message: "The bail mobilité names its motive: stage",
      legal_reference: mref,
      details: {},
    });
    for (const motive of [null, "  "])
      expect(mobilityMotiveVerdict("MOBILITY", motive)).toMatchObject({
        status: "FAIL",
        message: `A bail mobilité names the motive of mobility the lessee justifies (${mref})`,
        details: { errors: [{ field: "custom_fields.mobility_reason" }] },
      });
    expect(mobilityMotiveVerdict("FURNISHED", null).status).toBe("NOT_APPLICABLE");
  });

  it("charges: flat for a bail mobilité, flat or provisions furnished, provisions unfurnished", () => {
    expect(chargeSettlementOf("MOBILITY", null)).toBe("FLAT");
    expect(chargeSettlementOf("FURNISHED", "FLAT_RATE")).toBe("FLAT");
    expect(chargeSettlementOf("STUDENT", "FLAT_RATE")).toBe("FLAT");
    expect(chargeSettlementOf("FURNISHED", null)).toBe("PROVISION");
    expect(chargeSettlementOf("UNFURNISHED", "FLAT_RATE")).toBe("PROVISION");
  });
});
