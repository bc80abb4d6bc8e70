import type { LeaseType, RentIndex } from "../../events/leases.ts";
import type { ReferenceRent } from "../../events/rentRegulation.ts";
import { ApiError, type ErrorDetail } from "../../platform/errors.ts";
import { constructionPeriodOf, referenceRentFor } from "../../queries/rentRegulation.ts";
import { cents, checkDepositCap, checkDpeFreeze, checkIndexCap, euros } from "./rules.ts";

/**
 * The compliance engine of a lease (docs/compliance.md): pure functions of facts read beforehand.
 * Where a rule also guards a command (deposit cap, IRL cap, F/G freeze) the check runs the very
 * function of rules.ts that answers 422 there, so both always agree.
 */

export type CheckStatus = "PASS" | "FAIL" | "UNKNOWN" | "NOT_APPLICABLE";
export type ComplianceStatus = "COMPLIANT" | "NON_COMPLIANT" | "UNKNOWN";

export interface ComplianceCheck {
  rule: string;
  status: CheckStatus;
  message: string;
  legal_reference: string;
  details: Record<string, unknown>;
}

export interface ComplianceResult {
  lease_id: string;
  status: ComplianceStatus;
  checked_at: string;
  checks: ComplianceCheck[];
}

export interface DpeOnRecord {
  energy_label: string;
  diagnosis_date: string;
  /** The legal end of validity (src/events/energyDiagnoses.ts legalValidUntil). */
  valid_until: string;
}

export interface RentChange {
  effective_date: string;
  rent_amount: number;
  previous_rent_amount: number;
  reason: string;
  index: RentIndex | null;
  /** The DPE in force on effective_date, for the F/G freeze. */
  dpe: DpeOnRecord | null;
}

/** Everything the checks compare, read from the read models by the route. */
export interface ComplianceFacts {
  lease: {
    id: string;
    lease_type: LeaseType;
    status: string;
    start_date: string;
    rent_amount: number;
    deposit_amount: number | null;
  };
  /** The day checked (Europe/Paris), YYYY-MM-DD. */
  on: string;
  estate: { area: number | null; rooms: number | null; construction_year: number | null };
  /** The DPE valid on the lease start, null when none. */
  dpe_at_start: DpeOnRecord | null;
  /** The newest DPE on record made on or before the start, valid or not (tells "expired" from "none"). */
  latest_dpe_before_start: DpeOnRecord | null;
  /** The DPE valid on `on`. */
  dpe_on: DpeOnRecord | null;
  /** null: the estate has no rent regulation recorded. */
  regulation: {
    high_demand_zone: boolean | null;
    reference_rents: ReferenceRent[];
    effective_from: string | null;
  } | null;
  previous_lease: { id: string; rent_amount: number; ended_on: string | null } | null;
  rent_changes: RentChange[];
}

const LOI_89 = "Loi n° 89-462 du 6 juillet 1989";
/** Leases outside loi 89-462 (commercial, professional, parking): its rules do not apply. */
const RESIDENTIAL: readonly LeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY", "STUDENT"];
const FURNISHED: readonly LeaseType[] = ["FURNISHED", "MOBILITY", "STUDENT"];
/** Loi n° 2021-1104 art. 159 applies to leases concluded, renewed or tacitly renewed from this day. */
export const FREEZE_FROM = "2022-08-24";

const check = (
  rule: string,
  status: CheckStatus,
  message: string,
  legal_reference: string,
  details: Record<string, unknown> = {},
): ComplianceCheck => ({ rule, status, message, legal_reference, details });

/** Runs a rules.ts guard: null when it passes, its 422 message and details when it refuses. */
function refusalOf(guard: () => void): { message: string; details: ErrorDetail[] } | null {
  try {
    guard();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return { message: error.message, details: error.details ?? [] };
    throw error;
  }
}

