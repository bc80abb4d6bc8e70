import { addDays, addMonths, addYears, lastDayBefore, termEnd } from "./calendar.ts";
import { furnished, type LeaseTermFacts, type LeaseType, underLoi89 } from "./leaseTypes.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * When a notice ends (docs/leases.md, "Notice"): the period the law fixes from the day the notice
 * is received, by lease type and by who gives it.
 *   - lessee, unfurnished: 3 months, 1 month in a high-demand zone or in the cases the law lists
 *     (first job, transfer, job loss, health, RSA/AAH, social housing): loi n° 89-462 art. 15 I;
 *   - lessee, furnished (and student): 1 month: art. 25-8 I; bail mobilité: 1 month: art. 25-15;
 *   - lessor, unfurnished: at least 6 months before the term, ending the lease at the term: art. 15 I;
 *     furnished: 3 months before the term: art. 25-8 I; bail mobilité: no notice, it ends at its
 *     term (art. 25-14);
 *   - lessor, student lease: no notice, the 9-month lease ends at its term without tacit renewal
 *     (art. 25-7 al. 3);
 *   - professional lease (loi n° 86-1290 art. 57 A): the lessee 6 months, at any time; the lessor
 *     6 months before the term, for the term;
 *   - commercial lease (code de commerce art. L. 145-4 al. 2): the lessee at least 6 months before
 *     the end of a three-year period, for that end; the lessor (art. L. 145-9) at least 6 months
 *     before the contractual term, for the term, and past it (tacit prolongation) for the last day
 *     of a civil quarter at least 6 months ahead.
 * Months count as code de procédure civile art. 641 counts them (./calendar.ts). A term ends the day
 * before its anniversary; an act due N months before the term is in time when received by the day
 * before the anniversary-equivalent N months earlier (`lastDayBefore`).
 */

export const NOTICE_GIVERS = ["LESSEE", "LESSOR"] as const;
export type NoticeGiver = (typeof NOTICE_GIVERS)[number];

export interface NoticeFacts {
  given_by: NoticeGiver;
  /** The lessee invokes one of art. 15 I's cases for a 1-month notice. */
  reduced_notice: boolean;
  /** The estate's zone from its rent regulation; null when never set (not a high-demand zone). */
  high_demand_zone: boolean | null;
  /** A later end the client asks for; null for the legal one. */
  requested_end: string | null;
}

export const DEFAULT_NOTICE: NoticeFacts = {
  given_by: "LESSEE",
  reduced_notice: false,
  high_demand_zone: null,
  requested_end: null,
};

interface Period {
  months: number;
  law: string;
  /** The notice ends at a term of this many months from the start (commercial: three years). */
  termMonths?: number;
}

const RULE = "NOTICE_PERIOD";
const ART_57_A = "loi n° 86-1290 du 23 décembre 1986, art. 57 A";
const L_145_4 = "code de commerce, art. L. 145-4 al. 2";
const L_145_9 = "code de commerce, art. L. 145-9";

/** A notice the law does not allow: only the other party may give one. */
const noLessorNotice = (label: string, law: string, lesseeArticle: string) =>
  verdict(RULE, "FAIL", `The lessor cannot give notice on ${label}: it ends at its term (${law})`, law, {
    errors: [{ field: "given_by", message: `Only the lessee gives notice on ${label} (${lesseeArticle})` }],
  });

/** The statutory period; a verdict when there is none to count (outside the law, or refused). */
function periodOf(terms: LeaseTermFacts, facts: NoticeFacts): Period | Verdict | null {
  switch (terms.lease_type) {
    case "UNFURNISHED":
      if (facts.given_by === "LESSOR") return { months: 6, law: `${LOI_89}, art. 15 I` };
      return facts.high_demand_zone === true || facts.reduced_notice
        ? { months: 1, law: `${LOI_89}, art. 15 I (reduced notice)` }
        : { months: 3, law: `${LOI_89}, art. 15 I` };
    case "FURNISHED":
      return facts.given_by === "LESSOR"
        ? { months: 3, law: `${LOI_89}, art. 25-8 I` }
        : { months: 1, law: `${LOI_89}, art. 25-8 I` };
    case "STUDENT":
      return facts.given_by === "LESSOR"
        ? noLessorNotice("a student lease", `${LOI_89}, art. 25-7`, "art. 25-8 I")
        : { months: 1, law: `${LOI_89}, art. 25-8 I` };
    case "MOBILITY":
      return facts.given_by === "LESSOR"
        ? noLessorNotice("a bail mobilité", `${LOI_89}, art. 25-14`, "art. 25-15")
        : { months: 1, law: `${LOI_89}, art. 25-15` };
    case "PROFESSIONAL":
      return { months: 6, law: ART_57_A };
    case "COMMERCIAL":
      return facts.given_by === "LESSEE"
        ? { months: 6, law: L_145_4, termMonths: 36 }
        : { months: 6, law: L_145_9 };
    default:
      return null;
  }
}

