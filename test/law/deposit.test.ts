import { describe, expect, it } from "vitest";
import { type DepositFacts, depositVerdict, monthsPaidInAdvance } from "../../src/law/deposit.ts";

/** The deposit (loi n° 89-462 art. 22, 25-6, 25-13) at its boundaries: the cap passes, one cent more fails. */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const deposit = (
  lease_type: DepositFacts["lease_type"],
  deposit_amount: number | null,
  over: Partial<DepositFacts> = {},
) =>
  depositVerdict({
    lease_type,
    rent_amount: 700,
    deposit_amount,
    rent_frequency: "MONTHLY",
    payment_terms: null,
    ...over,
  });

describe("deposit cap", () => {
  it("a STUDENT lease (furnished, 9 months) takes two months of rent, not one cent more (art. 25-6)", () => {
    expect(deposit("STUDENT", 1400)).toEqual({
      rule: "DEPOSIT_CAP",
      status: "PASS",
      message: `The deposit is within the cap of ${LAW}, art. 25-6`,
      legal_reference: `${LAW}, art. 25-6`,
      details: { deposit_amount: 1400, rent_amount: 700, rent_frequency: "MONTHLY", payment_terms: null },
    });
    expect(deposit("STUDENT", 1400.01)).toEqual({
      rule: "DEPOSIT_CAP",
      status: "FAIL",
      message: `The deposit of a STUDENT lease may not exceed 2 month(s) of rent excluding charges (${LAW}, art. 25-6)`,
      legal_reference: `${LAW}, art. 25-6`,
      details: {
        deposit_amount: 1400.01,
        rent_amount: 700,
        rent_frequency: "MONTHLY",
        payment_terms: null,
        errors: [
          {
            field: "deposit_amount",
            message: `Deposit 1400.01 exceeds the cap of 1400.00 (2 month(s) of rent 700.00 excluding charges, ${LAW}, art. 25-6)`,
          },
        ],
      },
    });
  });

  it("UNFURNISHED: one month (art. 22); FURNISHED: two (art. 25-6); MOBILITY: none (art. 25-13)", () => {
    expect(deposit("UNFURNISHED", 700).status).toBe("PASS");
    expect(deposit("UNFURNISHED", 700.01)).toMatchObject({
      status: "FAIL",
      legal_reference: `${LAW}, art. 22`,
    });
    expect(deposit("FURNISHED", 1400).status).toBe("PASS");
    expect(deposit("FURNISHED", 1400.01).status).toBe("FAIL");
    expect(deposit("MOBILITY", 0.01)).toMatchObject({
      status: "FAIL",
      legal_reference: `${LAW}, art. 25-13`,
    });
  });

  it("no deposit, or a nil one, is no deposit: it passes as such", () => {
    for (const amount of [null, 0])
      expect(deposit("MOBILITY", amount)).toMatchObject({
        status: "PASS",
        message: "No deposit is required",
      });
  });

  it("leases outside loi 89-462 have no cap", () => {
    for (const type of ["COMMERCIAL", "PROFESSIONAL", "PARKING"] as const)
      expect(deposit(type, 50_000)).toEqual({
        rule: "DEPOSIT_CAP",
        status: "NOT_APPLICABLE",
        message: `A ${type} lease is outside loi n° 89-462`,
        legal_reference: LAW,
        details: {},
      });
  });
});

describe("rent paid in advance (art. 22 al. 2)", () => {
  it("counts the months of a period paid at its start (terme à échoir); none paid at its end", () => {
    expect(monthsPaidInAdvance({ rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR" })).toBe(3);
    expect(monthsPaidInAdvance({ rent_frequency: "ANNUALLY", payment_terms: "TERME_A_ECHOIR" })).toBe(12);
    expect(monthsPaidInAdvance({ rent_frequency: null, payment_terms: "TERME_A_ECHOIR" })).toBe(1);
    expect(monthsPaidInAdvance({ rent_frequency: "QUARTERLY", payment_terms: "TERME_ECHU" })).toBe(0);
  });

  it("forbids any deposit of an unfurnished lease paid more than two months in advance", () => {
    const quarterly = { rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR" };
    const refused = deposit("UNFURNISHED", 1, quarterly);
    expect(refused).toMatchObject({
      status: "FAIL",
      message: `No deposit may be required when the rent is payable in advance for more than two months (${LAW}, art. 22 al. 2)`,
      legal_reference: `${LAW}, art. 22 al. 2`,
      details: {
        months_paid_in_advance: 3,
        errors: [
          {
            field: "deposit_amount",
            message:
              "The rent is paid 3 months in advance (QUARTERLY, TERME_A_ECHOIR): no deposit may be required unless the lessee asks to pay monthly",
          },
        ],
      },
    });
    expect(deposit("UNFURNISHED", null, quarterly).status).toBe("PASS");
    expect(
      deposit("UNFURNISHED", 700, { rent_frequency: "MONTHLY", payment_terms: "TERME_A_ECHOIR" }).status,
    ).toBe("PASS");
  });

  it("a furnished lease paid more than two months in advance with a deposit FAILs: art. 25-3 applies art. 22", () => {
    const quarterly = { rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR" };
    for (const type of ["FURNISHED", "STUDENT"] as const)
      expect(deposit(type, 1400, quarterly)).toMatchObject({
        status: "FAIL",
        message: `No deposit may be required when the rent is payable in advance for more than two months (${LAW}, art. 22 al. 2, applied by art. 25-3)`,
        legal_reference: `${LAW}, art. 22 al. 2, applied by art. 25-3`,
        details: { months_paid_in_advance: 3 },
      });
    // One month in advance, or a quarter paid at its end: the cap alone.
    expect(deposit("FURNISHED", 1400, { ...quarterly, rent_frequency: "MONTHLY" }).status).toBe("PASS");
    expect(deposit("FURNISHED", 1400, { ...quarterly, payment_terms: "TERME_ECHU" }).status).toBe("PASS");
    expect(deposit("FURNISHED", null, quarterly).status).toBe("PASS");
  });
});
