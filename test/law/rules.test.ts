import { describe, expect, it } from "vitest";
import {
  checkDepositCap,
  checkDpeFreeze,
  checkIndexCap,
  checkIrlValues,
} from "../../src/commands/leases/rules.ts";
import { refusal } from "../support/deciderSpec.ts";

/**
 * The rules at their legal boundaries: the figure the law allows passes, one cent (or one day) past
 * it is refused with a 422 naming the article and the figures compared.
 */

describe("deposit cap (loi n° 89-462 art. 22, 25-6, 25-13)", () => {
  const deposit =
    (lease_type: Parameters<typeof checkDepositCap>[0]["lease_type"], amount: number | null) => () =>
      checkDepositCap({ lease_type, rent_amount: 700, deposit_amount: amount });

  it("a STUDENT lease (furnished, 9 months) takes two months of rent, not one cent more (art. 25-6)", () => {
    expect(deposit("STUDENT", 1400)).not.toThrow();
    const over = refusal(deposit("STUDENT", 1400.01));
    expect(over.status).toBe(422);
    expect(over.message).toBe(
      "The deposit of a STUDENT lease may not exceed 2 month(s) of rent excluding charges (loi n° 89-462 art. 25-6)",
    );
    expect(over.details).toEqual([
      {
        field: "deposit_amount",
        message:
          "Deposit 1400.01 exceeds the cap of 1400.00 (2 month(s) of rent 700.00 excluding charges, loi n° 89-462 art. 25-6)",
      },
    ]);
  });

  it("an UNFURNISHED lease takes one month (art. 22), a bail mobilité none (art. 25-13)", () => {
    expect(deposit("UNFURNISHED", 700)).not.toThrow();
    expect(refusal(deposit("UNFURNISHED", 700.01)).message).toMatch(/1 month\(s\).*art\. 22\)$/);
    expect(deposit("MOBILITY", 0)).not.toThrow();
    expect(refusal(deposit("MOBILITY", 0.01)).details?.[0].message).toMatch(
      /^Deposit 0\.01 exceeds the cap of 0\.00 \(0 month\(s\)/,
    );
  });

  it("no deposit is never over a cap; leases outside loi 89-462 have none (commercial, parking)", () => {
    expect(deposit("UNFURNISHED", null)).not.toThrow();
    expect(deposit("COMMERCIAL", 50_000)).not.toThrow();
    expect(deposit("PARKING", 50_000)).not.toThrow();
    expect(deposit("PROFESSIONAL", 50_000)).not.toThrow();
  });
});

describe("index revision cap (loi n° 89-462 art. 17-1 I)", () => {
  const revise = (new_rent: number) => () =>
    checkIndexCap({ current_rent: 1000, new_rent, reference_value: 140, new_value: 144.9 });

  it("a revised rent exactly at rent × new IRL / reference IRL passes; one cent above is 422", () => {
    // 1000 × 144.90 / 140.00 = 1035.00 exactly.
    expect(revise(1035)).not.toThrow();
    const over = refusal(revise(1035.01));
    expect(over.status).toBe(422);
    expect(over.message).toBe(
      "An index revision may not raise the rent above rent × new index / reference index (loi n° 89-462 art. 17-1 I)",
    );
    expect(over.details).toEqual([
      {
        field: "rent_amount",
        message: "Revised rent 1035.01 exceeds the cap 1035.00 = 1000.00 × 144.9 / 140",
      },
    ]);
  });

  it("shows the cap rounded down to the cent, the highest rent that passes", () => {
    // 800 × 145.17 / 143.46 = 809.535...: 809.53 passes, 809.54 does not.
    const at = (new_rent: number) => () =>
      checkIndexCap({ current_rent: 800, new_rent, reference_value: 143.46, new_value: 145.17 });
    expect(at(809.53)).not.toThrow();
    expect(refusal(at(809.54)).details?.[0].message).toContain("exceeds the cap 809.53 =");
  });
});

describe("IRL values as INSEE published them (art. 17-1 I)", () => {
  const index = (type: "IRL" | "ILC", reference_value: number, new_value: number) => ({
    type,
    reference_quarter: "2024-Q2",
    reference_value,
    new_quarter: "2025-Q2",
    new_value,
  });
  const published = { reference_value: 145.17, new_value: 146.68 };

  it("names each quarter whose given value differs from INSEE's, by field", () => {
    expect(() => checkIrlValues(index("IRL", 145.17, 146.68), published)).not.toThrow();
    const both = refusal(() => checkIrlValues(index("IRL", 145, 147), published));
    expect(both.status).toBe(422);
    expect(both.message).toContain("published by INSEE (loi n° 89-462 art. 17-1 I)");
    expect(both.details).toEqual([
      {
        field: "index.reference_value",
        message: "The IRL of 2024-Q2 is 145.17 as published by INSEE, not 145",
      },
      { field: "index.new_value", message: "The IRL of 2025-Q2 is 146.68 as published by INSEE, not 147" },
    ]);
    const onlyNew = refusal(() => checkIrlValues(index("IRL", 145.17, 146.69), published));
    expect(onlyNew.details?.map((d) => d.field)).toEqual(["index.new_value"]);
  });

  it("takes a quarter INSEE has not published as given, and judges only the IRL", () => {
    expect(() =>
      checkIrlValues(index("IRL", 1, 2), { reference_value: null, new_value: null }),
    ).not.toThrow();
    expect(() => checkIrlValues(index("ILC", 1, 2), published)).not.toThrow();
  });
});

describe("rent freeze of housing classed F or G (art. 17-1 III, loi n° 2021-1104 art. 159)", () => {
  const G = { energy_label: "G", valid_until: "2030-01-01" };
  const change =
    (new_rent: number, over: Partial<Parameters<typeof checkDpeFreeze>[0]> = {}) =>
    () =>
      checkDpeFreeze({ current_rent: 900, new_rent, effective_date: "2025-03-01", dpe: G, ...over });

  it("an unchanged rent is no increase; a rise of one cent is 422 naming the label and figures", () => {
    expect(change(900)).not.toThrow();
    expect(change(850)).not.toThrow();
    const up = refusal(change(900.01));
    expect(up.status).toBe(422);
    expect(up.message).toBe(
      "The rent of housing classed G may not be increased (loi n° 89-462 art. 17-1 III)",
    );
    expect(up.details).toEqual([
      {
        field: "rent_amount",
        message:
          "Rent 900.01 is above the current 900.00 while the estate's DPE is G (valid until 2030-01-01)",
      },
    ]);
  });

  it("freezes F as G; not E, nor an estate whose label is unknown", () => {
    expect(refusal(change(950, { dpe: { energy_label: "F", valid_until: null } })).message).toContain(
      "classed F",
    );
    expect(change(950, { dpe: { energy_label: "E", valid_until: null } })).not.toThrow();
    expect(change(950, { dpe: { energy_label: null, valid_until: null } })).not.toThrow();
    expect(change(950, { dpe: null })).not.toThrow();
  });

  it("binds on the DPE's last valid day, not the day after; a DPE without end binds", () => {
    const on = (valid_until: string | null) => change(950, { dpe: { energy_label: "G", valid_until } });
    expect(refusal(on("2025-03-01")).status).toBe(422);
    expect(on("2025-02-28")).not.toThrow();
    expect(refusal(on(null)).details?.[0].message).toContain("(valid until null)");
  });

  it("applies to changes effective from 2022-08-24, not the day before", () => {
    expect(refusal(change(950, { effective_date: "2022-08-24" })).status).toBe(422);
    expect(change(950, { effective_date: "2022-08-23" })).not.toThrow();
  });
});