const DEPOSIT_ARTICLE: Partial<Record<LeaseType, string>> = {
  UNFURNISHED: `${LOI_89}, art. 22`,
  FURNISHED: `${LOI_89}, art. 25-6`,
  STUDENT: `${LOI_89}, art. 25-6`,
  MOBILITY: `${LOI_89}, art. 25-13`,
};

export function depositCapCheck(facts: ComplianceFacts): ComplianceCheck {
  const { lease } = facts;
  const article = DEPOSIT_ARTICLE[lease.lease_type];
  const rule = "DEPOSIT_CAP";
  if (!article) {
    return check(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside loi n° 89-462`, LOI_89);
  }
  const details = { deposit_amount: lease.deposit_amount, rent_amount: lease.rent_amount };
  if (lease.deposit_amount === null) {
    return check(rule, "PASS", "No deposit is required", article, details);
  }
  const refused = refusalOf(() => checkDepositCap(lease));
  if (refused) return check(rule, "FAIL", refused.message, article, { ...details, errors: refused.details });
  return check(rule, "PASS", `The deposit is within the cap of ${article}`, article, details);
}

/** IRL quarters published with the 3.5 % ceiling of loi n° 2022-1158 art. 12 (used as published). */
const capped2022 = (q: string) => q >= "2022-Q3" && q <= "2024-Q1";

export function irlRevisionCapCheck(facts: ComplianceFacts): ComplianceCheck {
  const article = `${LOI_89}, art. 17-1 I`;
  const rule = "IRL_REVISION_CAP";
  const revisions = facts.rent_changes.filter((c) => c.reason === "INDEX_REVISION" && c.index);
  if (revisions.length === 0) {
    return check(rule, "NOT_APPLICABLE", "No index revision was applied to this lease", article);
  }
  const compared = revisions.map((c) => {
    const index = c.index as RentIndex;
    const refused = refusalOf(() =>
      checkIndexCap({
        current_rent: c.previous_rent_amount,
        new_rent: c.rent_amount,
        reference_value: index.reference_value,
        new_value: index.new_value,
      }),
    );
    return {
      effective_date: c.effective_date,
      previous_rent: c.previous_rent_amount,
      new_rent: c.rent_amount,
      reference: { quarter: index.reference_quarter, value: index.reference_value },
      new: { quarter: index.new_quarter, value: index.new_value },
      passes: refused === null,
      error: refused?.details[0]?.message ?? null,
    };
  });
  const note = revisions.some((c) => capped2022((c.index as RentIndex).new_quarter))
    ? " IRL values of 2022-Q3 to 2024-Q1 are used as published: they already carry the 3.5 % ceiling of loi n° 2022-1158 du 16 août 2022, art. 12."
    : "";
  const failed = compared.filter((c) => !c.passes);
  const ref = note ? `${article}; loi n° 2022-1158, art. 12` : article;
  if (failed.length > 0) {
    return check(
      rule,
      "FAIL",
      `${failed.length} index revision(s) raised the rent above rent × new IRL / reference IRL (${article}).${note}`,
      ref,
      { revisions: compared },
    );
  }
  return check(rule, "PASS", `Every index revision is within the IRL cap (${article}).${note}`, ref, {
    revisions: compared,
  });
}

const isFOrG = (dpe: DpeOnRecord | null) =>
  dpe !== null && (dpe.energy_label === "F" || dpe.energy_label === "G");

/**
 * No revision, increase or re-evaluation for housing classed F or G (art. 17-1 and 17-2 as amended by
 * loi n° 2021-1104 art. 159), and on a new letting no rent above the previous tenant's (art. 17),
 * for leases concluded or renewed since 2022-08-24.
 */
export function dpeRentFreezeCheck(facts: ComplianceFacts): ComplianceCheck {
  const article = `${LOI_89}, art. 17, 17-1 and 17-2 (loi n° 2021-1104, art. 159)`;
  const rule = "DPE_F_G_RENT_FREEZE";
  if (!RESIDENTIAL.includes(facts.lease.lease_type)) {
    return check(
      rule,
      "NOT_APPLICABLE",
      `A ${facts.lease.lease_type} lease is outside loi n° 89-462`,
      article,
    );
  }
  const increases: { effective_date: string; from: number; to: number; dpe: DpeOnRecord | null }[] =
    facts.rent_changes
      .filter((c) => c.effective_date >= FREEZE_FROM && cents(c.rent_amount) > cents(c.previous_rent_amount))
      .map((c) => ({
        effective_date: c.effective_date,
        from: c.previous_rent_amount,
        to: c.rent_amount,
        dpe: c.dpe,
      }));
  const initialRent = facts.rent_changes[0]?.previous_rent_amount ?? facts.lease.rent_amount;
  if (facts.previous_lease && facts.lease.start_date >= FREEZE_FROM) {
    increases.push({
      effective_date: facts.lease.start_date,
      from: facts.previous_lease.rent_amount,
      to: initialRent,
      dpe: facts.dpe_at_start,
    });
  }
  const relevant = increases.filter((i) => cents(i.to) > cents(i.from));
  if (relevant.length === 0) {
    return check(rule, "NOT_APPLICABLE", `No rent increase since ${FREEZE_FROM} to check`, article);
  }
  const unknown = relevant.filter((i) => i.dpe === null);
  const failed = relevant.flatMap((i) => {
    const refused = refusalOf(() =>
      checkDpeFreeze({ current_rent: i.from, new_rent: i.to, effective_date: i.effective_date, dpe: i.dpe }),
    );
    return refused ? [{ ...i, error: refused.message }] : [];
  });
  if (failed.length > 0) {
    return check(rule, "FAIL", failed[0].error, article, { increases: relevant, refused: failed });
  }
  if (unknown.length > 0) {
    return check(
      rule,
      "UNKNOWN",
      `No DPE was valid on ${unknown.map((i) => i.effective_date).join(", ")}: whether the rent could rise is unknown`,
      article,
      { increases: relevant },
    );
  }
  return check(rule, "PASS", "No rent increase on housing classed F or G", article, {
    increases: relevant.filter((i) => !isFOrG(i.dpe)),
  });
}

/** Rent control (loi ELAN n° 2018-1021 art. 140): rent per m² at most the increased reference rent. */
export function rentControlCheck(facts: ComplianceFacts): ComplianceCheck {
  const article = "Loi n° 2018-1021 du 23 novembre 2018 (ELAN), art. 140";
  const rule = "RENT_CONTROL";
  const { lease, estate, regulation } = facts;
  if (!RESIDENTIAL.includes(lease.lease_type)) {
    return check(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside rent control`, article);
  }
  if (!regulation || regulation.reference_rents.length === 0) {
    return check(rule, "UNKNOWN", "No reference rents are recorded for the estate or its place", article);
  }
  if (regulation.effective_from && lease.start_date < regulation.effective_from) {
    return check(
      rule,
      "NOT_APPLICABLE",
      `The lease started before the reference rents apply (${regulation.effective_from})`,
      article,
    );
  }
  const missing = [
    estate.area ? null : "area",
    estate.rooms ? null : "number_of_room",
    estate.construction_year ? null : "construction_date",
  ].filter((m) => m !== null);
  if (missing.length > 0) {
    return check(
      rule,
      "UNKNOWN",
      `The estate's ${missing.join(", ")} is unknown: no reference rent can be chosen`,
      article,
    );
  }
  const dwelling = {
    rooms: estate.rooms as number,
    construction_period: constructionPeriodOf(estate.construction_year as number),
    furnished: FURNISHED.includes(lease.lease_type),
  };
  const line = referenceRentFor(regulation, dwelling);
  if (!line) {
    return check(rule, "UNKNOWN", "The order has no reference rent for this dwelling", article, { dwelling });
  }
  const initialRent = facts.rent_changes[0]?.previous_rent_amount ?? lease.rent_amount;
  const area = estate.area as number;
  // rent ≤ increased reference × area, exactly: in cents × hundredths of m².
  const rent = BigInt(cents(initialRent)) * 100n;
  const cap = BigInt(cents(line.increased_reference)) * BigInt(Math.round(area * 100));
  const details = {
    rent_amount: initialRent,
    area,
    rent_per_m2: Math.round((initialRent / area) * 100) / 100,
    reference: line.reference,
    increased_reference: line.increased_reference,
    max_rent: euros(cap / 100n),
    dwelling,
  };
  if (rent > cap) {
    return check(
      rule,
      "FAIL",
      `Rent ${euros(cents(initialRent))} is above the increased reference rent ${line.increased_reference} €/m² × ${area} m² = ${euros(cap / 100n)} (${article})`,
      article,
      details,
    );
  }
  return check(rule, "PASS", `Rent is within the increased reference rent (${article})`, article, details);
}

