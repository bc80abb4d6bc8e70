import type { LeaseType, RentIndex } from "../../events/leases.ts";
import type { ReferenceRent } from "../../events/rentRegulation.ts";
import { handoverDocumentsVerdict } from "../../law/annexes.ts";
import { addMonths } from "../../law/calendar.ts";
import { depositVerdict } from "../../law/deposit.ts";
import { decencyVerdict, ENERGY_LABELS, labelScaleOn, SMALL_DWELLING_SCALE_FROM } from "../../law/dpe.ts";
import { finalEnergyDecencyVerdict } from "../../law/finalEnergy.ts";
import { furnishedInventoryVerdict } from "../../law/furnishedInventory.ts";
import { guidanceVerdicts, type TenantIncome } from "../../law/guidance.ts";
import { furnished, type LessorKind, periodStartOn, underLoi89 } from "../../law/leaseTypes.ts";
import { cents, euros } from "../../law/money.ts";
import { overseasIrlShieldVerdict } from "../../law/overseas.ts";
import {
  FREEZE_FROM,
  IRL_CAPPED_NOTE,
  indexCapCents,
  indexCapVerdict,
  indexChainVerdict,
  indexRevisionVerdict,
  irlCapped,
  irlValuesVerdict,
  rentControlLapse,
  rentFreezeVerdict,
} from "../../law/rent.ts";
import { rentComplementVerdict } from "../../law/rentComplement.ts";
import { type Advice, type Verdict, verdict } from "../../law/verdict.ts";
import {
  constructionPeriodOf,
  type IrlValue,
  latestIrlOn,
  referenceRentFor,
} from "../../queries/rentRegulation.ts";

/**
 * The compliance report of a lease (docs/compliance.md): the verdicts of the law (src/law) on facts
 * read beforehand. Where a rule also guards a command (deposit cap, IRL cap, F/G freeze) the report
 * lists the very verdict the decider turns into a 422, so both always agree.
 */

export type CheckStatus = Advice["status"];
export type ComplianceStatus = "COMPLIANT" | "NON_COMPLIANT" | "UNKNOWN";
/** A rule's verdict, or advice (WARN: never a non-compliance). */
export type ComplianceCheck = Verdict | Advice;

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
  /** kWh/m²/year of final energy; absent or null: not recorded. */
  final_energy_consumption?: number | null;
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
    end_date: string | null;
    duration_months: number | null;
    rent_amount: number;
    deposit_amount: number | null;
    rent_frequency: string | null;
    payment_terms: string | null;
    lessor: LessorKind;
    /** The IRL quarter the contract names (art. 17-1 I); absent or null: none. */
    revision_reference_quarter?: string | null;
    /** A complément de loyer and its justification (ELAN art. 140 III B); absent or null: none. */
    rent_complement?: number | null;
    rent_complement_justification?: string | null;
  };
  /** The day checked (Europe/Paris), YYYY-MM-DD. */
  on: string;
  estate: {
    area: number | null;
    rooms: number | null;
    construction_year: number | null;
    /** In an overseas department (its place's postal code 971-974, 976: src/law/overseas.ts). */
    overseas?: boolean;
  };
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
  previous_lease: {
    id: string;
    /** Its last rent. */
    rent_amount: number;
    ended_on: string | null;
    /** The IRL quarter its next revision starts from: its last revision's, else its reference quarter. */
    irl_reference_quarter: string | null;
    /** The effective date of its last index revision, null when none. */
    last_index_revision_on: string | null;
  } | null;
  rent_changes: RentChange[];
  /** Every IRL value known (platform data). */
  irl: IrlValue[];
  /**
   * What the landlord states for the exceptions of décret 2017-1198 art. 4 (works since the previous
   * lease, the neighbourhood's rent for a manifestly under-valued one); null when nothing is stated.
   */
  reletting_claims: { works_amount: number | null; neighbourhood_rent: number | null } | null;
  /** The furniture inventory recorded for the lease (docs/moving.md); null or absent: none. */
  furniture_inventory?: { recorded_on: string; items: { item: string; quantity: number }[] } | null;
  /** The handover documents on record: a SIGNED entry report, the annexes attached (their codes). */
  handover?: { entry_report_signed: boolean; annexed: readonly string[] };
  /** The active tenants and guarantors' incomes, for the guidance (advice only); absent: not read. */
  tenants?: readonly TenantIncome[];
}

const LOI_89 = "Loi n° 89-462 du 6 juillet 1989";
const check = verdict;

