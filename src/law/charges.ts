import { addDays, addMonths, addYears } from "./calendar.ts";
import { daysIn } from "./rentPeriods.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Recoverable charges and their annual regularisation (docs/charges.md). Pure: facts in, figures and
 * verdicts out, amounts in whole cents, dates YYYY-MM-DD.
 *
 * - Categories: the eight headings of the annex to décret n° 87-713 du 26 août 1987 (the limitative
 *   list of recoverable charges), and NON_RECOVERABLE for what the landlord keeps.
 * - Regularisation (loi n° 89-462 art. 23): recoverable expenses × the lease's share × days occupied /
 *   days of the period − provisions called. Each (category, key) total is split over every
 *   (estate, occupant) of the place by largest remainder, the vacant days staying with the owner,
 *   so the leases and the vacancy sum back exactly to the recoverable total.
 * - A regularisation made after the end of the calendar year following the year the charges fell
 *   due is payable in twelfths at the lessee's request (art. 23, last paragraph).
 * - A claim is barred three years after the facts (art. 7-1): an expense whose period ended more
 *   than three years before the regularisation is left out, with the reason.
 * - A flat rate is never regularised (art. 25-10 furnished, art. 25-18 bail mobilité, art. 8-1
 *   shared letting).
 */

export const DECRET_87_713 = "décret n° 87-713 du 26 août 1987, annexe";
export const ART_23 = `${LOI_89}, art. 23`;
export const ART_23_TWELFTHS = `${LOI_89}, art. 23, dernier alinéa`;
export const ART_7_1 = `${LOI_89}, art. 7-1`;
export const ART_25_10 = `${LOI_89}, art. 25-10`;
export const ART_25_18 = `${LOI_89}, art. 25-18`;

/** The eight headings of the décret's annex (I to VIII), then what is not recoverable. */
export const RECOVERABLE_CATEGORIES = [
  "ELEVATORS",
  "WATER_AND_HEATING",
  "INDIVIDUAL_INSTALLATIONS",
  "COMMON_AREAS",
  "OUTDOOR_AREAS",
  "WASTE_AND_HYGIENE",
  "MISC_EQUIPMENT",
  "TAXES_AND_FEES",
] as const;
export const CHARGE_CATEGORIES = [...RECOVERABLE_CATEGORIES, "NON_RECOVERABLE"] as const;
export type ChargeCategory = (typeof CHARGE_CATEGORIES)[number];

/** The heading of the annex each category stands for (statements name it). */
export const CATEGORY_HEADINGS: Record<ChargeCategory, string> = {
  ELEVATORS: "I. Ascenseurs et monte-charge",
  WATER_AND_HEATING: "II. Eau froide, eau chaude et chauffage collectif",
  INDIVIDUAL_INSTALLATIONS: "III. Installations individuelles",
  COMMON_AREAS: "IV. Parties communes intérieures",
  OUTDOOR_AREAS: "V. Espaces extérieurs",
  WASTE_AND_HYGIENE: "VI. Hygiène",
  MISC_EQUIPMENT: "VII. Équipements divers",
  TAXES_AND_FEES: "VIII. Impositions et redevances",
  NON_RECOVERABLE: "Non récupérable",
};

export const isRecoverable = (category: ChargeCategory) => category !== "NON_RECOVERABLE";

/**
 * Heading VIII of the décret's annex, « Impositions et redevances », names two: « Droit de bail »
 * (abolished since) aside, the « taxe ou redevance d'enlèvement des ordures ménagères » and the
 * « taxe de balayage ». Any other tax (the taxe foncière above all) is the owner's.
 */
export const RECOVERABLE_TAXES = ["TEOM", "REOM", "TAXE_BALAYAGE"] as const;
export const CHARGE_TAXES = [...RECOVERABLE_TAXES, "OTHER"] as const;
export type ChargeTax = (typeof CHARGE_TAXES)[number];
export const DECRET_87_713_VIII = `${DECRET_87_713}, VIII (impositions et redevances)`;

