import type { LeaseType, RentIndex } from "../../events/leases.ts";
import { type ErrorDetail, unprocessable } from "../../platform/errors.ts";

/**
 * The legal rules of French residential leases the write side enforces (docs/leases.md).
 * Pure functions of figures; amounts are compared in whole cents so no float rounding decides.
 */

export const cents = (amount: number) => Math.round(amount * 100);
export const euros = (c: number | bigint) => (Number(c) / 100).toFixed(2);

/**
 * Deposit cap in months of rent excluding charges, by lease type:
 * - UNFURNISHED: 1 month "de loyer en principal" (loi 89-462 art. 22);
 * - FURNISHED and STUDENT (a furnished lease of 9 months): 2 months (loi 89-462 art. 25-6);
 * - MOBILITY: no deposit may be required (loi 89-462 art. 25-13, bail mobilité);
 * - COMMERCIAL, PROFESSIONAL, PARKING: outside loi 89-462, no statutory cap.
 */
const DEPOSIT_CAP_MONTHS: Partial<Record<LeaseType, { months: number; article: string }>> = {
  UNFURNISHED: { months: 1, article: "loi n° 89-462 art. 22" },
  FURNISHED: { months: 2, article: "loi n° 89-462 art. 25-6" },
  STUDENT: { months: 2, article: "loi n° 89-462 art. 25-6" },
  MOBILITY: { months: 0, article: "loi n° 89-462 art. 25-13" },
};

/** 422 when the deposit exceeds its cap; `details` name the figures compared. */
export function checkDepositCap(terms: {
  lease_type: LeaseType;
  rent_amount: number;
  deposit_amount: number | null;
}): void {
  const cap = DEPOSIT_CAP_MONTHS[terms.lease_type];
  if (!cap || terms.deposit_amount === null) return;
  const max = cents(terms.rent_amount) * cap.months;
  if (cents(terms.deposit_amount) <= max) return;
  const details: ErrorDetail[] = [
    {
      field: "deposit_amount",
      message: `Deposit ${euros(cents(terms.deposit_amount))} exceeds the cap of ${euros(max)} (${cap.months} month(s) of rent ${euros(cents(terms.rent_amount))} excluding charges, ${cap.article})`,
    },
  ];
  throw unprocessable(
    `The deposit of a ${terms.lease_type} lease may not exceed ${cap.months} month(s) of rent excluding charges (${cap.article})`,
    details,
  );
}

/**
 * Index revision cap (loi 89-462 art. 17-1 I): the revised rent may not exceed the rent times
 * the new index over the reference index. Exact: new × reference ≤ rent × new_index, in cents
 * and hundredths of index points (IRL values have two decimals). The cap shown is rounded down
 * to the cent, the highest rent that passes.
 */
export function checkIndexCap(input: {
  current_rent: number;
  new_rent: number;
  reference_value: number;
  new_value: number;
}): void {
  const scale = (v: number) => BigInt(Math.round(v * 10_000));
  const rent = BigInt(cents(input.current_rent));
  const proposed = BigInt(cents(input.new_rent));
  const ref = scale(input.reference_value);
  const next = scale(input.new_value);
  if (proposed * ref <= rent * next) return;
  const cap = (rent * next) / ref; // bigint division rounds down
  throw unprocessable(
    `An index revision may not raise the rent above rent × new index / reference index (loi n° 89-462 art. 17-1 I)`,
    [
      {
        field: "rent_amount",
        message: `Revised rent ${euros(proposed)} exceeds the cap ${euros(cap)} = ${euros(rent)} × ${input.new_value} / ${input.reference_value}`,
      },
    ],
  );
}

/** The IRL values INSEE published for an index revision's two quarters (null: not in the data). */
export interface PublishedIrl {
  reference_value: number | null;
  new_value: number | null;
}

/**
 * An IRL revision compares the indices INSEE published (loi 89-462 art. 17-1 I): a value given for
 * a quarter the IRL data holds must be that value, else 422. A quarter the data does not hold yet is
 * taken as given (docs/compliance.md).
 */
export function checkIrlValues(index: RentIndex, published: PublishedIrl): void {
  if (index.type !== "IRL") return;
  const details: ErrorDetail[] = [];
  const pairs = [
    ["reference", index.reference_quarter, index.reference_value, published.reference_value],
    ["new", index.new_quarter, index.new_value, published.new_value],
  ] as const;
  for (const [which, quarter, given, value] of pairs) {
    if (value !== null && cents(given) !== cents(value))
      details.push({
        field: `index.${which}_value`,
        message: `The IRL of ${quarter} is ${value.toFixed(2)} as published by INSEE, not ${given}`,
      });
  }
  if (details.length > 0)
    throw unprocessable(
      "An IRL revision must use the index values published by INSEE (loi n° 89-462 art. 17-1 I)",
      details,
    );
}

/** Loi n° 2021-1104 art. 159 applies to leases concluded, renewed or tacitly renewed from this day. */
export const FREEZE_FROM = "2022-08-24";

/**
 * Rent increase freeze for housing classed F or G (loi 89-462 art. 17-1 III and 17-2, from
 * loi n° 2021-1104 "Climat et résilience" art. 159): no revision, increase or re-evaluation
 * effective from 2022-08-24 while the estate's DPE in force on the effective date is F or G.
 */
export function checkDpeFreeze(input: {
  current_rent: number;
  new_rent: number;
  effective_date: string;
  dpe: { energy_label: string | null; valid_until: string | null } | null;
}): void {
  if (cents(input.new_rent) <= cents(input.current_rent)) return;
  if (input.effective_date < FREEZE_FROM) return;
  const dpe = input.dpe;
  if (!dpe?.energy_label || !["F", "G"].includes(dpe.energy_label)) return;
  if (dpe.valid_until !== null && dpe.valid_until < input.effective_date) return;
  throw unprocessable(
    `The rent of housing classed ${dpe.energy_label} may not be increased (loi n° 89-462 art. 17-1 III)`,
    [
      {
        field: "rent_amount",
        message: `Rent ${euros(cents(input.new_rent))} is above the current ${euros(cents(input.current_rent))} while the estate's DPE is ${dpe.energy_label} (valid until ${dpe.valid_until})`,
      },
    ],
  );
}
