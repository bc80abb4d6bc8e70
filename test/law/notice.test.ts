import { describe, expect, it } from "vitest";
import type { LeaseType } from "../../src/law/leaseTypes.ts";
import {
  DEFAULT_NOTICE,
  elderlyTenantVerdict,
  lessorNoticeVerdict,
  type NoticeFacts,
  noticeReasonVerdict,
  noticeVerdict,
  rentOwedUntilVerdict,
  victimSolidarityVerdict,
} from "../../src/law/notice.ts";

/** Notice periods (loi n° 89-462 art. 15 I, 25-8 I, 25-14, 25-15): each verdict cites its article. */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const terms = (
  lease_type: LeaseType,
  over: { end_date?: string | null; duration_months?: number | null } = {},
) => ({ lease_type, start_date: "2025-01-15", end_date: null, duration_months: 36, ...over });
const facts = (over: Partial<NoticeFacts>): NoticeFacts => ({ ...DEFAULT_NOTICE, ...over });
const ends = (end: string | null, law: string) => ({
  rule: "NOTICE_PERIOD",
  status: "PASS",
  message: end === null ? "The notice has no end date" : `The notice ends on ${end}`,
  legal_reference: law,
  details: { notice_end_date: end },
});

describe("a lessee's notice", () => {
  /** The legal end, the same asked for, and a day earlier refused with the period's article. */
  const periods = (lease_type: LeaseType, over: Partial<NoticeFacts>, legal: string, dayBefore: string) => {
    const t = terms(lease_type);
    const law = noticeVerdict(t, "2025-03-10", facts(over)).legal_reference;
    expect(noticeVerdict(t, "2025-03-10", facts(over))).toEqual(ends(legal, law));
    expect(noticeVerdict(t, "2025-03-10", facts({ ...over, requested_end: legal })).status).toBe("PASS");
    const early = noticeVerdict(t, "2025-03-10", facts({ ...over, requested_end: dayBefore }));
    expect(early.details.errors).toEqual([
      { field: "notice_end_date", message: `${dayBefore} is before ${legal}` },
    ]);
    return early;
  };

  it("unfurnished: 3 months (art. 15 I); 1 month reduced, in a high-demand zone or a listed case", () => {
    expect(periods("UNFURNISHED", {}, "2025-06-10", "2025-06-09")).toEqual({
      rule: "NOTICE_PERIOD",
      status: "FAIL",
      message: `The notice period is 3 month(s) from 2025-03-10 (${LAW}, art. 15 I): it ends 2025-06-10 at the earliest`,
      legal_reference: `${LAW}, art. 15 I`,
      details: { errors: [{ field: "notice_end_date", message: "2025-06-09 is before 2025-06-10" }] },
    });
    const reduced = `${LAW}, art. 15 I (reduced notice)`;
    expect(periods("UNFURNISHED", { reduced_notice: true }, "2025-04-10", "2025-04-09").legal_reference).toBe(
      reduced,
    );
    expect(
      periods("UNFURNISHED", { high_demand_zone: true }, "2025-04-10", "2025-04-09").legal_reference,
    ).toBe(reduced);
    expect(
      periods("UNFURNISHED", { high_demand_zone: false }, "2025-06-10", "2025-06-09").legal_reference,
    ).toBe(`${LAW}, art. 15 I`);
  });

  it("furnished or student: 1 month (art. 25-8 I); bail mobilité: 1 month (art. 25-15)", () => {
    for (const type of ["FURNISHED", "STUDENT"] as const)
      expect(periods(type, {}, "2025-04-10", "2025-04-09").legal_reference).toBe(`${LAW}, art. 25-8 I`);
    expect(periods("MOBILITY", {}, "2025-04-10", "2025-04-09").legal_reference).toBe(`${LAW}, art. 25-15`);
  });
});

