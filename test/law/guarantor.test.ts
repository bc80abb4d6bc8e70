import { describe, expect, it } from "vitest";
import { guarantorDefaultVerdict } from "../../src/law/guarantor.ts";

describe("the guarantor told of the first payment incident (code civil art. 2303)", () => {
  it("a call still unpaid a month after its due date is an incident; the day before, or paid, not", () => {
    const unpaid = { due_date: "2026-11-05", remaining_amount: 1043.31 };
    const on = guarantorDefaultVerdict({ ...unpaid, today: "2026-12-05" });
    expect(on).toMatchObject({ status: "PASS", legal_reference: "code civil, art. 2303" });
    expect(on.details.incident_on).toBe("2026-12-05");
    expect(guarantorDefaultVerdict({ ...unpaid, today: "2026-12-04" }).status).toBe("NOT_APPLICABLE");
    expect(
      guarantorDefaultVerdict({ due_date: "2026-11-05", remaining_amount: 0, today: "2027-01-01" }).status,
    ).toBe("NOT_APPLICABLE");
  });
  it("a month from the 31st ends on the month's last day", () => {
    expect(
      guarantorDefaultVerdict({ due_date: "2027-01-31", remaining_amount: 10, today: "2027-02-28" }).status,
    ).toBe("PASS");
  });
});