const fail = (period: Period, message: string, field: string, detail: string) =>
  verdict(RULE, "FAIL", message, period.law, { errors: [{ field, message: detail }] });

/**
 * The term a lessor's notice ends the lease at: its end date, else the last day of the first
 * period of `duration_months` from the start (renewed tacitly: art. 10, art. 25-7) that the notice
 * reaches in time. In time: received by the day before the anniversary-equivalent `months` before
 * the day after the term (`lastDayBefore`): for a term of 2023-03-31, 6 months, by 2022-09-30.
 */
function termFor(terms: LeaseTermFacts, notifiedOn: string, period: Period): string | Verdict {
  if (period.termMonths !== undefined)
    return firstTermReached(terms.start_date, period.termMonths, notifiedOn, period.months);
  if (terms.end_date !== null) {
    const lastDay = lastDayBefore(terms.end_date, period.months);
    if (notifiedOn > lastDay) {
      if (terms.lease_type === "COMMERCIAL") return quarterEndReached(notifiedOn, period.months);
      return fail(
        period,
        `A lessor's notice must reach the lessee at least ${period.months} months before the term (${period.law})`,
        "effective_date",
        `Received ${notifiedOn}: for the term ${terms.end_date} it had to be received by ${lastDay}`,
      );
    }
    return terms.end_date;
  }
  if (terms.duration_months === null)
    return fail(
      period,
      `A lessor's notice takes effect at the lease's term (${period.law}); the lease has neither end_date nor duration_months`,
      "given_by",
      "The lease's term is unknown",
    );
  if (terms.lease_type === "COMMERCIAL") {
    const term = termEnd(terms.start_date, terms.duration_months);
    return notifiedOn <= lastDayBefore(term, period.months)
      ? term
      : quarterEndReached(notifiedOn, period.months);
  }
  return firstTermReached(terms.start_date, terms.duration_months, notifiedOn, period.months);
}

/** The last day of the first term of `months` (from `start`, repeated) a notice received on `notifiedOn` reaches in time. */
function firstTermReached(start: string, months: number, notifiedOn: string, noticeMonths: number): string {
  let n = 1;
  while (notifiedOn > lastDayBefore(termEnd(start, n * months), noticeMonths)) n++;
  return termEnd(start, n * months);
}

/**
 * A commercial lease past its contractual term (tacit prolongation) ends by a notice given for the
 * last day of a civil quarter, at least six months ahead (code de commerce art. L. 145-9 al. 2).
 */
function quarterEndReached(notifiedOn: string, months: number): string {
  const y = Number(notifiedOn.slice(0, 4));
  const m = Number(notifiedOn.slice(5, 7));
  // The last day of the quarter holding `notifiedOn`, then each next one until in time.
  let end = termEnd(`${y}-${String(Math.floor((m - 1) / 3) * 3 + 1).padStart(2, "0")}-01`, 3);
  while (notifiedOn > lastDayBefore(end, months)) end = termEnd(`${addMonths(end, 1).slice(0, 8)}01`, 3);
  return end;
}

/**
 * The notice received on `notifiedOn`: PASS with `details.notice_end_date` (null: outside the law
 * with no date asked), FAIL when the law refuses it, figures in `details.errors`.
 */