describe("a lessor's notice", () => {
  const lessor = facts({ given_by: "LESSOR" });

  it("never on a student lease: it ends at its term (art. 25-7)", () => {
    expect(noticeVerdict(terms("STUDENT"), "2025-03-10", lessor)).toEqual({
      rule: "NOTICE_PERIOD",
      status: "FAIL",
      message: `The lessor cannot give notice on a student lease: it ends at its term (${LAW}, art. 25-7)`,
      legal_reference: `${LAW}, art. 25-7`,
      details: {
        errors: [
          { field: "given_by", message: "Only the lessee gives notice on a student lease (art. 25-8 I)" },
        ],
      },
    });
  });

  it("never on a bail mobilité (art. 25-14)", () => {
    expect(noticeVerdict(terms("MOBILITY"), "2025-03-10", lessor)).toEqual({
      rule: "NOTICE_PERIOD",
      status: "FAIL",
      message: `The lessor cannot give notice on a bail mobilité: it ends at its term (${LAW}, art. 25-14)`,
      legal_reference: `${LAW}, art. 25-14`,
      details: {
        errors: [
          { field: "given_by", message: "Only the lessee gives notice on a bail mobilité (art. 25-15)" },
        ],
      },
    });
  });

  it("furnished: received by the day before the anniversary-equivalent 3 months before (art. 25-8 I)", () => {
    // Term 2025-06-09, anniversary 2025-06-10: received 2025-03-09 in time, 2025-03-10 late.
    const furnished = terms("FURNISHED", { end_date: "2025-06-09" });
    expect(noticeVerdict(furnished, "2025-03-09", lessor)).toEqual(ends("2025-06-09", `${LAW}, art. 25-8 I`));
    expect(noticeVerdict(furnished, "2025-03-10", lessor)).toEqual({
      rule: "NOTICE_PERIOD",
      status: "FAIL",
      message: `A lessor's notice must reach the lessee at least 3 months before the term (${LAW}, art. 25-8 I)`,
      legal_reference: `${LAW}, art. 25-8 I`,
      details: {
        errors: [
          {
            field: "effective_date",
            message: "Received 2025-03-10: for the term 2025-06-09 it had to be received by 2025-03-09",
          },
        ],
      },
    });
  });

  it("unfurnished without end date: the first term it reaches 6 months ahead, the day before the anniversary", () => {
    // Terms end 2028-01-14, 2031-01-14 (start 2025-01-15, 36 months).
    const t = terms("UNFURNISHED");
    expect(noticeVerdict(t, "2027-07-14", lessor).details.notice_end_date).toBe("2028-01-14");
    expect(noticeVerdict(t, "2027-07-15", lessor).details.notice_end_date).toBe("2031-01-14");
  });

  it("unfurnished, term 2023-03-31: received 2022-09-30 in time, 2022-10-01 late (art. 15 I)", () => {
    const t = {
      lease_type: "UNFURNISHED" as const,
      start_date: "2020-04-01",
      end_date: "2023-03-31",
      duration_months: 36,
    };
    expect(noticeVerdict(t, "2022-09-30", lessor)).toEqual(ends("2023-03-31", `${LAW}, art. 15 I`));
    expect(noticeVerdict(t, "2022-10-01", lessor)).toMatchObject({
      status: "FAIL",
      message: `A lessor's notice must reach the lessee at least 6 months before the term (${LAW}, art. 15 I)`,
      details: { errors: [{ field: "effective_date", message: expect.stringContaining("by 2022-09-30") }] },
    });
    // A term at a month's end: 2023-02-28 needs the notice by 2022-08-31 (anniversary 2023-03-01).
    const feb = { ...t, start_date: "2020-03-01", end_date: "2023-02-28" };
    expect(noticeVerdict(feb, "2022-08-31", lessor).status).toBe("PASS");
    expect(noticeVerdict(feb, "2022-09-01", lessor).status).toBe("FAIL");
  });

  it("without end date nor duration the term is unknown", () => {
    expect(noticeVerdict(terms("UNFURNISHED", { duration_months: null }), "2025-03-10", lessor)).toEqual({
      rule: "NOTICE_PERIOD",
      status: "FAIL",
      message: `A lessor's notice takes effect at the lease's term (${LAW}, art. 15 I); the lease has neither end_date nor duration_months`,
      legal_reference: `${LAW}, art. 15 I`,
      details: { errors: [{ field: "given_by", message: "The lease's term is unknown" }] },
    });
  });
});

