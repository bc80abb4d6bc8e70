import { addDays, addMonths, addYears, lastDayBefore } from "./calendar.ts";
import { dpeValidUntil } from "./dpe.ts";
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

/** A quarter `YYYY-Qn` moved by `n` quarters (negative: back). */
export function quarterPlus(quarter: string, n: number): string {
  const total = Number(quarter.slice(0, 4)) * 4 + Number(quarter.slice(6)) - 1 + n;
  return `${Math.floor(total / 4)}-Q${(total % 4) + 1}`;
}

/** Quarters from `from` to `to` (negative when `to` is earlier). */
export const quartersBetween = (from: string, to: string): number =>
  Number(to.slice(0, 4)) * 4 + Number(to.slice(6)) - (Number(from.slice(0, 4)) * 4 + Number(from.slice(6)));

const LOI_2014_366 = "loi n° 2014-366 du 24 mars 2014, art. 6";

/**
 * The revision chain of art. 17-1 I (docs/compliance.md, "Index revision"): each applied revision
 * becomes the reference of the next, rent and quarter, so a revision compares the IRL of a quarter
 * with that of the same quarter one year before, never with an older one. A year the lessor did not
 * revise in time is lost (no catch-up): the next revision still spans one year, from a later
 * reference. The revision of year k takes effect on the k-th anniversary of the lease at the earliest
 * ("au terme de chaque année du contrat"), never before the lessor's request ("prend effet à
 * compter de sa demande", loi n° 2014-366), and a request more than one year after that anniversary
 * forfeits that year ("réputé avoir renoncé ... pour l'année écoulée").
 */
export function indexChainVerdict(input: {
  start_date: string;
  /** The quarter the contract names, null when none. */
  contract_quarter: string | null;
  /** The current reference: the last applied revision's new quarter, else the contract's; null: unknown. */
  current_quarter: string | null;
  index: IndexValues;
  effective_date: string;
  /** The day the lessor asked for the revision; null: on its effective date. */
  requested_on: string | null;
}): Verdict {
  const rule = "IRL_REVISION_CHAIN";
  const { index, current_quarter: current, effective_date: effective } = input;
  const requested = input.requested_on ?? effective;
  const refuse = (message: string, field: string, detail: string, ref = ART_17_1) =>
    verdict(rule, "FAIL", `${message} (${ref})`, ref, { errors: [{ field, message: detail }] });
  if (index.type !== "IRL") return verdict(rule, "NOT_APPLICABLE", "Not an IRL revision", ART_17_1);
  if (current !== null && index.reference_quarter < current)
    return refuse(
      `Each applied revision becomes the reference of the next: the reference quarter is now ${current}`,
      "index.reference_quarter",
      `${index.reference_quarter} is before the current reference ${current}`,
    );
  if (quartersBetween(index.reference_quarter, index.new_quarter) !== 4)
    return refuse(
      "A revision compares the IRL of a quarter with that of the same quarter one year before",
      "index.new_quarter",
      `${index.new_quarter} is not 4 quarters after the reference ${index.reference_quarter}: expected ${quarterPlus(index.reference_quarter, 4)}`,
    );
  const year =
    input.contract_quarter === null
      ? null
      : Math.max(1, Math.floor(quartersBetween(input.contract_quarter, index.new_quarter) / 4));
  const anniversary = addMonths(input.start_date, 12 * (year ?? 1));
  const details = { anniversary, requested_on: requested };
  if (effective < anniversary)
    return verdict(
      rule,
      "FAIL",
      `The revision of year ${year ?? 1} of the contract takes effect on its anniversary ${anniversary} at the earliest (${ART_17_1})`,
      ART_17_1,
      { ...details, errors: [{ field: "effective_date", message: `${effective} is before ${anniversary}` }] },
    );
  if (effective < requested)
    return verdict(
      rule,
      "FAIL",
      `A revision takes effect from the lessor's request, never before it (${ART_17_1}, ${LOI_2014_366})`,
      `${ART_17_1}; ${LOI_2014_366}`,
      {
        ...details,
        errors: [{ field: "effective_date", message: `${effective} is before the request of ${requested}` }],
      },
    );
  const lastDay = addMonths(anniversary, 12);
  if (requested > lastDay)
    return verdict(
      rule,
      "FAIL",
      `A lessor who does not ask for the revision within one year of ${anniversary} has renounced it for that year (${ART_17_1}, ${LOI_2014_366})`,
      `${ART_17_1}; ${LOI_2014_366}`,
      {
        ...details,
        last_request_day: lastDay,
        errors: [
          {
            field: input.requested_on === null ? "effective_date" : "requested_on",
            message: `Asked on ${requested}, after ${lastDay}: the revision of ${index.new_quarter} is forfeited`,
          },
        ],
      },
    );
  return verdict(
    rule,
    "PASS",
    `The revision follows the reference ${index.reference_quarter} (${ART_17_1})`,
    ART_17_1,
    details,
  );
}