/** Which tax a TAXES_AND_FEES expense is: recovered only when heading VIII names it. */
export function taxVerdict(category: ChargeCategory, tax: ChargeTax | null | undefined): Verdict {
  const rule = "RECOVERABLE_TAX";
  if (category !== "TAXES_AND_FEES")
    return verdict(rule, "NOT_APPLICABLE", "Not a tax", DECRET_87_713_VIII, { category, tax: tax ?? null });
  const known = (RECOVERABLE_TAXES as readonly string[]).includes(tax ?? "");
  return verdict(
    rule,
    known ? "PASS" : "FAIL",
    known
      ? `${tax} is recoverable (${DECRET_87_713_VIII})`
      : `Only the taxe ou redevance d'enlèvement des ordures ménagères and the taxe de balayage are recoverable (${DECRET_87_713_VIII}): ${tax === "OTHER" ? "any other tax, the taxe foncière first, stays with the owner" : "the tax is not named"}`,
    DECRET_87_713_VIII,
    { category, tax: tax ?? null },
  );
}

/** Whether an expense is recovered at all: its category, and for heading VIII its tax. */
export const recoverableExpense = (e: { category: ChargeCategory; tax?: ChargeTax | null }) =>
  isRecoverable(e.category) && taxVerdict(e.category, e.tax).status !== "FAIL";

// ---------------------------------------------------------------- exact splits

/**
 * `amount` (cents, any sign) split in proportion to integer `weights` so the parts sum back to it
 * exactly: floors first, the cents left to the largest remainders (ties: the earlier part). BigInt,
 * so no float decides a cent whatever the sizes.
 */
export function splitExactly(amount: number, weights: readonly bigint[]): number[] {
  if (amount < 0) return splitExactly(-amount, weights).map((p) => (p === 0 ? 0 : -p));
  const total = weights.reduce((s, w) => s + w, 0n);
  if (weights.length === 0) return [];
  if (total <= 0n) return weights.map((_, i) => (i === 0 ? amount : 0));
  const a = BigInt(amount);
  const parts = weights.map((w) => (a * w) / total);
  const rests = weights.map((w, i) => ({ i, r: (a * w) % total }));
  let left = Number(a - parts.reduce((s, p) => s + p, 0n));
  rests.sort((x, y) => (y.r > x.r ? 1 : y.r < x.r ? -1 : x.i - y.i));
  for (const { i } of rests) {
    if (left <= 0) break;
    parts[i] += 1n;
    left -= 1;
  }
  return parts.map(Number);
}

/** A share (tantièmes, m², consumption) as an integer weight: four decimals kept. */
export const weightOf = (share: number): bigint => BigInt(Math.round(share * 10_000));

/** The later and earlier of two dates (strings: Math.max does not apply). */
const later = (a: string, b: string) => (a.localeCompare(b) >= 0 ? a : b);
const earlier = (a: string, b: string) => (a.localeCompare(b) <= 0 ? a : b);

const overlap = (a: { from: string; to: string }, b: { from: string; to: string }) => {
  const from = later(a.from, b.from);
  const to = earlier(a.to, b.to);
  return from <= to ? { from, to } : null;
};

/** The part of `amount` over [from, to] that falls in `window`, by days (exact with its complement). */
export function prorated(
  amount: number,
  period: { from: string; to: string },
  window: { from: string; to: string },
) {
  const inside = overlap(period, window);
  if (!inside) return 0;
  const days = daysIn(period.from, period.to);
  const kept = daysIn(inside.from, inside.to);
  if (kept === days) return amount;
  return splitExactly(amount, [BigInt(kept), BigInt(days - kept)])[0];
}

// ---------------------------------------------------------------- freezes

export interface Period {
  from: string;
  to: string;
}

/**
 * A charge whose period meets a frozen period may not be recorded, changed or removed: the accounts
 * of that period are closed; a correction is an adjusting entry dated after the freeze.
 */
export function freezeVerdict(period: Period, freezes: readonly Period[]): Verdict {
  const hit = freezes.find((f) => overlap(period, f));
  return hit
    ? verdict(
        "CHARGES_FREEZE",
        "FAIL",
        `The period ${period.from} to ${period.to} meets the frozen period ${hit.from} to ${hit.to}: record an adjusting entry dated after it (corrects_charge_id)`,
        "docs/charges.md, Freeze periods",
        { frozen: hit },
      )
    : verdict("CHARGES_FREEZE", "PASS", "No frozen period is touched", "docs/charges.md, Freeze periods");
}

// ---------------------------------------------------------------- rules of the regularisation