describe("notices outside loi n° 89-462", () => {
  it("parking: the client's date, which may be the day the notice is given but not before", () => {
    const parking = terms("PARKING");
    const outside = `A PARKING lease is outside ${LAW}`;
    expect(noticeVerdict(parking, "2025-03-10", facts({}))).toEqual(ends(null, outside));
    expect(noticeVerdict(parking, "2025-03-10", facts({ requested_end: "2025-03-10" }))).toEqual(
      ends("2025-03-10", outside),
    );
    expect(noticeVerdict(parking, "2025-03-10", facts({ requested_end: "2025-03-09" }))).toMatchObject({
      status: "FAIL",
      message: "The notice cannot end before it is given",
      legal_reference: "UNKNOWN",
      details: { errors: [{ field: "notice_end_date", message: "2025-03-09 is before 2025-03-10" }] },
    });
    expect(noticeVerdict(terms("COMMERCIAL"), "2025-03-10", facts({ given_by: "LESSOR" }))).toEqual(
      ends("2028-01-14", "code de commerce, art. L. 145-9"),
    );
  });

  it("professional: 6 months for the lessee at any time, for the lessor before the term (loi n° 86-1290 art. 57 A)", () => {
    const law = "loi n° 86-1290 du 23 décembre 1986, art. 57 A";
    // Start 2025-01-15, 72-month terms: the first ends 2031-01-14 (anniversary 2031-01-15).
    const professional = terms("PROFESSIONAL", { duration_months: 72 });
    expect(noticeVerdict(professional, "2025-03-10", facts({}))).toEqual(ends("2025-09-10", law));
    expect(
      noticeVerdict(professional, "2025-03-10", facts({ requested_end: "2025-09-09" })).details.errors,
    ).toEqual([{ field: "notice_end_date", message: "2025-09-09 is before 2025-09-10" }]);
    const lessor = facts({ given_by: "LESSOR" });
    expect(noticeVerdict(professional, "2030-07-14", lessor)).toEqual(ends("2031-01-14", law));
    expect(noticeVerdict(professional, "2030-07-15", lessor).details.notice_end_date).toBe("2037-01-14");
  });

  it("commercial: the lessee's notice ends a three-year period reached 6 months ahead (code de commerce art. L. 145-4)", () => {
    const law = "code de commerce, art. L. 145-4 al. 2";
    // Start 2025-01-15: three-year periods end 2028-01-14, 2031-01-14.
    const commercial = terms("COMMERCIAL", { duration_months: 108 });
    expect(noticeVerdict(commercial, "2027-07-14", facts({}))).toEqual(ends("2028-01-14", law));
    expect(noticeVerdict(commercial, "2027-07-15", facts({}))).toEqual(ends("2031-01-14", law));
    expect(noticeVerdict(commercial, "2025-03-10", facts({})).details.notice_end_date).toBe("2028-01-14");
    expect(
      noticeVerdict(commercial, "2027-07-15", facts({ requested_end: "2028-01-14" })).details.errors,
    ).toEqual([{ field: "notice_end_date", message: "2028-01-14 is before 2031-01-14" }]);
  });

  it("commercial, the lessor: 6 months before the term, past it for a civil quarter's last day (code de commerce art. L. 145-9)", () => {
    const law = "code de commerce, art. L. 145-9";
    const lessor = facts({ given_by: "LESSOR" });
    // Start 2025-01-15, 36 months: term 2028-01-14, in time until 2027-07-14.
    const commercial = terms("COMMERCIAL");
    expect(noticeVerdict(commercial, "2027-07-14", lessor)).toEqual(ends("2028-01-14", law));
    // Late for the term: tacit prolongation, the first quarter's end at least 6 months ahead.
    expect(noticeVerdict(commercial, "2027-07-15", lessor)).toEqual(ends("2028-03-31", law));
    expect(noticeVerdict(commercial, "2027-09-30", lessor)).toEqual(ends("2028-03-31", law));
    expect(noticeVerdict(commercial, "2027-10-01", lessor)).toEqual(ends("2028-06-30", law));
    const ended = terms("COMMERCIAL", { end_date: "2028-01-14" });
    expect(noticeVerdict(ended, "2027-07-14", lessor)).toEqual(ends("2028-01-14", law));
    expect(noticeVerdict(ended, "2027-07-15", lessor)).toEqual(ends("2028-03-31", law));
  });
});