/** Loi n° 2021-1104 art. 159: applies to contracts concluded, renewed or tacitly renewed from this day. */
export const FREEZE_FROM = "2022-08-24";
/** Overseas departments (src/law/overseas.ts): from 2024-07-01. */
export const OVERSEAS_FREEZE_FROM = "2024-07-01";
const FREEZE = `${LOI_89}, art. 17-1 III and 17-2 (loi n° 2021-1104, art. 159)`;

export interface DpeOn {
  energy_label: string | null;
  valid_until: string | null;
  /** The day it was made: with no stated end, it is valid until the day before its 10th anniversary. */
  diagnosis_date?: string | null;
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
  const end = dpe?.valid_until ?? (dpe?.diagnosis_date ? dpeValidUntil(dpe.diagnosis_date, null) : null);
  if (dpe !== null && end !== null && end < input.effective_date)
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
          message: `Rent ${euros(cents(input.new_rent))} is above the current ${euros(cents(input.current_rent))} while the estate's DPE on ${input.effective_date} is ${dpe.energy_label} (valid until ${end ?? "no stated end"})`,
        },
      ],
    },
  );
}

/**
 * The rent control experiment of loi ELAN n° 2018-1021 art. 140 lasts eight years from the loi's
 * publication (JO of 2018-11-24; five years, prolonged three by loi 3DS n° 2022-217 art. 85): it
 * ends in November 2026. The sources looked up give its last day as 23, 24 or 25 November (from
 * the loi's date, its publication or its entry into force), so it is confirmed for leases concluded
 * up to 2026-11-23 only. No text carrying it on is confirmed (a proposition de loi passed a first
 * reading at the Assemblée nationale on 2025-12-11): a lease concluded later is judged UNKNOWN
 * (docs/compliance.md).
 */
export const RENT_CONTROL_EXPERIMENT_UNTIL = "2026-11-23";
/** The last day any source gives the experiment: between the two, the end is not confirmed. */
export const RENT_CONTROL_EXPERIMENT_LATEST_END = "2026-11-25";

/** Why rent control cannot be judged on a lease concluded on `start` (null: it can). */
export function rentControlLapse(start: string): string | null {
  if (start <= RENT_CONTROL_EXPERIMENT_UNTIL) return null;
  if (start <= RENT_CONTROL_EXPERIMENT_LATEST_END)
    return `The rent control experiment ends in November 2026, eight years from the publication of loi n° 2018-1021 (loi n° 2022-217 art. 85); whether it still covers a lease concluded on ${start} is not confirmed (its last day is given as 23, 24 or 25 November 2026)`;
  return `The rent control experiment of loi n° 2018-1021 art. 140 ended in November 2026 (loi n° 2022-217 art. 85) and no text carrying it on is confirmed: a lease concluded on ${start} cannot be judged against reference rents`;
}

const ART_17_1_II = `${LOI_89}, art. 17-1 II`;

/**
 * A rent increase after improvement works (art. 17-1 II): only when the parties agreed, by an
 * express clause of the contract or of an amendment, on works the lessor has carried out, and never
 * on housing classed F or G (art. 17-1 III).
 */
export function worksIncreaseVerdict(input: {
  /** An express clause of the contract or an amendment fixes the works and the increase. */
  agreed_by_clause: boolean;
  works_completed: boolean;
  energy_label: string | null;
}): Verdict {
  const rule = "WORKS_INCREASE";
  if (input.energy_label === "F" || input.energy_label === "G")
    return verdict(
      rule,
      "FAIL",
      `No increase for works on housing classed ${input.energy_label} (${LOI_89}, art. 17-1 III)`,
      `${LOI_89}, art. 17-1 III`,
      {
        errors: [{ field: "rent_amount", message: `Housing classed ${input.energy_label}` }],
      },
    );
  if (!input.agreed_by_clause)
    return verdict(
      rule,
      "FAIL",
      `A rent increase for works needs an express clause of the contract or an amendment (${ART_17_1_II})`,
      ART_17_1_II,
      {
        errors: [{ field: "reason", message: "No clause agreeing on the works and the increase" }],
      },
    );
  if (!input.works_completed)
    return verdict(rule, "FAIL", `The increase follows the works' completion (${ART_17_1_II})`, ART_17_1_II, {
      errors: [{ field: "effective_date", message: "The agreed works are not completed" }],
    });
  return verdict(
    rule,
    "PASS",
    `The increase agreed for the completed works applies (${ART_17_1_II})`,
    ART_17_1_II,
  );
}

const ART_17_2 = `${LOI_89}, art. 17-2`;
const DECREE_ART_5 = "décret n° 2017-1198 du 27 juillet 2017, art. 5";