export function noticeVerdict(terms: LeaseTermFacts, notifiedOn: string, facts: NoticeFacts): Verdict {
  const period = periodOf(terms, facts);
  if (period !== null && "rule" in period) return period;
  const ok = (end: string | null, law: string) =>
    verdict(RULE, "PASS", end === null ? "The notice has no end date" : `The notice ends on ${end}`, law, {
      notice_end_date: end,
    });
  if (period === null) {
    if (facts.requested_end !== null && facts.requested_end < notifiedOn)
      return verdict(RULE, "FAIL", "The notice cannot end before it is given", "UNKNOWN", {
        errors: [{ field: "notice_end_date", message: `${facts.requested_end} is before ${notifiedOn}` }],
      });
    return ok(facts.requested_end, `A ${terms.lease_type} lease is outside ${LOI_89}`);
  }
  const atTerm = facts.given_by === "LESSOR" || period.termMonths !== undefined;
  const legal = atTerm ? termFor(terms, notifiedOn, period) : addMonths(notifiedOn, period.months);
  if (typeof legal !== "string") return legal;
  if (facts.requested_end === null) return ok(legal, period.law);
  if (facts.requested_end < legal)
    return fail(
      period,
      `The notice period is ${period.months} month(s) from ${notifiedOn} (${period.law}): it ends ${legal} at the earliest`,
      "notice_end_date",
      `${facts.requested_end} is before ${legal}`,
    );
  return ok(facts.requested_end, period.law);
}

/**
 * The reasons a notice states (POST /api/leases/{id}/notices, docs/moving.md "Notices").
 * A lessee's listed cases shorten an unfurnished lease's notice to one month (art. 15 I al. 2:
 * high-demand zone, first job, transfer, job loss, new job after a loss, health, RSA or AAH, a
 * social dwelling allotted); the lessor's motives are the only ones the law admits for its notice
 * (art. 15 I al. 1 on an unfurnished lease, art. 25-8 I on a furnished one).
 */
export const LESSEE_NOTICE_REASONS = [
  "TENSE_ZONE",
  "FIRST_JOB",
  "JOB_TRANSFER",
  "JOB_LOSS",
  "NEW_JOB_AFTER_LOSS",
  "HEALTH",
  "RSA_OR_AAH",
  "SOCIAL_HOUSING",
  "DOMESTIC_VIOLENCE",
] as const;
export const LESSOR_NOTICE_MOTIVES = ["SALE", "REPOSSESSION", "LEGITIMATE_SERIOUS_REASON"] as const;
const ART_15_3_BIS = `${LOI_89}, art. 15 I 3° bis (loi n° 2020-936 du 30 juillet 2020)`;
export const NOTICE_REASONS = [...LESSEE_NOTICE_REASONS, ...LESSOR_NOTICE_MOTIVES] as const;
export type NoticeReason = (typeof NOTICE_REASONS)[number];

const isLessorMotive = (reason: NoticeReason | null) =>
  (LESSOR_NOTICE_MOTIVES as readonly string[]).includes(reason ?? "");

/**
 * Whether the reason fits who gives the notice: PASS with `details.reduced_notice` (a lessee's
 * listed case), FAIL naming `reason` when a lessor's notice under loi n° 89-462 has no motive of
 * the law, or when one party states the other's reason.
 */
export function noticeReasonVerdict(
  leaseType: LeaseTermFacts["lease_type"],
  givenBy: NoticeGiver,
  reason: NoticeReason | null,
): Verdict {
  const law = leaseType === "FURNISHED" ? `${LOI_89}, art. 25-8 I` : `${LOI_89}, art. 15 I`;
  const refuse = (message: string, detail: string) =>
    verdict("NOTICE_REASON", "FAIL", message, law, { errors: [{ field: "reason", message: detail }] });
  if (givenBy === "LESSOR") {
    const needsMotive = leaseType === "UNFURNISHED" || leaseType === "FURNISHED";
    if (reason !== null && !isLessorMotive(reason))
      return refuse(
        `${reason} is a lessee's reason, not a lessor's motive (${law})`,
        "Not a lessor's motive",
      );
    if (needsMotive && reason === null)
      return refuse(
        `A lessor's notice must state its motive: ${LESSOR_NOTICE_MOTIVES.join(", ")} (${law})`,
        `Required for a lessor's notice: one of ${LESSOR_NOTICE_MOTIVES.join(", ")}`,
      );
    return verdict("NOTICE_REASON", "PASS", "The lessor's motive is one the law admits", law, {
      reduced_notice: false,
    });
  }
  if (isLessorMotive(reason))
    return refuse(`${reason} is a lessor's motive, not a lessee's reason (${law})`, "Not a lessee's reason");
  const reduced = reason !== null;
  if (reason === "DOMESTIC_VIOLENCE")
    return verdict(
      "NOTICE_REASON",
      "PASS",
      `DOMESTIC_VIOLENCE: a lessee protected by an ordonnance de protection, or whose partner is prosecuted or convicted for violence in the couple or on a child living with them, gives a one-month notice (${ART_15_3_BIS})`,
      ART_15_3_BIS,
      { reduced_notice: true },
    );
  return verdict(
    "NOTICE_REASON",
    "PASS",
    reduced ? `${reason}: a case of art. 15 I for a one-month notice` : "No reduced-notice case invoked",
    `${LOI_89}, art. 15 I`,
    { reduced_notice: reduced },
  );
}

