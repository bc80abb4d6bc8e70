import { describe, expect, it } from "vitest";
import {
  type ArrearsCall,
  arrearsOf,
  COMMANDEMENT_MENTIONS,
  commandementVerdict,
  type guarantorNotice,
} from "../../src/law/arrears.ts";

/** Arrears and the commandement de payer (loi n° 89-462 art. 24 I; loi n° 2023-668; avis 13 juin 2024). */

const call = (n: number, paid: number, over: Partial<ArrearsCall> = {}): ArrearsCall => ({
  call_id: `00000000-0000-4000-8000-00000000000${n}`,
  period_start: `2026-0${n}-01`,
  period_end: `2026-0${n}-28`,
  due_date: `2026-0${n}-05`,
  rent_amount: 850,
  charges_amount: 120.5,
  total_amount: 970.5,
  paid_amount: paid,
  ...over,
});

describe("what is owed", () => {
  it("each call due by today with something left, oldest first, its days late; the total to the cent", () => {
    const calls = [call(3, 0), call(1, 970.5), call(2, 500.1), call(4, 0)];
    const { periods, total_owed } = arrearsOf(calls, "2026-03-05");
    expect(periods.map((p) => [p.call_id.slice(-1), p.remaining_amount, p.days_late])).toEqual([
      ["2", 470.4, 28],
      ["3", 970.5, 0],
    ]);
    expect(total_owed).toBe(1440.9);
  });

  it("two calls due the same day: by period", () => {
    const later = call(2, 0, { due_date: "2026-01-05", period_start: "2026-02-01" });
    const earlier = call(1, 0, { due_date: "2026-01-05", period_start: "2026-01-01" });
    expect(arrearsOf([later, earlier], "2026-03-01").periods.map((p) => p.period_start)).toEqual([
      "2026-01-01",
      "2026-02-01",
    ]);
  });

  it("the day before the due date the call is not owed yet; nothing owed is an empty statement", () => {
    expect(arrearsOf([call(3, 0)], "2026-03-04")).toEqual({ periods: [], total_owed: 0 });
  });

  it("sums in cents: ten calls of 0.10 owe exactly 1.00", () => {
    const tiny = Array.from({ length: 9 }, (_, i) => call(i + 1, 0, { total_amount: 0.1 }));
    expect(
      arrearsOf([...tiny, call(9, 0, { call_id: "x", total_amount: 0.1 })], "2026-12-31").total_owed,
    ).toBe(1);
  });
});

describe("the commandement de payer (art. 24 I)", () => {
  const facts = (concluded_on: string | null, total_owed = 1440.9) => ({
    concluded_on,
    today: "2026-03-10",
    total_owed,
    monthly_rent: 850,
    monthly_charges: 120.5,
  });

  it("a lease concluded on 29 July 2023 or later: six weeks (loi n° 2023-668)", () => {
    const v = commandementVerdict(facts("2023-07-29"));
    expect(v.rule).toBe("COMMANDEMENT_DE_PAYER");
    expect(v.status).toBe("PASS");
    expect(v.message).toMatch(
      /^The clause résolutoire takes effect six weeks after a commandement de payer left unanswered \(loi n° 89-462 du 6 juillet 1989, art\. 24 I, loi n° 2023-668 du 27 juillet 2023, art\. 10\)\. If the lease has a guarantor/,
    );
    expect(v.legal_reference).toBe(
      "loi n° 89-462 du 6 juillet 1989, art. 24 I; loi n° 2023-668 du 27 juillet 2023, art. 10",
    );
    expect(v.details).toMatchObject({
      payment_delay: "SIX_WEEKS",
      last_day_to_pay: "2026-04-21",
      clause_effective_from: "2026-04-22",
      total_owed: 1440.9,
      monthly_rent: 850,
      monthly_charges: 120.5,
      required_mentions: [...COMMANDEMENT_MENTIONS],
    });
  });

  it("concluded the day before: its clause's two months (Cass. avis 13 juin 2024)", () => {
    const v = commandementVerdict(facts("2023-07-28"));
    expect(v.status).toBe("PASS");
    expect(v.message).toMatch(
      /^A lease concluded before 2023-07-29 keeps its clause's delay, two months after a commandement de payer left unanswered \(loi n° 89-462 du 6 juillet 1989, art\. 24 I; Cass\. 3e civ\., avis, 13 juin 2024, n° 24-70\.002\)/,
    );
    expect(v.details).toMatchObject({
      payment_delay: "TWO_MONTHS",
      last_day_to_pay: "2026-05-10",
      clause_effective_from: "2026-05-11",
    });
    expect(v.legal_reference).toContain("n° 24-70.002");
  });

  it("nothing owed: not applicable; conclusion unknown: UNKNOWN, not a guess", () => {
    expect(commandementVerdict(facts("2024-01-01", 0))).toMatchObject({
      rule: "COMMANDEMENT_DE_PAYER",
      status: "NOT_APPLICABLE",
      message: "Nothing is owed: no commandement de payer",
    });
    const unknown = commandementVerdict(facts(null));
    expect(unknown.status).toBe("UNKNOWN");
    expect(unknown.message).toBe(
      "The lease's conclusion date is unknown: six weeks if concluded from 2023-07-29 (loi n° 2023-668 du 27 juillet 2023, art. 10), else the lease's clause, two months (Cass. 3e civ., avis, 13 juin 2024, n° 24-70.002)",
    );
    expect(unknown.details).not.toHaveProperty("payment_delay");
  });

  it("the guarantor is served within 15 days (art. 24 I al. 3): the answer says by when", () => {
    const guarantors = (n: number | null) =>
      commandementVerdict({ ...facts("2023-07-29"), guarantor_count: n }).details
        .guarantor_notice as ReturnType<typeof guarantorNotice>;
    expect(guarantors(1)).toEqual({
      required: true,
      notify_by: "2026-03-25",
      legal_reference: "loi n° 89-462 du 6 juillet 1989, art. 24 I al. 3",
      message:
        "The commandement must be served on the guarantor within 15 days, by 2026-03-25; else the guarantor owes no penalty nor late interest (loi n° 89-462 du 6 juillet 1989, art. 24 I al. 3).",
    });
    expect(guarantors(0)).toMatchObject({ required: false, message: "The lease has no guarantor to serve." });
    expect(guarantors(null)).toMatchObject({ required: null, notify_by: "2026-03-25" });
    expect(guarantors(null).message).toMatch(/^If the lease has a guarantor/);
    expect(commandementVerdict({ ...facts("2023-07-29"), guarantor_count: 2 }).message).toMatch(
      /by 2026-03-25/,
    );
  });
});