/**
 * The re-evaluation of a manifestly under-valued rent at the renewal of an unfurnished lease
 * (art. 17-2): proposed at least six months before the term (by `lastDayBefore`), never on housing
 * classed F or G for contracts from 2022-08-24 (loi n° 2021-1104 art. 159), at most the
 * neighbourhood's rent, and in a high-demand zone at most half the difference between it and the
 * current rent (décret 2017-1198 art. 5, within the period its renewals cover). The increase applies
 * by thirds over a renewal under six years, by sixths over one of six, and by sixths whenever it is
 * above 10 % of the rent on a renewal under six years: `details.steps` are the rents year by year.
 */
export function reevaluationVerdict(input: {
  lease_type: LeaseType;
  /** The term the renewal follows. */
  term: string;
  proposed_on: string;
  current_rent: number;
  proposed_rent: number;
  /** The representative neighbourhood rent the references give. */
  neighbourhood_rent: number;
  high_demand_zone: boolean;
  /** The DPE label valid on the renewal; null: none. */
  energy_label: string | null;
  /** The renewed contract's length. */
  renewal_months: number;
  /** The last day the re-letting décret's renewals cover (decrees bound the zone cap). */
  decree_until: string;
}): Verdict {
  const rule = "RENT_REEVALUATION";
  const ref = input.high_demand_zone ? `${ART_17_2}; ${DECREE_ART_5}` : ART_17_2;
  const refuse = (message: string, field: string, detail: string, law = ref) =>
    verdict(rule, "FAIL", `${message} (${law})`, law, { errors: [{ field, message: detail }] });
  if (input.lease_type !== "UNFURNISHED")
    return verdict(
      rule,
      "NOT_APPLICABLE",
      `Art. 17-2 governs unfurnished leases, not a ${input.lease_type} one`,
      ART_17_2,
    );
  const renewal = addDays(input.term, 1);
  if ((input.energy_label === "F" || input.energy_label === "G") && renewal >= FREEZE_FROM)
    return refuse(
      `No re-evaluation of the rent of housing classed ${input.energy_label}`,
      "rent_amount",
      `Housing classed ${input.energy_label}`,
      FREEZE,
    );
  const lastDay = lastDayBefore(input.term, 6);
  if (input.proposed_on > lastDay)
    return refuse(
      "The new rent is proposed at least six months before the term",
      "proposed_on",
      `Proposed ${input.proposed_on}: for the term ${input.term} by ${lastDay}`,
    );
  const current = BigInt(cents(input.current_rent));
  const neighbourhood = BigInt(cents(input.neighbourhood_rent));
  if (neighbourhood <= current)
    return refuse(
      "Only a manifestly under-valued rent is re-evaluated",
      "neighbourhood_rent",
      `The neighbourhood's ${euros(neighbourhood)} is not above the rent ${euros(current)}`,
    );
  // Half the difference, rounded down to the cent, in a high-demand zone while the décret covers it.
  const zoneLapsed = input.high_demand_zone && renewal > input.decree_until;
  const cap =
    input.high_demand_zone && !zoneLapsed ? current + (neighbourhood - current) / 2n : neighbourhood;
  const proposed = BigInt(cents(input.proposed_rent));
  if (proposed > cap)
    return refuse(
      input.high_demand_zone
        ? "In a high-demand zone the re-evaluated rent rises by at most half the difference with the neighbourhood's"
        : "The re-evaluated rent is at most the neighbourhood's",
      "rent_amount",
      `${euros(proposed)} is above ${euros(cap)}`,
    );
  if (zoneLapsed)
    return verdict(
      rule,
      "UNKNOWN",
      `Within the neighbourhood's rent; in a high-demand zone the cap of ${DECREE_ART_5} is renewed yearly and no renewal covering ${renewal} is recorded`,
      ref,
      { max_rent: euros(cap) },
    );
  const increase = proposed - current;
  const parts = input.renewal_months >= 72 || increase * 10n > current ? 6n : 3n;
  const steps = Array.from({ length: Number(parts) }, (_, i) =>
    euros(current + (increase * BigInt(i + 1)) / parts),
  );
  return verdict(
    rule,
    "PASS",
    `The re-evaluation applies by ${parts === 6n ? "sixths" : "thirds"}, year by year (${ref})`,
    ref,
    {
      max_rent: euros(cap),
      steps,
    },
  );
}

/** How many days after the anniversary a revision letter the service missed is still sent. */
export const REVISION_LETTER_LATE_DAYS = 7;

/**
 * The lease's latest anniversary on or before `today` (loi n° 89-462 art. 17-1 I: failing a date
 * agreed, the rent is revised each year on the anniversary of the lease; the revision takes effect
 * from the request) and its rank (1 for the first); null before the first.
 */
export function latestAnniversary(start_date: string, today: string): { on: string; year: number } | null {
  let year = Number(today.slice(0, 4)) - Number(start_date.slice(0, 4));
  while (year >= 1 && addYears(start_date, year) > today) year--;
  return year >= 1 ? { on: addYears(start_date, year), year } : null;
}