/** A flat rate is final: no complement, no regularisation. */
export function settlementVerdict(leaseType: string, settlement: "PROVISION" | "FLAT"): Verdict {
  if (settlement === "PROVISION")
    return verdict(
      "CHARGES_SETTLEMENT",
      "PASS",
      "Charges are paid by provisions, regularised once a year (art. 23)",
      ART_23,
    );
  const ref = leaseType === "MOBILITY" ? ART_25_18 : ART_25_10;
  return verdict(
    "CHARGES_SETTLEMENT",
    "FAIL",
    `The lease's charges are a flat rate, which cannot be complemented or regularised (${ref})`,
    ref,
    { errors: [{ field: "lease_id", message: `Flat-rate charges are not regularised (${ref})` }] },
  );
}

/** Barred when the regularisation is made after the third anniversary of the expense's period end. */
export function prescriptionVerdict(periodEnd: string, regularisedOn: string): Verdict {
  const barredAfter = addYears(periodEnd, 3);
  return regularisedOn > barredAfter
    ? verdict(
        "CHARGES_PRESCRIPTION",
        "FAIL",
        `Barred: more than three years since ${periodEnd} (claimable until ${barredAfter}, ${ART_7_1})`,
        ART_7_1,
        { barred_after: barredAfter },
      )
    : verdict("CHARGES_PRESCRIPTION", "PASS", `Claimable until ${barredAfter}`, ART_7_1, {
        barred_after: barredAfter,
      });
}

/**
 * Twelfths: the regularisation of charges that fell due in a year (the period's last day) made
 * after 31 December of the next year is paid in twelve monthly instalments if the lessee asks.
 */
export function twelfthsVerdict(periodEnd: string, regularisedOn: string): Verdict {
  const deadline = `${Number(periodEnd.slice(0, 4)) + 1}-12-31`;
  const late = regularisedOn > deadline;
  return verdict(
    "CHARGES_TWELFTHS",
    late ? "PASS" : "NOT_APPLICABLE",
    late
      ? `Regularised after ${deadline}: the lessee may pay the balance in twelve monthly instalments (${ART_23_TWELFTHS})`
      : `Regularised by ${deadline}: payable at once (${ART_23_TWELFTHS})`,
    ART_23_TWELFTHS,
    { deadline, instalments_allowed: late },
  );
}

// ---------------------------------------------------------------- the regularisation

export type KeyKind = "TANTIEMES" | "SURFACE" | "CONSUMPTION" | "EQUAL";

export interface DistributionKey {
  id: string;
  name: string;
  kind: KeyKind;
  shares: readonly { estate_id: string; share: number }[];
}

export interface Expense {
  id: string;
  source: "CHARGE" | "SERVICE";
  label: string;
  category: ChargeCategory;
  /** TAXES_AND_FEES: which tax (heading VIII); null or absent otherwise. */
  tax?: ChargeTax | null;
  /** Cents; an adjusting entry may be negative. */
  amount: number;
  from: string;
  to: string;
  /** null: split equally over every estate of the place. */
  key_id: string | null;
}

export interface Occupancy {
  lease_id: string;
  estate_id: string;
  from: string;
  /** null: still occupied. */
  to: string | null;
}

export interface ProvisionCall {
  period_start: string;
  period_end: string;
  /** The charges part of the call, cents. */
  charges: number;
}

export interface RegularisationFacts {
  lease_id: string;
  estate_id: string;
  lease_type: string;
  settlement: "PROVISION" | "FLAT";
  period: Period;
  regularised_on: string;
  expenses: readonly Expense[];
  keys: readonly DistributionKey[];
  /** Every estate of the place: the default key's (equal shares). */
  estate_ids: readonly string[];
  /** Every lease of the place that occupied an estate at some point. */
  occupancies: readonly Occupancy[];
  provisions: readonly ProvisionCall[];
}

export interface RegularisationLine {
  category: ChargeCategory;
  heading: string;
  key_id: string | null;
  key_name: string;
  key_kind: KeyKind;
  /** The lease's estate's share and the key's total. */
  share: number;
  total_shares: number;
  place_amount: number;
  lease_amount: number;
}

export interface Exclusion {
  expense_id: string;
  source: "CHARGE" | "SERVICE";
  label: string;
  category: ChargeCategory;
  amount: number;
  reason: string;
  legal_reference: string;
}

export interface Regularisation {
  days_of_period: number;
  days_occupied: number;
  recoverable_total: number;
  lines: RegularisationLine[];
  excluded: Exclusion[];
  lease_amount: number;
  provisions_called: number;
  /** Positive: the lessee owes it; negative: the landlord pays it back. */
  balance: number;
  instalments: { allowed: boolean; deadline: string; schedule: number[] };
  /** The part of each (category, key) total of every occupant of the place, vacancy under `null`. */
  place_split: { lease_id: string | null; estate_id: string; amount: number }[];
  verdicts: Verdict[];
}