/**
 * Until when rent and charges are owed when the keys come back during a notice (the lease's end,
 * `details.owed_until`). Under loi n° 89-462 (art. 15 I unfurnished, art. 25-8 I furnished,
 * the same words: "Pendant le délai de préavis..."): a lessee who gave notice owes its whole period,
 * unless the dwelling is let to another lessee before its end with the lessor's agreement
 * (`relet_on`, the new lessee's first day: the rent stops the day before, never before the keys'
 * return); after the lessor's notice, only the time the lessee actually occupied the place, up to
 * the keys' return to the lessor (Cass. civ. 3e, 2 May 2012, n° 11-17.299). A notice whose giver was
 * not recorded (before 2026-11): its whole period, UNKNOWN. Keys back after the notice's end: their day.
 */
export function rentOwedUntilVerdict(facts: {
  lease_type: LeaseType;
  given_by: NoticeGiver | null;
  notice_end_date: string | null;
  keys_returned_on: string;
  relet_on?: string | null;
}): Verdict {
  const RENT_RULE = "RENT_OWED_DURING_NOTICE";
  const { given_by, notice_end_date: end, keys_returned_on: keys } = facts;
  if (end === null || end <= keys)
    return verdict(
      RENT_RULE,
      "PASS",
      `Rent is owed until the keys' return on ${keys}`,
      `${LOI_89}, art. 15 I`,
      {
        owed_until: keys,
      },
    );
  if (!underLoi89(facts.lease_type))
    return verdict(
      RENT_RULE,
      "NOT_APPLICABLE",
      `A ${facts.lease_type} lease is outside ${LOI_89}: rent is owed until the notice's end on ${end}, as agreed`,
      "UNKNOWN",
      { owed_until: end },
    );
  const law = `${LOI_89}, art. ${furnished(facts.lease_type) ? "25-8 I" : "15 I"}`;
  if (given_by === "LESSOR")
    return verdict(
      RENT_RULE,
      "PASS",
      `After the lessor's notice the lessee owes rent only for the time actually occupied: until the keys' return on ${keys}`,
      `${law}; Cass. civ. 3e, 2 mai 2012, n° 11-17.299`,
      { owed_until: keys },
    );
  const relet = facts.relet_on ?? null;
  if (relet !== null && relet <= end) {
    // The day before the new lessee's first, never before the keys' return.
    let until = addDays(relet, -1);
    if (until < keys) until = keys;
    return verdict(
      RENT_RULE,
      "PASS",
      `The dwelling is let again from ${relet} with the lessor's agreement: rent is owed until ${until}`,
      law,
      { owed_until: until },
    );
  }
  if (given_by === "LESSEE")
    return verdict(
      RENT_RULE,
      "PASS",
      `The lessee who gave notice owes rent for its whole period, until ${end}, unless the dwelling is let again before then with the lessor's agreement`,
      law,
      { owed_until: end },
    );
  return verdict(
    RENT_RULE,
    "UNKNOWN",
    `Who gave the notice was not recorded: rent is taken as owed until its end on ${end}`,
    law,
    { owed_until: end },
  );
}

// ---------------------------------------------------------------- domestic violence (art. 8-2)

const ART_8_2 = `${LOI_89}, art. 8-2 (loi n° 2018-1021, art. 136)`;

/**
 * A co-tenant who leaves because of violence in the couple or on a child living with them, and
 * tells the lessor by registered letter with the protection order or the conviction: their joint
 * liability (and their guarantor's) ends the day after the letter's first presentation, for the
 * debts arising from that day (art. 8-2 al. 2). `details.solidarity_ends_on` is that day.
 */
export function victimSolidarityVerdict(presentedOn: string): Verdict {
  const day = addDays(presentedOn, 1);
  return verdict(
    "VICTIM_SOLIDARITY_END",
    "PASS",
    `The joint liability of the co-tenant victim of violence, and of their guarantor, ends on ${day}, the day after the letter's first presentation, for the debts arising from that day (${ART_8_2})`,
    ART_8_2,
    { solidarity_ends_on: day },
  );
}