describe("the reason of a notice (art. 15 I, 25-8 I)", () => {
  it("a lessor's notice under loi 89-462 needs a motive of the law", () => {
    const none = noticeReasonVerdict("UNFURNISHED", "LESSOR", null);
    expect(none.status).toBe("FAIL");
    expect(none.legal_reference).toBe("loi n° 89-462 du 6 juillet 1989, art. 15 I");
    expect(none.details.errors?.[0].field).toBe("reason");
    expect(noticeReasonVerdict("FURNISHED", "LESSOR", null).legal_reference).toMatch(/art\. 25-8 I$/);
    for (const motive of ["SALE", "REPOSSESSION", "LEGITIMATE_SERIOUS_REASON"] as const)
      expect(noticeReasonVerdict("UNFURNISHED", "LESSOR", motive).status).toBe("PASS");
    expect(noticeReasonVerdict("UNFURNISHED", "LESSOR", "JOB_LOSS").status).toBe("FAIL");
    expect(noticeReasonVerdict("PROFESSIONAL", "LESSOR", null).status).toBe("PASS");
  });
  it("a lessee's listed case reduces the notice; a lessor's motive is refused", () => {
    expect(noticeReasonVerdict("UNFURNISHED", "LESSEE", "FIRST_JOB").details.reduced_notice).toBe(true);
    expect(noticeReasonVerdict("UNFURNISHED", "LESSEE", null).details.reduced_notice).toBe(false);
    expect(noticeReasonVerdict("UNFURNISHED", "LESSEE", "SALE").status).toBe("FAIL");
  });
});

describe("rent owed when the keys come back during a notice (loi n° 89-462 art. 15 I, 25-8 I)", () => {
  const during = { notice_end_date: "2026-06-10", keys_returned_on: "2026-05-20" };
  it("the lessee's notice: its whole period", () => {
    const v = rentOwedUntilVerdict({ lease_type: "UNFURNISHED", given_by: "LESSEE", ...during });
    expect(v).toMatchObject({ status: "PASS", details: { owed_until: "2026-06-10" } });
    expect(v.legal_reference).toBe("loi n° 89-462 du 6 juillet 1989, art. 15 I");
    expect(v.message).toMatch(/let again/);
  });
  it("the lessor's notice: the time actually occupied, to the keys' return", () => {
    const v = rentOwedUntilVerdict({ lease_type: "FURNISHED", given_by: "LESSOR", ...during });
    expect(v).toMatchObject({ status: "PASS", details: { owed_until: "2026-05-20" } });
    expect(v.legal_reference).toMatch(/art\. 25-8 I; Cass\. civ\. 3e, 2 mai 2012, n° 11-17\.299/);
  });
  it("a notice whose giver was not recorded: UNKNOWN, its whole period", () => {
    expect(rentOwedUntilVerdict({ lease_type: "UNFURNISHED", given_by: null, ...during })).toMatchObject({
      status: "UNKNOWN",
      details: { owed_until: "2026-06-10" },
    });
  });
  it("keys back at or after the notice's end, or no notice: the keys' day", () => {
    for (const given_by of ["LESSEE", "LESSOR", null] as const) {
      expect(
        rentOwedUntilVerdict({
          lease_type: "UNFURNISHED",
          given_by,
          notice_end_date: "2026-06-10",
          keys_returned_on: "2026-06-12",
        }).details.owed_until,
      ).toBe("2026-06-12");
      expect(
        rentOwedUntilVerdict({
          lease_type: "UNFURNISHED",
          given_by,
          notice_end_date: null,
          keys_returned_on: "2026-05-20",
        }).details.owed_until,
      ).toBe("2026-05-20");
    }
  });
  it("outside loi n° 89-462: NOT_APPLICABLE, the notice's end as agreed", () => {
    expect(rentOwedUntilVerdict({ lease_type: "COMMERCIAL", given_by: "LESSOR", ...during })).toMatchObject({
      status: "NOT_APPLICABLE",
      details: { owed_until: "2026-06-10" },
    });
  });
});

describe("the dwelling let again before the lessee's notice ends (art. 15 I)", () => {
  const facts = {
    lease_type: "UNFURNISHED" as const,
    notice_end_date: "2026-06-10",
    keys_returned_on: "2026-05-20",
  };
  it("the lessee's rent stops the day before the new lessee's", () => {
    expect(rentOwedUntilVerdict({ ...facts, given_by: "LESSEE", relet_on: "2026-06-01" })).toMatchObject({
      status: "PASS",
      details: { owed_until: "2026-05-31" },
    });
  });
  // Keys back on 2026-05-20, notice ending 2026-06-10.
  it.each([
    ["let again on the notice's last day", "2026-06-10", "2026-06-09"],
    ["let again the day after the keys' return", "2026-05-21", "2026-05-20"],
    ["let again the day after the notice's end: nothing changes", "2026-06-11", "2026-06-10"],
    ["let again before the keys' return: never before them", "2026-05-10", "2026-05-20"],
    ["let again well after the notice's end: nothing changes", "2026-07-01", "2026-06-10"],
  ])("at the boundaries, %s (%s): rent owed until %s", (_, relet_on, owed_until) => {
    expect(rentOwedUntilVerdict({ ...facts, given_by: "LESSEE", relet_on }).details.owed_until).toBe(
      owed_until,
    );
  });
  it("after the lessor's notice: the keys' return still", () => {
    expect(
      rentOwedUntilVerdict({ ...facts, given_by: "LESSOR", relet_on: "2026-06-01" }).details.owed_until,
    ).toBe("2026-05-20");
  });
});

