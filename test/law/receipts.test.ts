import { describe, expect, it } from "vitest";
import { receiptVerdict } from "../../src/law/receipts.ts";

/** Receipts (loi n° 89-462 art. 21): quittance when paid in full, reçu when in part, nothing when unpaid. */

const ART_21 = "loi n° 89-462 du 6 juillet 1989, art. 21";
const call = (paid_amount: number) => ({
  rent_amount: 850,
  charges_amount: 120.5,
  total_amount: 970.5,
  paid_amount,
});

describe("the receipt a rent call is owed", () => {
  it("paid to the cent: a quittance stating rent and charges apart, free", () => {
    expect(receiptVerdict(call(970.5))).toEqual({
      rule: "RENT_RECEIPT",
      status: "PASS",
      message: `Paid in full: a quittance stating rent and charges separately, free of charge (${ART_21})`,
      legal_reference: ART_21,
      details: {
        kind: "QUITTANCE",
        rent_amount: 850,
        charges_amount: 120.5,
        total_amount: 970.5,
        paid_amount: 970.5,
        remaining_amount: 0,
        fee_amount: 0,
      },
    });
  });

  it("a cent short: a reçu stating what was paid and what is still due", () => {
    const v = receiptVerdict(call(970.49));
    expect(v.status).toBe("PASS");
    expect(v.details).toMatchObject({
      kind: "RECU",
      paid_amount: 970.49,
      remaining_amount: 0.01,
      fee_amount: 0,
    });
    expect(v.message).toBe(
      `Paid in part (970.49 of 970.50): a reçu stating what was paid and what is still due (${ART_21})`,
    );
  });

  it("one cent paid is a reçu; nothing paid is refused, citing art. 21", () => {
    expect(receiptVerdict(call(0.01)).details).toMatchObject({ kind: "RECU", remaining_amount: 970.49 });
    const none = receiptVerdict(call(0));
    expect(none.status).toBe("FAIL");
    expect(none.legal_reference).toBe(ART_21);
    expect(none.message).toContain("Nothing has been paid on this rent call");
    expect(none.details.errors).toEqual([
      { field: "call_id", message: "No payment on this call; 970.50 is due" },
    ]);
  });

  it("more than the call (allocation never does it, a client figure might) is still a quittance of the call", () => {
    expect(receiptVerdict(call(1000)).details).toMatchObject({ kind: "QUITTANCE", paid_amount: 970.5 });
  });
});
