import { describe, expect, it } from "vitest";
import {
  addMonths,
  DEFAULT_NOTICE,
  type NoticeFacts,
  noticeEndDate,
} from "../../src/commands/leases/notice.ts";
import type { LeaseType } from "../../src/events/leases.ts";
import { refusal } from "../support/deciderSpec.ts";

/** Notice periods (loi n° 89-462 art. 15 I, 25-8 I, 25-14, 25-15): each refusal cites its article. */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const terms = (
  lease_type: LeaseType,
  over: { end_date?: string | null; duration_months?: number | null } = {},
) => ({
  lease_type,
  start_date: "2025-01-15",
  end_date: null,
  duration_months: 36,
  ...over,
});
const facts = (over: Partial<NoticeFacts>): NoticeFacts => ({ ...DEFAULT_NOTICE, ...over });
const dayBefore = (date: string) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
/** The refusal of an end one day before the legal one, whose message names the period's article. */
const tooEarly = (lease_type: LeaseType, over: Partial<NoticeFacts>, legal: string) => {
  const t = terms(lease_type);
  expect(noticeEndDate(t, "2025-03-10", facts(over))).toBe(legal);
  expect(noticeEndDate(t, "2025-03-10", facts({ ...over, requested_end: legal }))).toBe(legal);
  return refusal(() => noticeEndDate(t, "2025-03-10", facts({ ...over, requested_end: dayBefore(legal) })));
};

describe("notice periods and the article each refusal cites", () => {
  it("lessee, unfurnished: 3 months (art. 15 I); reduced: 1 month, cited as the reduced notice", () => {
    const three = tooEarly("UNFURNISHED", {}, "2025-06-10");
    expect(three.status).toBe(422);
    expect(three.message).toBe(
      `The notice period is 3 month(s) from 2025-03-10 (${LAW}, art. 15 I): it ends 2025-06-10 at the earliest`,
    );
    expect(three.details).toEqual([{ field: "notice_end_date", message: "2025-06-09 is before 2025-06-10" }]);
    expect(tooEarly("UNFURNISHED", { reduced_notice: true }, "2025-04-10").message).toContain(
      `1 month(s) from 2025-03-10 (${LAW}, art. 15 I (reduced notice))`,
    );
    expect(tooEarly("UNFURNISHED", { high_demand_zone: true }, "2025-04-10").message).toContain(
      "(reduced notice)",
    );
    expect(tooEarly("UNFURNISHED", { high_demand_zone: false }, "2025-06-10").message).toContain(
      "3 month(s)",
    );
  });

  it("lessee, furnished or student: 1 month (art. 25-8 I); bail mobilité: 1 month (art. 25-15)", () => {
    for (const type of ["FURNISHED", "STUDENT"] as const)
      expect(tooEarly(type, {}, "2025-04-10").message).toContain(
        `1 month(s) from 2025-03-10 (${LAW}, art. 25-8 I)`,
      );
    expect(tooEarly("MOBILITY", {}, "2025-04-10").message).toContain(`(${LAW}, art. 25-15)`);
  });

  it("a lessor never gives notice on a bail mobilité (art. 25-14)", () => {
    const err = refusal(() => noticeEndDate(terms("MOBILITY"), "2025-03-10", facts({ given_by: "LESSOR" })));
    expect(err.status).toBe(422);
    expect(err.message).toBe(
      `The lessor cannot give notice on a bail mobilité: it ends at its term (${LAW}, art. 25-14)`,
    );
    expect(err.details).toEqual([
      { field: "given_by", message: "Only the lessee gives notice on a bail mobilité (art. 25-15)" },
    ]);
  });

  it("a lessor's notice must reach the lessee before the period runs past the term's end date", () => {
    const lessor = facts({ given_by: "LESSOR" });
    // Furnished: 3 months before the term (art. 25-8 I).
    const furnished = terms("FURNISHED", { end_date: "2025-06-10" });
    expect(noticeEndDate(furnished, "2025-03-10", lessor)).toBe("2025-06-10");
    const late = refusal(() => noticeEndDate(furnished, "2025-03-11", lessor));
    expect(late.message).toBe(
      `A lessor's notice must reach the lessee at least 3 months before the term (${LAW}, art. 25-8 I)`,
    );
    expect(late.details).toEqual([
      { field: "effective_date", message: "The period ends 2025-06-11, after the term 2025-06-10" },
    ]);
  });

  it("a lessor's notice without end date nor duration: the term is unknown", () => {
    const err = refusal(() =>
      noticeEndDate(
        terms("UNFURNISHED", { duration_months: null }),
        "2025-03-10",
        facts({ given_by: "LESSOR" }),
      ),
    );
    expect(err.message).toBe(
      `A lessor's notice takes effect at the lease's term (${LAW}, art. 15 I); the lease has neither end_date nor duration_months`,
    );
    expect(err.details).toEqual([{ field: "given_by", message: "The lease's term is unknown" }]);
  });
});

describe("notices outside loi n° 89-462 (commercial, professional, parking)", () => {
  it("end on the client's date, which may be the day the notice is given but not before", () => {
    const commercial = terms("COMMERCIAL");
    expect(noticeEndDate(commercial, "2025-03-10", facts({}))).toBeNull();
    expect(noticeEndDate(commercial, "2025-03-10", facts({ requested_end: "2025-03-10" }))).toBe(
      "2025-03-10",
    );
    const err = refusal(() =>
      noticeEndDate(commercial, "2025-03-10", facts({ requested_end: "2025-03-09" })),
    );
    expect(err.message).toBe("The notice cannot end before it is given");
    expect(err.details).toEqual([{ field: "notice_end_date", message: "2025-03-09 is before 2025-03-10" }]);
  });
});

describe("months as délais count them (code de procédure civile art. 641)", () => {
  it("pads years, months and days; crosses years both ways", () => {
    expect(addMonths("0999-01-05", 1)).toBe("0999-02-05");
    expect(addMonths("2025-11-30", 3)).toBe("2026-02-28");
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-29");
    expect(addMonths("2025-01-15", -13)).toBe("2023-12-15");
  });
});