const RELETTING = "Décret n° 2017-1198 du 27 juillet 2017 as renewed yearly; loi n° 89-462 art. 18";

/**
 * Re-letting in a high-demand zone: the new rent may not exceed the previous tenant's last rent
 * (décret 2017-1198 art. 3). Not checked: the IRL uplift allowed when no revision happened in the
 * last 12 months and the exceptions of art. 4-5 (works, under-valued rent): docs/compliance.md.
 */
export function relettingCapCheck(facts: ComplianceFacts): ComplianceCheck {
  const rule = "RELETTING_CAP";
  const { lease, regulation, previous_lease: previous } = facts;
  if (!RESIDENTIAL.includes(lease.lease_type)) {
    return check(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside loi n° 89-462`, RELETTING);
  }
  if (!regulation || regulation.high_demand_zone === null) {
    return check(rule, "UNKNOWN", "Whether the estate is in a high-demand zone is not recorded", RELETTING);
  }
  if (!regulation.high_demand_zone) {
    return check(rule, "NOT_APPLICABLE", "The estate is not in a high-demand zone", RELETTING);
  }
  if (!previous) {
    return check(rule, "NOT_APPLICABLE", "First letting of the estate (décret 2017-1198 art. 2)", RELETTING);
  }
  if (previous.ended_on && lease.start_date > addMonths(previous.ended_on, 18)) {
    return check(
      rule,
      "NOT_APPLICABLE",
      "The estate was vacant more than 18 months (décret 2017-1198 art. 2)",
      RELETTING,
      { previous_lease_id: previous.id, previous_ended_on: previous.ended_on },
    );
  }
  const initialRent = facts.rent_changes[0]?.previous_rent_amount ?? lease.rent_amount;
  const details = {
    rent_amount: initialRent,
    previous_lease_id: previous.id,
    previous_rent_amount: previous.rent_amount,
  };
  if (cents(initialRent) > cents(previous.rent_amount)) {
    return check(
      rule,
      "FAIL",
      `New rent ${euros(cents(initialRent))} exceeds the previous tenant's last rent ${euros(cents(previous.rent_amount))} (décret n° 2017-1198 art. 3)`,
      RELETTING,
      details,
    );
  }
  return check(
    rule,
    "PASS",
    "The new rent does not exceed the previous tenant's last rent",
    RELETTING,
    details,
  );
}