/** The rent when the lease was signed: the deposit is judged on it, never revised after (art. 22). */
const initialRentOf = (facts: ComplianceFacts) =>
  facts.rent_changes[0]?.previous_rent_amount ?? facts.lease.rent_amount;

/** The base rent at signing: the rent called less any complément de loyer (ELAN art. 140 III B). */
const baseRentOf = (facts: ComplianceFacts) =>
  (cents(initialRentOf(facts)) - cents(facts.lease.rent_complement ?? 0)) / 100;

export function depositCapCheck(facts: ComplianceFacts): ComplianceCheck {
  return depositVerdict({ ...facts.lease, rent_amount: initialRentOf(facts) });
}

const irlValueOf = (irl: readonly IrlValue[], quarter: string) =>
  irl.find((v) => v.quarter === quarter)?.value ?? null;

export function irlRevisionCapCheck(facts: ComplianceFacts): ComplianceCheck {
  const article = `${LOI_89}, art. 17-1 I`;
  const rule = "IRL_REVISION_CAP";
  const revisions = facts.rent_changes.filter((c) => c.reason === "INDEX_REVISION" && c.index);
  if (revisions.length === 0) {
    return check(rule, "NOT_APPLICABLE", "No index revision was applied to this lease", article);
  }
  let lastRevision: string | null = null;
  const contract = facts.lease.revision_reference_quarter ?? null;
  // Each applied revision becomes the next one's reference (art. 17-1 I).
  let reference = contract;
  const compared = revisions.map((c) => {
    const index = c.index as RentIndex;
    // The rent route's guards, in its order: the lease may be revised, INSEE's values, then the cap.
    const verdicts = [
      indexRevisionVerdict({
        lease_type: facts.lease.lease_type,
        index_type: index.type,
        effective_date: c.effective_date,
        last_index_revision_on: lastRevision,
      }),
      indexChainVerdict({
        start_date: facts.lease.start_date,
        contract_quarter: contract,
        current_quarter: reference,
        index,
        effective_date: c.effective_date,
        requested_on: null,
      }),
      irlValuesVerdict(index, {
        reference_value: irlValueOf(facts.irl, index.reference_quarter),
        new_value: irlValueOf(facts.irl, index.new_quarter),
      }),
      indexCapVerdict({
        current_rent: c.previous_rent_amount,
        new_rent: c.rent_amount,
        reference_value: index.reference_value,
        new_value: index.new_value,
      }),
      // Overseas, the shield of loi n° 2022-1158 art. 12 is 2.5 %, not the published 3.5 %.
      ...(facts.estate.overseas === true
        ? [
            overseasIrlShieldVerdict({
              current_rent: c.previous_rent_amount,
              new_rent: c.rent_amount,
              new_quarter: index.new_quarter,
            }),
          ]
        : []),
    ];
    lastRevision = c.effective_date;
    if (index.type === "IRL") reference = index.new_quarter;
    const refused = verdicts.find((v) => v.status === "FAIL");
    return {
      effective_date: c.effective_date,
      previous_rent: c.previous_rent_amount,
      new_rent: c.rent_amount,
      reference: { quarter: index.reference_quarter, value: index.reference_value },
      new: { quarter: index.new_quarter, value: index.new_value },
      passes: refused === undefined,
      error: refused ? (refused.details.errors?.[0]?.message ?? refused.message) : null,
    };
  });
  const capped = revisions.find((c) => irlCapped((c.index as RentIndex).new_quarter));
  const note = capped ? ` ${IRL_CAPPED_NOTE((capped.index as RentIndex).new_quarter)}` : "";
  const failed = compared.filter((c) => !c.passes);
  const ref = note ? `${article}; loi n° 2022-1158, art. 12` : article;
  if (failed.length > 0) {
    return check(
      rule,
      "FAIL",
      `${failed.length} index revision(s) were not allowed, used IRL values other than INSEE's or raised the rent above rent × new IRL / reference IRL (${article}): ${failed.map((c) => c.error).join("; ")}.${note}`,
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
  if (!underLoi89(facts.lease.lease_type)) {
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
  const judged = relevant.map((i) => ({
    ...i,
    verdict: rentFreezeVerdict({
      current_rent: i.from,
      new_rent: i.to,
      effective_date: i.effective_date,
      dpe: i.dpe,
      overseas: facts.estate?.overseas === true,
      // A re-letting is a new contract; a change during the lease falls in the period then in force.
      period_start:
        i.effective_date === facts.lease.start_date
          ? facts.lease.start_date
          : periodStartOn(facts.lease, i.effective_date, facts.lease.lessor),
    }),
  }));
  const failed = judged.filter((i) => i.verdict.status === "FAIL");
  if (failed.length > 0) {
    return check(rule, "FAIL", failed[0].verdict.message, article, {
      increases: relevant,
      refused: failed.map(({ verdict: v, ...i }) => ({ ...i, error: v.message })),
    });
  }
  const unknown = judged.filter((i) => i.verdict.status === "UNKNOWN");
  if (unknown.length > 0) {
    return check(
      rule,
      "UNKNOWN",
      `No DPE was valid on ${unknown.map((i) => i.effective_date).join(", ")}: whether the rent could rise is unknown`,
      article,
      { increases: relevant },
    );
  }
  return check(
    rule,
    "PASS",
    "No rent increase on housing classed F or G within a contract concluded or renewed since 2022-08-24",
    article,
    {
      increases: judged.map(({ verdict: v, ...i }) => ({ ...i, message: v.message })),
    },
  );
}

/** Rent control (loi ELAN n° 2018-1021 art. 140): rent per m² at most the increased reference rent. */
export function rentControlCheck(facts: ComplianceFacts): ComplianceCheck {
  const article = "Loi n° 2018-1021 du 23 novembre 2018 (ELAN), art. 140";
  const rule = "RENT_CONTROL";
  const { lease, estate, regulation } = facts;
  if (!underLoi89(lease.lease_type)) {
    return check(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside rent control`, article);
  }
  if (!regulation || regulation.reference_rents.length === 0) {
    return check(rule, "UNKNOWN", "No reference rents are recorded for the estate or its place", article);
  }
  const lapse = rentControlLapse(lease.start_date);
  if (lapse !== null) return check(rule, "UNKNOWN", lapse, `${article}; loi n° 2022-217, art. 85`);
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
    furnished: furnished(lease.lease_type),
  };
  const line = referenceRentFor(regulation, dwelling);
  if (!line) {
    return check(rule, "UNKNOWN", "The order has no reference rent for this dwelling", article, { dwelling });
  }
  // The rent called includes any complément de loyer: the cap applies to the base rent (art. 140 III).
  const initialRent = baseRentOf(facts);
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

/**
 * The yearly renewals of décret n° 2017-1198 (art. 18 of loi n° 89-462): the last one recorded,
 * décret n° 2025-652 du 15 juillet 2025, covers leases concluded from 2025-08-01 to 2026-07-31.
 */
export const RELETTING_DECREE = {
  from: "2017-08-01",
  until: "2026-07-31",
  latest: "décret n° 2025-652 du 15 juillet 2025",
} as const;
const RELETTING = `Décret n° 2017-1198 du 27 juillet 2017, art. 2 to 4, as renewed yearly (latest: ${RELETTING_DECREE.latest}); loi n° 89-462 art. 17, 18`;

/**
 * The re-letting cap in a high-demand zone (décret 2017-1198, docs/compliance.md):
 * - art. 3: the new rent may not exceed the previous tenant's last rent, revised by the IRL (latest
 *   index published on the start day over the previous lease's reference) when that lease had no
 *   index revision in the 12 months before the start;
 * - art. 4: above that, only works since the previous lease of at least half its last year's rent
 *   (annual rent + 15 % of their cost) or a manifestly under-valued previous rent (+ half the gap to
 *   the neighbourhood's rent) allow more: facts the caller states (`claims`), else UNKNOWN;
 * - for housing classed F or G, from 2022-08-24 (loi n° 2021-1104 art. 159, art. 17 of loi 89-462),
 *   neither the IRL uplift nor an exception: the previous rent is the cap.
 */
export function relettingCapCheck(facts: ComplianceFacts): ComplianceCheck {
  const rule = "RELETTING_CAP";
  const { lease, regulation, previous_lease: previous } = facts;
  const na = (message: string, details: Record<string, unknown> = {}) =>
    check(rule, "NOT_APPLICABLE", message, RELETTING, details);
  if (!underLoi89(lease.lease_type)) return na(`A ${lease.lease_type} lease is outside loi n° 89-462`);
  if (!regulation || regulation.high_demand_zone === null) {
    return check(rule, "UNKNOWN", "Whether the estate is in a high-demand zone is not recorded", RELETTING);
  }
  if (!regulation.high_demand_zone) return na("The estate is not in a high-demand zone");
  if (!previous) return na("First letting of the estate (décret 2017-1198 art. 2)");
  if (previous.ended_on && lease.start_date > addMonths(previous.ended_on, 18)) {
    return na("The estate was vacant more than 18 months (décret 2017-1198 art. 2)", {
      previous_lease_id: previous.id,
      previous_ended_on: previous.ended_on,
    });
  }
  if (lease.start_date < RELETTING_DECREE.from) {
    return na(`Décret 2017-1198 applies to leases concluded from ${RELETTING_DECREE.from}`);
  }
  const rent = facts.rent_changes[0]?.previous_rent_amount ?? lease.rent_amount;
  const details: Record<string, unknown> = {
    rent_amount: rent,
    previous_lease_id: previous.id,
    previous_rent_amount: previous.rent_amount,
  };
  // Applied only within the periods its yearly renewals cover: after the last, neither PASS nor FAIL.
  if (lease.start_date > RELETTING_DECREE.until) {
    return check(
      rule,
      "UNKNOWN",
      `${RELETTING_DECREE.latest} covers leases concluded up to ${RELETTING_DECREE.until}; no later renewal of décret 2017-1198 is recorded`,
      RELETTING,
      details,
    );
  }
  const over = (cap: bigint) => BigInt(cents(rent)) > cap;
  const previousCap = BigInt(cents(previous.rent_amount));
  if (!over(previousCap)) {
    return check(
      rule,
      "PASS",
      "The new rent does not exceed the previous tenant's last rent",
      RELETTING,
      details,
    );
  }
  if (lease.start_date >= FREEZE_FROM) {
    if (!facts.dpe_at_start) {
      return check(
        rule,
        "UNKNOWN",
        `No DPE is valid on ${lease.start_date}: whether housing classed F or G forbids any increase is unknown`,
        RELETTING,
        details,
      );
    }
    if (isFOrG(facts.dpe_at_start)) {
      return check(
        rule,
        "FAIL",
        `New rent ${euros(cents(rent))} exceeds the previous tenant's last rent ${euros(previousCap)}: housing classed ${facts.dpe_at_start.energy_label} may not be re-let higher, with no IRL uplift nor exception (loi n° 89-462 art. 17, loi n° 2021-1104 art. 159)`,
        RELETTING,
        { ...details, energy_label: facts.dpe_at_start.energy_label, max_rent: euros(previousCap) },
      );
    }
  }
  const uplift = irlUplift(facts);
  details.irl_uplift = uplift.detail;
  const art3Cap = uplift.cap;
  if (art3Cap !== null && !over(art3Cap)) {
    return check(
      rule,
      "PASS",
      `The new rent is within the previous tenant's last rent revised by the IRL, ${euros(art3Cap)} (décret 2017-1198 art. 3)`,
      RELETTING,
      { ...details, max_rent: euros(art3Cap) },
    );
  }
  const claims = facts.reletting_claims;
  if (!claims) {
    const why =
      art3Cap === null
        ? `the IRL uplift cannot be computed (${uplift.detail.reason})`
        : `it is above ${euros(art3Cap)}, the previous tenant's last rent as revised by art. 3`;
    return check(
      rule,
      "UNKNOWN",
      `New rent ${euros(cents(rent))}: ${why}; only works since the previous lease of at least half its last year's rent or a manifestly under-valued previous rent allow more (art. 4): state works_amount and neighbourhood_rent to decide`,
      RELETTING,
      details,
    );
  }
  // Art. 4 on top of the art. 3 rent (the previous rent when the uplift is unknown: a lower bound).
  const base = art3Cap ?? previousCap;
  const exceptions = relettingExceptions(previous.rent_amount, base, claims);
  const cap = base + exceptions.increase;
  const compared = { ...details, claims, exceptions: exceptions.detail, max_rent: euros(cap) };
  if (!over(cap)) {
    return check(
      rule,
      "PASS",
      `The new rent is within ${euros(cap)}, the art. 3 rent plus the increase art. 4 allows`,
      RELETTING,
      compared,
    );
  }
  if (art3Cap === null) {
    return check(
      rule,
      "UNKNOWN",
      `New rent ${euros(cents(rent))} is above ${euros(cap)} without the IRL uplift, which cannot be computed (${uplift.detail.reason})`,
      RELETTING,
      compared,
    );
  }
  return check(
    rule,
    "FAIL",
    `New rent ${euros(cents(rent))} exceeds ${euros(cap)}: the previous tenant's last rent revised by the IRL plus what art. 4 allows (décret n° 2017-1198 art. 3 and 4)`,
    RELETTING,
    compared,
  );
}

/**
 * Art. 3: the previous rent revised by the IRL when the previous lease had no index revision in
 * the 12 months before the new lease (then its last rent is the cap). cap null: not computable.
 */
function irlUplift(facts: ComplianceFacts): {
  cap: bigint | null;
  detail: Record<string, unknown> & { reason?: string };
} {
  const previous = facts.previous_lease as NonNullable<ComplianceFacts["previous_lease"]>;
  const start = facts.lease.start_date;
  const previousCap = BigInt(cents(previous.rent_amount));
  const since = addMonths(start, -12);
  if (previous.last_index_revision_on && previous.last_index_revision_on >= since) {
    return {
      cap: previousCap,
      detail: {
        applies: false,
        reason: `the previous lease was revised on ${previous.last_index_revision_on}, within the 12 months before ${start}`,
      },
    };
  }
  const refQuarter = previous.irl_reference_quarter;
  if (!refQuarter)
    return {
      cap: null,
      detail: { applies: null, reason: "the previous lease names no IRL reference quarter" },
    };
  const reference = facts.irl.find((v) => v.quarter === refQuarter);
  if (!reference) return { cap: null, detail: { applies: null, reason: `no IRL value for ${refQuarter}` } };
  const latest = latestIrlOn(facts.irl, start);
  if (!latest) return { cap: null, detail: { applies: null, reason: `no IRL published by ${start}` } };
  const revised = indexCapCents(previous.rent_amount, reference.value, latest.value);
  const cap = revised > previousCap ? revised : previousCap;
  return {
    cap,
    detail: {
      applies: true,
      reference: { quarter: reference.quarter, value: reference.value },
      new: latest,
      formula: `${euros(previousCap)} × ${latest.value.toFixed(2)} / ${reference.value.toFixed(2)} = ${euros(revised)} (rounded down to the cent)`,
    },
  };
}

/**
 * Art. 4 (décret 2017-1198): the monthly increase allowed above the art. 3 rent, the larger of
 * 1° works since the previous lease of at least half its last year's rent (12 × its last rent):
 *    the annual rent may rise by 15 % of their cost, i.e. the monthly rent by cost × 15 / 1200;
 * 2° a manifestly under-valued previous rent: half the gap between the neighbourhood's rent for a
 *    comparable dwelling and the art. 3 rent.
 */
export function relettingExceptions(
  previousRent: number,
  art3Cap: bigint,
  claims: { works_amount: number | null; neighbourhood_rent: number | null },
): { increase: bigint; detail: Record<string, unknown> } {
  const works = BigInt(cents(claims.works_amount ?? 0));
  const threshold = BigInt(cents(previousRent)) * 6n;
  const worksIncrease = works > 0n && works >= threshold ? (works * 15n) / 1200n : 0n;
  const neighbourhood = BigInt(cents(claims.neighbourhood_rent ?? 0));
  const undervaluedIncrease = neighbourhood > art3Cap ? (neighbourhood - art3Cap) / 2n : 0n;
  const increase = worksIncrease > undervaluedIncrease ? worksIncrease : undervaluedIncrease;
  return {
    increase,
    detail: {
      works: {
        amount: claims.works_amount,
        threshold: euros(threshold),
        eligible: worksIncrease > 0n,
        monthly_increase: euros(worksIncrease),
      },
      undervalued: {
        neighbourhood_rent: claims.neighbourhood_rent,
        monthly_increase: euros(undervaluedIncrease),
      },
    },
  };
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

/** Decency by energy class, the calendar applying from the contract's conclusion or renewal. */
export function decencyCalendarCheck(facts: ComplianceFacts): ComplianceCheck {
  return decencyVerdict({
    lease: facts.lease,
    lessor: facts.lease.lessor,
    on: facts.on,
    dpe: facts.dpe_on,
    overseas: facts.estate?.overseas === true,
  });
}

/**
 * Décret n° 2021-19: over 450 kWh/m²/year of final energy a dwelling of metropolitan France is not
 * decent, for a contract concluded from 2023-01-01; judged on the DPE valid at the lease start, the
 * contract's conclusion taken as its start.
 */
export function finalEnergyDecencyCheck(facts: ComplianceFacts): ComplianceCheck {
  const dpe = facts.dpe_at_start;
  return finalEnergyDecencyVerdict({
    final_energy: dpe?.final_energy_consumption ?? null,
    energy_label: dpe?.energy_label ?? null,
    class_primary_max: dpe ? classPrimaryMax(dpe, facts.estate.area) : null,
    concluded_on: facts.lease.start_date,
    overseas: facts.estate?.overseas === true,
  });
}

/**
 * The primary energy bound of a DPE's class on its scale; the small-dwelling scale (from 2024-07-01)
 * is chosen by the estate's area, the DPE's reference surface being its living area. null: class G,
 * or a recent DPE of an estate whose area is unknown.
 */
function classPrimaryMax(dpe: DpeOnRecord, area: number | null): number | null {
  const index = ENERGY_LABELS.indexOf(dpe.energy_label as (typeof ENERGY_LABELS)[number]);
  if (dpe.diagnosis_date >= SMALL_DWELLING_SCALE_FROM && area === null) return null;
  return labelScaleOn(dpe.diagnosis_date, area).energy[index] ?? null;
}

/**
 * The complément de loyer (ELAN art. 140 III B): on a base rent within the increased reference rent
 * of the dwelling (the rent control check's cap), justified, and none for a dwelling classed F or G.
 */
export function rentComplementCheck(facts: ComplianceFacts): ComplianceCheck {
  const complement = facts.lease.rent_complement ?? null;
  const control = rentControlCheck(facts);
  const cap = control.details.max_rent;
  if (complement !== null && cents(complement) > 0 && typeof cap !== "string")
    return check(
      "RENT_COMPLEMENT",
      "UNKNOWN",
      `A complément de loyer of ${euros(cents(complement))} is asked but the increased reference rent is not known: ${control.message}`,
      "loi n° 2018-1021 du 23 novembre 2018 (ELAN), art. 140 III B",
    );
  return rentComplementVerdict({
    complement,
    base_rent: baseRentOf(facts),
    increased_reference_rent: typeof cap === "string" ? Number(cap) : 0,
    justification: facts.lease.rent_complement_justification ?? null,
    energy_label: facts.dpe_at_start?.energy_label ?? null,
  });
}

/** A furnished lease's inventory holds every item of décret n° 2015-981 art. 2. */
export function furnishedInventoryCheck(facts: ComplianceFacts): ComplianceCheck {
  return furnishedInventoryVerdict({
    lease_type: facts.lease.lease_type,
    start_date: facts.lease.start_date,
    inventory: facts.furniture_inventory ?? null,
  });
}

/** The entry report and a furnished lease's inventory, drawn up at the keys' handover (art. 3-2, 25-5). */
export function handoverDocumentsCheck(facts: ComplianceFacts): ComplianceCheck {
  const annexed = new Set(facts.handover?.annexed ?? []);
  return handoverDocumentsVerdict({
    lease_type: facts.lease.lease_type,
    lease_status: facts.lease.status,
    entry_report: facts.handover?.entry_report_signed === true || annexed.has("ENTRY_CONDITION_REPORT"),
    inventory: (facts.furniture_inventory ?? null) !== null || annexed.has("INVENTORY"),
  });
}

/** SPEC's guidance, as advice: the tenants' income and the guarantors' (src/law/guidance.ts). */
export const guidanceChecks = (facts: ComplianceFacts): Advice[] =>
  guidanceVerdicts({ rent_amount: facts.lease.rent_amount, tenants: facts.tenants ?? [] });

export const COMPLIANCE_RULES = [
  depositCapCheck,
  irlRevisionCapCheck,
  dpeRentFreezeCheck,
  rentControlCheck,
  relettingCapCheck,
  dpeValidAtStartCheck,
  decencyCalendarCheck,
  finalEnergyDecencyCheck,
  rentComplementCheck,
  furnishedInventoryCheck,
  handoverDocumentsCheck,
] as const;

/** NON_COMPLIANT if any FAIL, else UNKNOWN if any UNKNOWN, else COMPLIANT. */
export function overallStatus(checks: readonly ComplianceCheck[]): ComplianceStatus {
  if (checks.some((c) => c.status === "FAIL")) return "NON_COMPLIANT";
  if (checks.some((c) => c.status === "UNKNOWN")) return "UNKNOWN";
  return "COMPLIANT";
}

export function evaluateCompliance(facts: ComplianceFacts, checkedAt: string): ComplianceResult {
  const rules = COMPLIANCE_RULES.map((rule) => rule(facts));
  // Advice is listed, never counted: the status is the rules' alone.
  const checks: ComplianceCheck[] = [...rules, ...guidanceChecks(facts)];
  return { lease_id: facts.lease.id, status: overallStatus(rules), checked_at: checkedAt, checks };
}