// ---------------------------------------------------------------- what a lessor's notice states

/** The ties art. 15 I allows between the lessor and the beneficiary of a repossession. */
export const REPOSSESSION_TIES = [
  "LESSOR",
  "SPOUSE",
  "PACS_PARTNER",
  "CONCUBIN",
  "ASCENDANT",
  "DESCENDANT",
  "PARTNER_ASCENDANT",
  "PARTNER_DESCENDANT",
] as const;

export interface LessorNoticeFacts {
  lease_type: LeaseType;
  motive: NoticeReason | null;
  received_on: string;
  /** The term the notice ends the lease at (noticeVerdict's). */
  term: string;
  /** A notice for sale: the price and terms it states. */
  sale: { price: number; terms: string } | null;
  /** A notice for repossession: the beneficiary it names and the tie with the lessor. */
  repossession: { beneficiary_name: string; beneficiary_address: string; tie: string } | null;
  /** The day the lessor bought the dwelling already let to this lessee; null: not the case. */
  acquired_occupied_on: string | null;
}

const ART_15_I = `${LOI_89}, art. 15 I`;
const ART_15_II = `${LOI_89}, art. 15 II`;
const blank = (v: string | undefined | null) => v === undefined || v === null || v.trim() === "";

/**
 * What a lessor's notice states, by motive (art. 15 I and II, 25-8 I), and the bought-occupied
 * dwelling (art. 15 I as loi n° 2014-366 wrote it). PASS details: `notice_end_date` (moved to two
 * years after the purchase for a repossession), `sale_offer_until` (a notice for sale of an
 * unfurnished dwelling is an offer to sell to the lessee for the first two months of the notice).
 */
export function lessorNoticeVerdict(f: LessorNoticeFacts): Verdict {
  const rule = "LESSOR_NOTICE_CONTENT";
  const residential = f.lease_type === "UNFURNISHED" || f.lease_type === "FURNISHED";
  const law = f.lease_type === "FURNISHED" ? `${LOI_89}, art. 25-8 I` : ART_15_I;
  if (!residential)
    return verdict(
      rule,
      "NOT_APPLICABLE",
      `Art. 15 does not govern a ${f.lease_type} lease's notice`,
      LOI_89,
      {
        notice_end_date: f.term,
      },
    );
  const refuse = (message: string, ref: string, errors: { field: string; message: string }[]) =>
    verdict(rule, "FAIL", `${message} (${ref})`, ref, { errors });
  let end = f.term;
  let offerUntil: string | null = null;
  if (f.motive === "SALE") {
    if (f.lease_type === "UNFURNISHED") {
      const errors = [
        ...(f.sale === null || !(f.sale.price > 0)
          ? [{ field: "sale.price", message: "The notice for sale states the price" }]
          : []),
        ...(f.sale === null || blank(f.sale.terms)
          ? [{ field: "sale.terms", message: "The notice for sale states the terms of the sale" }]
          : []),
      ];
      if (errors.length > 0)
        return refuse(
          "A notice for sale states, on pain of nullity, the price and terms of the sale",
          ART_15_II,
          errors,
        );
      // Art. 641 counting: the offer runs for two months from receipt.
      offerUntil = addMonths(f.received_on, 2);
    }
    if (f.acquired_occupied_on !== null) {
      const from = addYears(f.acquired_occupied_on, 3);
      if (f.term < from)
        return refuse(
          `A lessor who bought the dwelling occupied on ${f.acquired_occupied_on} may give notice for sale only for a term at least three years later, from ${from}: the term ${f.term} is not; the notice is possible for the end of the first renewal`,
          `${ART_15_I} (loi n° 2014-366)`,
          [
            {
              field: "acquired_occupied_on",
              message: `The term ${f.term} is less than three years after the purchase`,
            },
          ],
        );
    }
  }
  if (f.motive === "REPOSSESSION") {
    const r = f.repossession;
    const errors = [
      ...(r === null || blank(r.beneficiary_name)
        ? [{ field: "repossession.beneficiary_name", message: "The notice names the beneficiary" }]
        : []),
      ...(r === null || blank(r.beneficiary_address)
        ? [
            {
              field: "repossession.beneficiary_address",
              message: "The notice gives the beneficiary's address",
            },
          ]
        : []),
      ...(r === null || !(REPOSSESSION_TIES as readonly string[]).includes(r.tie)
        ? [
            {
              field: "repossession.tie",
              message: `The tie with the lessor, one of ${REPOSSESSION_TIES.join(", ")}`,
            },
          ]
        : []),
    ];
    if (errors.length > 0)
      return refuse(
        "A notice for repossession names, on pain of nullity, the beneficiary, their address and their tie with the lessor",
        law,
        errors,
      );
    if (f.acquired_occupied_on !== null) {
      const from = addYears(f.acquired_occupied_on, 2);
      if (end < from) end = from;
    }
  }
  const moved =
    end !== f.term
      ? ` Bought occupied on ${f.acquired_occupied_on}: it takes effect two years after the purchase, on ${end}.`
      : "";
  const offer = offerUntil ? ` It is an offer to sell to the lessee until ${offerUntil} (${ART_15_II}).` : "";
  return verdict(rule, "PASS", `The lessor's notice states what the law asks.${offer}${moved}`, law, {
    notice_end_date: end,
    sale_offer_until: offerUntil,
  });
}