/** The day `months` after a YYYY-MM-DD day (the last day of a shorter month). */
function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const total = y * 12 + (m - 1) + months;
  const last = new Date(Date.UTC(Math.floor(total / 12), (total % 12) + 1, 0)).getUTCDate();
  const mm = String((total % 12) + 1).padStart(2, "0");
  return `${Math.floor(total / 12)}-${mm}-${String(Math.min(d, last)).padStart(2, "0")}`;
}

const DPE_ANNEX = `${LOI_89}, art. 3-3; code de la construction et de l'habitation, art. L. 126-26`;

/** A DPE valid on the start day must be annexed to the lease. */
export function dpeValidAtStartCheck(facts: ComplianceFacts): ComplianceCheck {
  const rule = "DPE_VALID_AT_START";
  const start = facts.lease.start_date;
  if (facts.dpe_at_start) {
    return check(rule, "PASS", `A DPE valid on ${start} covers the estate`, DPE_ANNEX, {
      dpe: facts.dpe_at_start,
    });
  }
  const latest = facts.latest_dpe_before_start;
  if (latest) {
    return check(
      rule,
      "FAIL",
      `The estate's DPE was valid until ${latest.valid_until}, before the lease start ${start}`,
      DPE_ANNEX,
      { dpe: latest, start_date: start },
    );
  }
  return check(rule, "UNKNOWN", `No DPE is recorded for the estate or its place on ${start}`, DPE_ANNEX);
}

