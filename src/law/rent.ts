import { addMonths } from "./calendar.ts";
import { type LeaseType, underLoi89 } from "./leaseTypes.ts";
import { cents, euros } from "./money.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/** Rent changes during a lease (docs/compliance.md, "Index revision", "F/G freeze"). */

const ART_17_1 = `${LOI_89}, art. 17-1 I`;

/** IRL quarters published with the 3.5 % ceiling of loi n° 2022-1158 art. 12 (used as published). */
export const IRL_CAPPED_QUARTERS = { from: "2022-Q3", to: "2024-Q1" } as const;
export const irlCapped = (quarter: string) =>
  quarter >= IRL_CAPPED_QUARTERS.from && quarter <= IRL_CAPPED_QUARTERS.to;
export const IRL_CAPPED_NOTE = (quarter: string) =>
  `The IRL of ${quarter} is used as published: it already carries the 3.5 % yearly cap of loi n° 2022-1158 du 16 août 2022, art. 12.`;

/** Index points to ten-thousandths (IRL values have two decimals, other indices at most four). */
const points = (v: number) => BigInt(Math.round(v * 10_000));

/**
 * The highest revised rent, in cents (art. 17-1 I): rent × new index / reference index, rounded
 * down to the cent, so one cent more is above it.
 */
export const indexCapCents = (rent: number, referenceValue: number, newValue: number): bigint =>
  (BigInt(cents(rent)) * points(newValue)) / points(referenceValue);

export interface IndexChange {
  current_rent: number;
  new_rent: number;
  reference_value: number;
  new_value: number;
}

export function indexCapVerdict(input: IndexChange): Verdict {
  const rule = "IRL_REVISION_CAP";
  const cap = indexCapCents(input.current_rent, input.reference_value, input.new_value);
  const proposed = BigInt(cents(input.new_rent));
  const details = { ...input, max_rent: euros(cap) };
  if (proposed <= cap)
    return verdict(rule, "PASS", `The revised rent is within the index cap (${ART_17_1})`, ART_17_1, details);
  return verdict(
    rule,
    "FAIL",
    `An index revision may not raise the rent above rent × new index / reference index (${ART_17_1})`,
    ART_17_1,
    {
      ...details,
      errors: [
        {
          field: "rent_amount",
          message: `Revised rent ${euros(proposed)} exceeds the cap ${euros(cap)} = ${euros(cents(input.current_rent))} × ${input.new_value} / ${input.reference_value}`,
        },
      ],
    },
  );
}

export interface IndexValues {
  type: string;
  reference_quarter: string;
  reference_value: number;
  new_quarter: string;
  new_value: number;
}

/** The IRL values INSEE published for an index revision's two quarters (null: not in the data). */
export interface PublishedIrl {
  reference_value: number | null;
  new_value: number | null;
}

/**
 * An IRL revision compares the indices INSEE published (art. 17-1 I): a value given for a quarter
 * the IRL data holds must be that value. A quarter the data does not hold yet is taken as given.
 */
export function irlValuesVerdict(index: IndexValues, published: PublishedIrl): Verdict {
  const rule = "IRL_VALUES";
  if (index.type !== "IRL") return verdict(rule, "NOT_APPLICABLE", "Not an IRL revision", ART_17_1);
  const pairs = [
    ["reference", index.reference_quarter, index.reference_value, published.reference_value],
    ["new", index.new_quarter, index.new_value, published.new_value],
  ] as const;
  const errors = pairs.flatMap(([which, quarter, given, value]) =>
    value !== null && cents(given) !== cents(value)
      ? [
          {
            field: `index.${which}_value`,
            message: `The IRL of ${quarter} is ${value.toFixed(2)} as published by INSEE, not ${given}`,
          },
        ]
      : [],
  );
  if (errors.length === 0) return verdict(rule, "PASS", "The IRL values are INSEE's", ART_17_1);
  return verdict(
    rule,
    "FAIL",
    `An IRL revision must use the index values published by INSEE (${ART_17_1})`,
    ART_17_1,
    {
      errors,
    },
  );
}

/**
 * Whether the lease may be revised on an index at all (art. 17-1 I, 25-9, 25-12): under loi
 * n° 89-462 only on the IRL and at most once a year; never a bail mobilité, whose title does not
 * apply art. 17-1 (art. 25-12). Outside loi n° 89-462: not this law's rule.
 */