// ---------------------------------------------------------------- elderly tenant (art. 15 III, 25-8 III)

export interface ElderlyTenantFacts {
  lessee_born_on: string;
  /** The lessee's yearly resources under the ceiling for conventionned housing, on the notice's day. */
  lessee_resources_under_ceiling: boolean;
  /** A dwelling fitting the lessee's needs and means was offered within the law's area. */
  rehousing_offered: boolean;
  /** A natural-person lessor's birth date; null: unknown or not a natural person. */
  lessor_born_on: string | null;
  /** A natural-person lessor's resources under the same ceiling; null: unknown. */
  lessor_resources_under_ceiling: boolean | null;
}

/** At least `years` old on `day` (the birthday reached that day counts). */
const agedOn = (born: string, day: string, years: number) => addYears(born, years) <= day;

/**
 * Art. 15 III (25-8 III for a furnished lease): no lessor's notice, whatever its motive, to a
 * lessee over 65 on the term with resources under the ceiling on the notice's day unless a
 * rehousing is offered; not when the lessor is a natural person over 65 on the term or with
 * resources under the ceiling. Ages are judged on the term. Facts not stated: UNKNOWN, never a
 * refusal.
 */
export function elderlyTenantVerdict(input: {
  lease_type: LeaseType;
  term: string;
  lessor: "NATURAL_PERSON" | "LEGAL_PERSON";
  facts: ElderlyTenantFacts | null;
}): Verdict {
  const rule = "ELDERLY_TENANT_PROTECTION";
  const law = `${LOI_89}, art. ${input.lease_type === "FURNISHED" ? "25-8 III" : "15 III"}`;
  if (input.lease_type !== "UNFURNISHED" && input.lease_type !== "FURNISHED")
    return verdict(rule, "NOT_APPLICABLE", `Art. 15 III does not govern a ${input.lease_type} lease`, law);
  const f = input.facts;
  if (f === null)
    return verdict(
      rule,
      "UNKNOWN",
      `Whether the lessee is over 65 with resources under the ceiling is not stated (${law})`,
      law,
    );
  const old = agedOn(f.lessee_born_on, input.term, 65);
  const details = { term: input.term, lessee_aged_65_on_term: old };
  if (!old || !f.lessee_resources_under_ceiling)
    return verdict(rule, "NOT_APPLICABLE", "The lessee is not a protected elderly tenant", law, details);
  if (f.rehousing_offered)
    return verdict(rule, "PASS", `A rehousing is offered to the protected lessee (${law})`, law, details);
  if (input.lessor === "NATURAL_PERSON") {
    if (f.lessor_born_on !== null && agedOn(f.lessor_born_on, input.term, 65))
      return verdict(
        rule,
        "PASS",
        `The lessor, a natural person, is over 65 on the term (${law})`,
        law,
        details,
      );
    if (f.lessor_resources_under_ceiling === true)
      return verdict(
        rule,
        "PASS",
        `The lessor, a natural person, has resources under the ceiling (${law})`,
        law,
        details,
      );
  }
  return verdict(
    rule,
    "FAIL",
    `A lessor may not give notice to a lessee over 65 on the term with resources under the ceiling without offering a dwelling fitting their needs and means (${law})`,
    law,
    {
      ...details,
      errors: [
        {
          field: "elderly_tenant.rehousing_offered",
          message: `The lessee, born ${f.lessee_born_on}, is 65 or over on the term ${input.term}: offer a rehousing`,
        },
      ],
    },
  );
}