describe("domestic violence (art. 15 I 3° bis; art. 8-2)", () => {
  it("a lessee's one-month case, citing 3° bis and loi n° 2020-936", () => {
    const v = noticeReasonVerdict("UNFURNISHED", "LESSEE", "DOMESTIC_VIOLENCE");
    expect(v).toMatchObject({
      status: "PASS",
      legal_reference: `${LAW}, art. 15 I 3° bis (loi n° 2020-936 du 30 juillet 2020)`,
      details: { reduced_notice: true },
    });
    const period = noticeVerdict(terms("UNFURNISHED"), "2025-03-10", facts({ reduced_notice: true }));
    expect(period.details.notice_end_date).toBe("2025-04-10");
  });
  it("the victim's joint liability ends the day after the letter's first presentation", () => {
    expect(victimSolidarityVerdict("2025-12-31")).toMatchObject({
      rule: "VICTIM_SOLIDARITY_END",
      status: "PASS",
      legal_reference: `${LAW}, art. 8-2 (loi n° 2018-1021, art. 136)`,
      details: { solidarity_ends_on: "2026-01-01" },
    });
  });
});

describe("what a lessor's notice states (art. 15 I, II)", () => {
  const base = {
    lease_type: "UNFURNISHED" as const,
    received_on: "2027-06-30",
    term: "2027-12-31",
    sale: null,
    repossession: null,
    acquired_occupied_on: null,
  };
  it("sale: price above zero and terms; an offer to sell for two months", () => {
    expect(
      lessorNoticeVerdict({ ...base, motive: "SALE", sale: { price: 0, terms: "comptant" } }).details.errors,
    ).toEqual([{ field: "sale.price", message: "The notice for sale states the price" }]);
    expect(
      lessorNoticeVerdict({ ...base, motive: "SALE", sale: { price: 0.01, terms: "comptant" } }),
    ).toMatchObject({
      status: "PASS",
      legal_reference: `${LAW}, art. 15 I`,
      details: { notice_end_date: "2027-12-31", sale_offer_until: "2027-08-30" },
    });
  });
  it("repossession: a tie the law lists", () => {
    const r = { beneficiary_name: "Léa", beneficiary_address: "Lyon", tie: "COUSIN" };
    expect(lessorNoticeVerdict({ ...base, motive: "REPOSSESSION", repossession: r }).details.errors).toEqual([
      expect.objectContaining({ field: "repossession.tie" }),
    ]);
    const furnished = lessorNoticeVerdict({
      ...base,
      lease_type: "FURNISHED",
      motive: "REPOSSESSION",
      repossession: null,
    });
    expect(furnished.legal_reference).toBe(`${LAW}, art. 25-8 I`);
  });
  it("a legitimate and serious reason asks nothing more; a professional lease is not art. 15's", () => {
    expect(lessorNoticeVerdict({ ...base, motive: "LEGITIMATE_SERIOUS_REASON" }).status).toBe("PASS");
    expect(lessorNoticeVerdict({ ...base, lease_type: "PROFESSIONAL", motive: null }).status).toBe(
      "NOT_APPLICABLE",
    );
  });
  it("the elderly tenant: facts not stated are UNKNOWN, never a refusal; 25-8 III for a furnished lease", () => {
    const judge = (lease_type: "UNFURNISHED" | "FURNISHED" | "PARKING") =>
      elderlyTenantVerdict({ lease_type, term: "2027-12-31", lessor: "NATURAL_PERSON", facts: null });
    expect(judge("UNFURNISHED")).toMatchObject({
      status: "UNKNOWN",
      legal_reference: `${LAW}, art. 15 I`.replace("15 I", "15 III"),
    });
    expect(judge("FURNISHED").legal_reference).toBe(`${LAW}, art. 25-8 III`);
    expect(judge("PARKING").status).toBe("NOT_APPLICABLE");
  });
});