const DEFAULT_KEY: Omit<DistributionKey, "shares"> = { id: "", name: "Parts égales (défaut)", kind: "EQUAL" };

/** Code-unit order: the same on every machine, whatever its locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Who occupies each estate of a key over the period: a unit per lease, and one for the vacant days. */
function unitsOf(key: DistributionKey, period: Period, byEstate: ReadonlyMap<string, Occupancy[]>) {
  const periodDays = daysIn(period.from, period.to);
  const units: { lease_id: string | null; estate_id: string; weight: bigint }[] = [];
  const shares = [...key.shares].sort((a, b) => byText(a.estate_id, b.estate_id));
  for (const { estate_id, share } of shares) {
    const w = weightOf(share);
    let occupied = 0;
    for (const o of byEstate.get(estate_id) ?? []) {
      const days = occupiedDays(o, period);
      if (days === 0) continue;
      occupied += days;
      units.push({ lease_id: o.lease_id, estate_id, weight: w * BigInt(days) });
    }
    units.push({ lease_id: null, estate_id, weight: w * BigInt(Math.max(0, periodDays - occupied)) });
  }
  return units;
}

/** The occupancies of each estate, in lease id order (the split's order, whoever asks). */
function occupanciesByEstate(occupancies: readonly Occupancy[]) {
  const byEstate = new Map<string, Occupancy[]>();
  for (const o of [...occupancies].sort((a, b) => byText(a.lease_id, b.lease_id)))
    byEstate.set(o.estate_id, [...(byEstate.get(o.estate_id) ?? []), o]);
  return byEstate;
}

export const occupiedDays = (o: Pick<Occupancy, "from" | "to">, period: Period) => {
  const inside = overlap({ from: o.from, to: o.to ?? "9999-12-31" }, period);
  return inside ? daysIn(inside.from, inside.to) : 0;
};

/** The regularisation of one lease's charges over `period` (art. 23). */
export function regularise(facts: RegularisationFacts): Regularisation {
  const { period, regularised_on } = facts;
  const verdicts: Verdict[] = [settlementVerdict(facts.lease_type, facts.settlement)];
  const excluded: Exclusion[] = [];
  const kept: Expense[] = [];
  for (const e of facts.expenses) {
    const amount = prorated(e.amount, e, period);
    if (!overlap(e, period) || amount === 0) continue;
    const exclude = (reason: string, legal_reference: string) =>
      excluded.push({
        expense_id: e.id,
        source: e.source,
        label: e.label,
        category: e.category,
        amount,
        reason,
        legal_reference,
      });
    if (!isRecoverable(e.category)) {
      exclude("Not a recoverable charge: absent from the limitative list of the décret", DECRET_87_713);
      continue;
    }
    const tax = taxVerdict(e.category, e.tax);
    if (tax.status === "FAIL") {
      exclude(tax.message, DECRET_87_713_VIII);
      continue;
    }
    const barred = prescriptionVerdict(e.to, regularised_on);
    if (barred.status === "FAIL") {
      exclude(barred.message, ART_7_1);
      continue;
    }
    kept.push({ ...e, amount });
  }
  const keys = new Map(facts.keys.map((k) => [k.id, k]));
  const defaultKey: DistributionKey = {
    ...DEFAULT_KEY,
    shares: facts.estate_ids.map((estate_id) => ({ estate_id, share: 1 })),
  };
  // One split per (category, key): the statement's lines, each exact.
  const groups = new Map<string, { category: ChargeCategory; key: DistributionKey; amount: number }>();
  for (const e of kept) {
    const key = (e.key_id && keys.get(e.key_id)) || defaultKey;
    const g = `${e.category}/${key.id}`;
    const group = groups.get(g) ?? { category: e.category, key, amount: 0 };
    group.amount += e.amount;
    groups.set(g, group);
  }
  const lines: RegularisationLine[] = [];
  const byEstate = occupanciesByEstate(facts.occupancies);
  const split = new Map<string, { lease_id: string | null; estate_id: string; amount: number }>();
  for (const { category, key, amount } of [...groups.values()].sort((a, b) =>
    a.category === b.category
      ? a.key.id < b.key.id
        ? -1
        : 1
      : CHARGE_CATEGORIES.indexOf(a.category) - CHARGE_CATEGORIES.indexOf(b.category),
  )) {
    const units = unitsOf(key, period, byEstate);
    const parts = splitExactly(
      amount,
      units.map((u) => u.weight),
    );
    let leaseAmount = 0;
    units.forEach((u, i) => {
      const k = `${u.lease_id ?? "vacant"}/${u.estate_id}`;
      const s = split.get(k) ?? { lease_id: u.lease_id, estate_id: u.estate_id, amount: 0 };
      s.amount += parts[i];
      split.set(k, s);
      if (u.lease_id === facts.lease_id) leaseAmount += parts[i];
    });
    const share = key.shares.find((s) => s.estate_id === facts.estate_id)?.share ?? 0;
    lines.push({
      category,
      heading: CATEGORY_HEADINGS[category],
      key_id: key.id || null,
      key_name: key.name,
      key_kind: key.kind,
      share,
      total_shares: key.shares.reduce((s, x) => s + x.share, 0),
      place_amount: amount,
      lease_amount: leaseAmount,
    });
  }
  const lease_amount = lines.reduce((s, l) => s + l.lease_amount, 0);
  const provisions_called = facts.provisions.reduce(
    (s, c) => s + prorated(c.charges, { from: c.period_start, to: c.period_end }, period),
    0,
  );
  const balance = lease_amount - provisions_called;
  const twelfths = twelfthsVerdict(period.to, regularised_on);
  verdicts.push(twelfths);
  const allowed = twelfths.details.instalments_allowed === true;
  const own = facts.occupancies.filter((o) => o.lease_id === facts.lease_id);
  return {
    days_of_period: daysIn(period.from, period.to),
    days_occupied: own.reduce((s, o) => s + occupiedDays(o, period), 0),
    recoverable_total: kept.reduce((s, e) => s + e.amount, 0),
    lines,
    excluded,
    lease_amount,
    provisions_called,
    balance,
    instalments: {
      allowed,
      deadline: String(twelfths.details.deadline),
      schedule: allowed && balance > 0 ? splitExactly(balance, Array(12).fill(1n)) : [],
    },
    place_split: [...split.values()],
    verdicts,
  };
}