/** Decency (décret n° 2002-120 art. 3 bis as amended, loi n° 2021-1104 art. 160): labels not allowed from a date. */
export const DECENCY_CALENDAR: readonly { label: string; from: string }[] = [
  { label: "G", from: "2025-01-01" },
  { label: "F", from: "2028-01-01" },
  { label: "E", from: "2034-01-01" },
];
const DECENCY = `${LOI_89}, art. 6; décret n° 2002-120 art. 3 bis (loi n° 2021-1104, art. 160)`;

export function decencyCalendarCheck(facts: ComplianceFacts): ComplianceCheck {
  const rule = "DPE_DECENCY_CALENDAR";
  if (!RESIDENTIAL.includes(facts.lease.lease_type)) {
    return check(
      rule,
      "NOT_APPLICABLE",
      `A ${facts.lease.lease_type} lease is outside loi n° 89-462`,
      DECENCY,
    );
  }
  if (["TERMINATED", "EXPIRED"].includes(facts.lease.status)) {
    return check(rule, "NOT_APPLICABLE", "The lease has ended", DECENCY);
  }
  const dpe = facts.dpe_on;
  if (!dpe) return check(rule, "UNKNOWN", `No DPE is valid on ${facts.on}`, DECENCY);
  const step = DECENCY_CALENDAR.find((s) => s.label === dpe.energy_label);
  const details = { energy_label: dpe.energy_label, on: facts.on, indecent_from: step?.from ?? null };
  if (step && facts.on >= step.from) {
    return check(
      rule,
      "FAIL",
      `Housing classed ${dpe.energy_label} is not decent from ${step.from} (${DECENCY})`,
      DECENCY,
      details,
    );
  }
  const upcoming = step ? `; it will not be from ${step.from}` : "";
  return check(
    rule,
    "PASS",
    `Housing classed ${dpe.energy_label} is decent on ${facts.on}${upcoming}`,
    DECENCY,
    details,
  );
}

export const COMPLIANCE_RULES = [
  depositCapCheck,
  irlRevisionCapCheck,
  dpeRentFreezeCheck,
  rentControlCheck,
  relettingCapCheck,
  dpeValidAtStartCheck,
  decencyCalendarCheck,
] as const;

/** NON_COMPLIANT if any FAIL, else UNKNOWN if any UNKNOWN, else COMPLIANT. */
export function overallStatus(checks: readonly ComplianceCheck[]): ComplianceStatus {
  if (checks.some((c) => c.status === "FAIL")) return "NON_COMPLIANT";
  if (checks.some((c) => c.status === "UNKNOWN")) return "UNKNOWN";
  return "COMPLIANT";
}

export function evaluateCompliance(facts: ComplianceFacts, checkedAt: string): ComplianceResult {
  const checks = COMPLIANCE_RULES.map((rule) => rule(facts));
  return { lease_id: facts.lease.id, status: overallStatus(checks), checked_at: checkedAt, checks };
}