export function indexRevisionVerdict(input: {
  lease_type: LeaseType;
  index_type: string;
  effective_date: string;
  /** The effective date of the lease's last index revision, null when none. */
  last_index_revision_on: string | null;
}): Verdict {
  const rule = "INDEX_REVISION_ALLOWED";
  if (!underLoi89(input.lease_type))
    return verdict(rule, "NOT_APPLICABLE", `A ${input.lease_type} lease is outside loi n° 89-462`, LOI_89);
  if (input.lease_type === "MOBILITY") {
    const ref = `${LOI_89}, art. 25-12`;
    return verdict(
      rule,
      "FAIL",
      `The rent of a bail mobilité is not revised on an index (${ref}: art. 17-1 does not apply)`,
      ref,
      {
        errors: [{ field: "reason", message: "No index revision on a MOBILITY lease" }],
      },
    );
  }
  if (input.index_type !== "IRL")
    return verdict(
      rule,
      "FAIL",
      `A lease under loi n° 89-462 is revised on the IRL only (${ART_17_1})`,
      ART_17_1,
      {
        errors: [{ field: "index.type", message: `${input.index_type} is not the IRL` }],
      },
    );
  const last = input.last_index_revision_on;
  if (last !== null && input.effective_date < addMonths(last, 12))
    return verdict(rule, "FAIL", `The rent is revised at most once a year (${ART_17_1})`, ART_17_1, {
      last_index_revision_on: last,
      errors: [
        {
          field: "effective_date",
          message: `The last index revision took effect on ${last}: the next one takes effect on ${addMonths(last, 12)} at the earliest`,
        },
      ],
    });
  return verdict(rule, "PASS", `An IRL revision, at most once a year (${ART_17_1})`, ART_17_1);
}

/** Loi n° 2021-1104 art. 159: applies to contracts concluded, renewed or tacitly renewed from this day. */
export const FREEZE_FROM = "2022-08-24";
/** Overseas departments (src/law/overseas.ts): from 2024-07-01. */
export const OVERSEAS_FREEZE_FROM = "2024-07-01";
const FREEZE = `${LOI_89}, art. 17-1 III and 17-2 (loi n° 2021-1104, art. 159)`;

export interface DpeOn {
  energy_label: string | null;
  valid_until: string | null;
}

/**
 * No revision, increase or re-evaluation of the rent of housing classed F or G (art. 17-1 III,
 * 17-2), for contracts concluded, renewed or tacitly renewed from 2022-08-24 (loi n° 2021-1104
 * art. 159): judged with the DPE valid on the change's effective date, within the contract period
 * (conclusion or last renewal) in force that day.
 */
export function rentFreezeVerdict(input: {
  current_rent: number;
  new_rent: number;
  effective_date: string;
  /** The DPE valid on effective_date, null when none. */
  dpe: DpeOn | null;
  /** The day the contract period in force on effective_date began (conclusion or renewal). */
  period_start: string;
  /** An overseas department: the freeze reaches contracts from 2024-07-01 (loi n° 2021-1104 art. 159). */
  overseas?: boolean;
}): Verdict {
  const rule = "DPE_F_G_RENT_FREEZE";
  const freezeFrom = input.overseas ? OVERSEAS_FREEZE_FROM : FREEZE_FROM;
  const details = {
    current_rent: input.current_rent,
    new_rent: input.new_rent,
    effective_date: input.effective_date,
    period_start: input.period_start,
    energy_label: input.dpe?.energy_label ?? null,
  };
  if (cents(input.new_rent) <= cents(input.current_rent))
    return verdict(rule, "NOT_APPLICABLE", "Not a rent increase", FREEZE, details);
  if (input.period_start < freezeFrom)
    return verdict(
      rule,
      "PASS",
      `The contract in force on ${input.effective_date} was concluded or renewed on ${input.period_start}, before ${freezeFrom}: the freeze applies from its renewal (loi n° 2021-1104 art. 159${input.overseas ? ", overseas" : ""})`,
      FREEZE,
      details,
    );
  const dpe = input.dpe;
  if (dpe !== null && dpe.valid_until !== null && dpe.valid_until < input.effective_date)
    return verdict(rule, "UNKNOWN", `No DPE is valid on ${input.effective_date}`, FREEZE, details);
  if (!dpe?.energy_label)
    return verdict(
      rule,
      "UNKNOWN",
      `No DPE is valid on ${input.effective_date}: whether the rent could rise is unknown`,
      FREEZE,
      details,
    );
  if (dpe.energy_label !== "F" && dpe.energy_label !== "G")
    return verdict(rule, "PASS", `Housing classed ${dpe.energy_label}: the rent may rise`, FREEZE, details);
  return verdict(
    rule,
    "FAIL",
    `The rent of housing classed ${dpe.energy_label} may not be increased (${LOI_89}, art. 17-1 III)`,
    FREEZE,
    {
      ...details,
      errors: [
        {
          field: "rent_amount",
          message: `Rent ${euros(cents(input.new_rent))} is above the current ${euros(cents(input.current_rent))} while the estate's DPE on ${input.effective_date} is ${dpe.energy_label} (valid until ${dpe.valid_until})`,
        },
      ],
    },
  );
}

/**
 * The rent control experiment of loi ELAN n° 2018-1021 art. 140 runs until 2026-11-25 (5 years,
 * prolonged 3 by loi 3DS n° 2022-217 art. 85). Whether a later law carries it on is not confirmed
 * here: a lease concluded after that day is judged UNKNOWN (docs/compliance.md).
 */
export const RENT_CONTROL_EXPERIMENT_UNTIL = "2026-11-25";