// ---------------------------------------------------------------- services

export const DECRET_87_713_ART_2_C = "décret n° 87-713 du 26 août 1987, art. 2 c";

/**
 * A caretaker's pay is recoverable at 75 % when the caretaker both cleans the common parts and takes
 * out the refuse, 40 % when only one of them: never more than 75 %.
 */
export function caretakerVerdict(percent: number | null): Verdict {
  if (percent === null)
    return verdict(
      "CARETAKER_SHARE",
      "UNKNOWN",
      "A stated recoverable amount: its cap cannot be checked",
      DECRET_87_713_ART_2_C,
    );
  return percent > 75
    ? verdict(
        "CARETAKER_SHARE",
        "FAIL",
        `A caretaker's pay is recoverable at 75 % at most (40 % when doing only one of cleaning and refuse) (${DECRET_87_713_ART_2_C})`,
        DECRET_87_713_ART_2_C,
        {
          errors: [{ field: "recoverable_share_percent", message: `At most 75 (${DECRET_87_713_ART_2_C})` }],
        },
      )
    : verdict(
        "CARETAKER_SHARE",
        "PASS",
        `Within the 75 % cap (${DECRET_87_713_ART_2_C})`,
        DECRET_87_713_ART_2_C,
      );
}

export type ServiceFrequency = "MONTHLY" | "QUARTERLY" | "ANNUALLY";
const MONTHS: Record<ServiceFrequency, number> = { MONTHLY: 1, QUARTERLY: 3, ANNUALLY: 12 };

export interface ServiceContract {
  id: string;
  label: string;
  category: ChargeCategory;
  /** Cents per period. */
  amount: number;
  frequency: ServiceFrequency;
  recoverable_share_percent: number | null;
  /** Cents per period; wins over the percent. */
  recoverable_amount: number | null;
  from: string;
  to: string | null;
  key_id: string | null;
}

/** What a service's period recovers, cents: the stated amount, else the percent of the price. */
export const recoverablePerPeriod = (s: ServiceContract) =>
  s.recoverable_amount ??
  splitExactly(s.amount, [
    BigInt(Math.round((s.recoverable_share_percent ?? 0) * 100)),
    BigInt(Math.round((100 - (s.recoverable_share_percent ?? 0)) * 100)),
  ])[0];

