import { describe, expect, it } from "vitest";
import { prenotificationVerdict } from "../../src/law/sepaPrenotification.ts";

describe("SEPA Core pre-notification (EPC SDD Core rulebook: 14 calendar days unless agreed otherwise)", () => {
  it("14 calendar days before the debit is in time; 13 is not", () => {
    const in14 = prenotificationVerdict({ notified_on: "2026-12-01", debit_on: "2026-12-15" });
    expect(in14).toMatchObject({ status: "PASS", details: { days: 14, latest_notice_on: "2026-12-01" } });
    expect(in14.legal_reference).toMatch(/EPC016-06/);
    const in13 = prenotificationVerdict({ notified_on: "2026-12-02", debit_on: "2026-12-15" });
    expect(in13.status).toBe("FAIL");
    expect(in13.message).toContain("2026-12-01");
  });
  it("across a month end and a leap day", () => {
    expect(prenotificationVerdict({ notified_on: "2028-02-20", debit_on: "2028-03-05" }).status).toBe("PASS");
    expect(prenotificationVerdict({ notified_on: "2028-02-21", debit_on: "2028-03-05" }).status).toBe("FAIL");
  });
  it("a pre-notification that never reached the tenant fails", () => {
    expect(prenotificationVerdict({ notified_on: null, debit_on: "2026-12-15" }).status).toBe("FAIL");
  });
  it("a shorter delay agreed in the lease applies; a longer one does not lengthen the rulebook's", () => {
    expect(
      prenotificationVerdict({ notified_on: "2026-12-10", debit_on: "2026-12-15", agreed_days: 5 }).status,
    ).toBe("PASS");
    expect(
      prenotificationVerdict({ notified_on: "2026-12-11", debit_on: "2026-12-15", agreed_days: 5 }).status,
    ).toBe("FAIL");
    expect(
      prenotificationVerdict({ notified_on: "2026-12-01", debit_on: "2026-12-15", agreed_days: 30 }).details
        .days,
    ).toBe(14);
  });
});