/**
 * The recoverable expenses a service contract brings into `window`: one per contract period (from its
 * start, every `frequency` months) meeting the window, prorated by days where it is cut.
 */
export function serviceExpenses(s: ServiceContract, window: Period): Expense[] {
  const perPeriod = recoverablePerPeriod(s);
  const out: Expense[] = [];
  const end = s.to && s.to < window.to ? s.to : window.to;
  for (let i = 0; i < 1200; i++) {
    const from = addMonths(s.from, i * MONTHS[s.frequency]);
    if (from > end) break;
    const to = addMonths(s.from, (i + 1) * MONTHS[s.frequency]);
    const periodEnd = dayBefore(to);
    if (periodEnd < window.from) continue;
    // A contract ended mid-period recovers the days it ran.
    const ran = { from, to: s.to && s.to < periodEnd ? s.to : periodEnd };
    const amount = prorated(perPeriod, { from, to: periodEnd }, ran);
    out.push({
      id: s.id,
      source: "SERVICE",
      label: s.label,
      category: s.category,
      amount,
      from: ran.from,
      to: ran.to,
      key_id: s.key_id,
    });
  }
  return out;
}

const dayBefore = (date: string) => addDays(date, -1);

// ---------------------------------------------------------------- alerts

export interface AlertLease {
  lease_id: string;
  settlement: "PROVISION" | "FLAT";
  from: string;
  to: string | null;
}

export interface ChargeAlert {
  kind: "ANNUAL_REVIEW_DUE" | "REGULARISATION_OVERDUE";
  lease_id: string;
  period: Period;
  due_by: string;
  message: string;
  legal_reference: string;
}

/**
 * Per calendar year a provision-paying lease occupied and that is over (within the three years a
 * claim lives): no regularisation covering its end is an annual review due; twelve months after
 * that end, an overdue regularisation.
 */
export function chargeAlerts(
  leases: readonly AlertLease[],
  regularisations: readonly { lease_id: string; from: string; to: string }[],
  today: string,
): ChargeAlert[] {
  const alerts: ChargeAlert[] = [];
  const thisYear = Number(today.slice(0, 4));
  for (const lease of leases) {
    if (lease.settlement !== "PROVISION") continue;
    for (let year = Math.max(Number(lease.from.slice(0, 4)), thisYear - 3); year < thisYear; year++) {
      const from = lease.from > `${year}-01-01` ? lease.from : `${year}-01-01`;
      const to = lease.to && lease.to < `${year}-12-31` ? lease.to : `${year}-12-31`;
      if (from > to || to >= today) continue;
      if (prescriptionVerdict(to, today).status === "FAIL") continue;
      const covered = regularisations.some(
        (r) => r.lease_id === lease.lease_id && r.from <= to && r.to >= to,
      );
      if (covered) continue;
      const overdueAfter = addYears(to, 1);
      const overdue = today > overdueAfter;
      alerts.push({
        kind: overdue ? "REGULARISATION_OVERDUE" : "ANNUAL_REVIEW_DUE",
        lease_id: lease.lease_id,
        period: { from, to },
        due_by: overdueAfter,
        message: overdue
          ? `No regularisation of the charges ${from} to ${to} twelve months after the period's end (${ART_23})`
          : `The annual regularisation of the charges ${from} to ${to} is due (${ART_23})`,
        legal_reference: ART_23,
      });
    }
  }
  return alerts;
}

/**
 * « Un mois avant cette régularisation, le bailleur en communique au locataire le décompte par nature
 * de charges » (art. 23): the statement reaches the tenant at least one month before the balance is
 * payable; payable earlier, it is not due yet.
 */
export function statementNoticeVerdict(statementReceivedOn: string, payableOn: string): Verdict {
  const earliest = addMonths(statementReceivedOn, 1);
  const details = {
    statement_received_on: statementReceivedOn,
    payable_on: payableOn,
    earliest_payable_on: earliest,
  };
  return payableOn >= earliest
    ? verdict(
        "STATEMENT_ONE_MONTH_BEFORE",
        "PASS",
        `The statement reached the tenant a month before the balance is payable (${ART_23})`,
        ART_23,
        details,
      )
    : verdict(
        "STATEMENT_ONE_MONTH_BEFORE",
        "FAIL",
        `The balance is payable from ${earliest}, a month after the statement reached the tenant (${ART_23})`,
        ART_23,
        {
          ...details,
          errors: [{ field: "payable_on", message: `Not before ${earliest}` }],
        },
      );
}
