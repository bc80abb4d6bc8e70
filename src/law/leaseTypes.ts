import { addDays, addMonths, monthsOfTerm, termEnd } from "./calendar.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The lease types and the regime the law gives each (docs/design.md §7.0b, docs/compliance.md):
 * the one place that says which lease falls under loi n° 89-462, its terms, deposit, notices,
 * index and annexes. UNKNOWN where no text could be confirmed.
 */

export const LEASE_TYPES = [
  "UNFURNISHED",
  "FURNISHED",
  "MOBILITY",
  "STUDENT",
  "COMMERCIAL",
  "PROFESSIONAL",
  "PARKING",
] as const;
export type LeaseType = (typeof LEASE_TYPES)[number];

/** The residential leases of loi n° 89-462 (titre Ier, Ier bis and Ier ter). */
export const UNDER_LOI_89_462: readonly LeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY", "STUDENT"];
export const underLoi89 = (type: LeaseType): boolean => UNDER_LOI_89_462.includes(type);
/** Furnished dwellings (art. 25-4): a furnished reference rent applies (loi ELAN art. 140). */
export const furnished = (type: LeaseType): boolean =>
  type === "FURNISHED" || type === "MOBILITY" || type === "STUDENT";

const UNKNOWN = "UNKNOWN" as const;
type Unknown = typeof UNKNOWN;

export interface NoticeRule {
  months: number | Unknown | null;
  /** null: no notice (the lease ends at its term), Unknown: no text confirmed. */
  when: string;
  legal_reference: string;
}

export interface LeaseRegime {
  code: LeaseType;
  label: string;
  law: string;
  under_loi_89_462: boolean;
  duration: {
    minimum_months: number | Unknown | null;
    maximum_months: number | null;
    /** The term when the lease states none. */
    default_months: number | Unknown | null;
    renewal: "TACIT" | "NONE" | Unknown;
    renewal_months: number | Unknown | null;
    notes: string | null;
    legal_reference: string;
  };
  deposit: { cap_months: number | Unknown | null; notes: string | null; legal_reference: string };
  notice: { lessee: NoticeRule; lessor: NoticeRule };
  index_revision: {
    index: "IRL" | "NONE" | Unknown;
    /** null: no index revision at all (bail mobilité), so no yearly limit to state. */
    at_most_once_a_year: boolean | Unknown | null;
    legal_reference: string;
  };
  mandatory_mentions: string[];
  mandatory_annexes: string[];
}

const ANNEXES_89 = [
  "Dossier de diagnostic technique (art. 3-3): DPE, constat de risque d'exposition au plomb, état de l'amiante (copropriété), états des installations d'électricité et de gaz, état des risques, diagnostic bruit",
  "Notice d'information (art. 3)",
  "État des lieux d'entrée (art. 3-2)",
  "Extraits du règlement de copropriété (art. 3)",
];
const MENTIONS_89 = [
  "Parties: nom ou dénomination et domicile du bailleur (et de son mandataire), nom du locataire (art. 3)",
  "Date de prise d'effet et durée (art. 3)",
  "Consistance, destination et surface habitable du logement; locaux et équipements privatifs et communs (art. 3)",
  "Loyer, modalités de paiement et, s'il y a lieu, de révision; dépôt de garantie (art. 3)",
  "Loyer de référence et loyer du précédent locataire lorsque la loi le prévoit (art. 3)",
];

const art = (n: string) => `${LOI_89}, art. ${n}`;

export const LEASE_REGIMES: Record<LeaseType, LeaseRegime> = {
  UNFURNISHED: {
    code: "UNFURNISHED",
    label: "Bail d'habitation non meublé",
    law: `${LOI_89}, titre Ier`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 36,
      maximum_months: null,
      default_months: 36,
      renewal: "TACIT",
      renewal_months: 36,
      notes:
        "3 years when the lessor is a natural person or a family SCI (art. 13); 6 years, and 6-year renewals, when it is another legal person",
      legal_reference: art("10"),
    },
    deposit: {
      cap_months: 1,
      notes:
        "1 month of rent excluding charges, judged when the deposit is set and never revised during the lease; none when the rent is payable in advance for more than two months",
      legal_reference: art("22"),
    },
    notice: {
      lessee: {
        months: 3,
        when: "any time; 1 month in a high-demand zone or in the cases art. 15 I lists",
        legal_reference: art("15 I"),
      },
      lessor: { months: 6, when: "before the term, for the term", legal_reference: art("15 I") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: art("17-1 I") },
    mandatory_mentions: MENTIONS_89,
    mandatory_annexes: ANNEXES_89,
  },
  FURNISHED: {
    code: "FURNISHED",
    label: "Bail d'habitation meublé",
    law: `${LOI_89}, titre Ier bis`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 12,
      maximum_months: null,
      default_months: 12,
      renewal: "TACIT",
      renewal_months: 12,
      notes: null,
      legal_reference: art("25-7"),
    },
    deposit: { cap_months: 2, notes: null, legal_reference: art("25-6") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: art("25-8 I") },
      lessor: { months: 3, when: "before the term, for the term", legal_reference: art("25-8 I") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: art("25-9, 17-1 I") },
    mandatory_mentions: MENTIONS_89,
    mandatory_annexes: [...ANNEXES_89, "Inventaire et état détaillé du mobilier (art. 25-5)"],
  },
  STUDENT: {
    code: "STUDENT",
    label: "Bail meublé étudiant (9 mois)",
    law: `${LOI_89}, titre Ier bis`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 9,
      maximum_months: null,
      default_months: 9,
      renewal: "NONE",
      renewal_months: null,
      notes: "A 9-month furnished lease to a student is not renewed tacitly: it ends at its term",
      legal_reference: art("25-7"),
    },
    deposit: { cap_months: 2, notes: null, legal_reference: art("25-6") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: art("25-8 I") },
      lessor: { months: null, when: "no notice: the lease ends at its term", legal_reference: art("25-7") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: art("25-9, 17-1 I") },
    mandatory_mentions: MENTIONS_89,
    mandatory_annexes: [...ANNEXES_89, "Inventaire et état détaillé du mobilier (art. 25-5)"],
  },
  MOBILITY: {
    code: "MOBILITY",
    label: "Bail mobilité",
    law: `${LOI_89}, titre Ier ter (art. 25-12 to 25-18)`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 1,
      maximum_months: 10,
      default_months: null,
      renewal: "NONE",
      renewal_months: null,
      notes:
        "1 to 10 months, neither renewed nor reconducted; its duration may change once by amendment within 10 months",
      legal_reference: art("25-14"),
    },
    deposit: { cap_months: 0, notes: "No deposit may be required", legal_reference: art("25-13") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: art("25-15") },
      lessor: { months: null, when: "no notice: the lease ends at its term", legal_reference: art("25-14") },
    },
    index_revision: {
      index: "NONE",
      at_most_once_a_year: null,
      legal_reference: `${art("25-12")} (art. 17-1 is not among the articles it applies)`,
    },
    mandatory_mentions: [
      ...MENTIONS_89,
      "The words « bail mobilité » and its articles 25-12 to 25-18; the motive of mobility (art. 25-13)",
      "Charges as a flat rate (art. 25-18)",
    ],
    mandatory_annexes: [...ANNEXES_89, "Inventaire et état détaillé du mobilier (art. 25-5)"],
  },
  PROFESSIONAL: {
    code: "PROFESSIONAL",
    label: "Bail professionnel",
    law: "loi n° 86-1290 du 23 décembre 1986, art. 57 A",
    under_loi_89_462: false,
    duration: {
      minimum_months: 72,
      maximum_months: null,
      default_months: 72,
      renewal: "TACIT",
      renewal_months: UNKNOWN,
      notes: "At least 6 years, reconducted tacitly at its term",
      legal_reference: "loi n° 86-1290, art. 57 A",
    },
    deposit: { cap_months: UNKNOWN, notes: "No cap confirmed", legal_reference: "UNKNOWN" },
    notice: {
      lessee: { months: 6, when: "any time", legal_reference: "loi n° 86-1290, art. 57 A" },
      lessor: {
        months: 6,
        when: "before the term, for the term",
        legal_reference: "loi n° 86-1290, art. 57 A",
      },
    },
    index_revision: { index: UNKNOWN, at_most_once_a_year: UNKNOWN, legal_reference: "UNKNOWN" },
    mandatory_mentions: [],
    mandatory_annexes: [],
  },
  COMMERCIAL: {
    code: "COMMERCIAL",
    label: "Bail commercial",
    law: "code de commerce, art. L. 145-1 ff.",
    under_loi_89_462: false,
    duration: {
      minimum_months: 108,
      maximum_months: null,
      default_months: 108,
      renewal: UNKNOWN,
      renewal_months: UNKNOWN,
      notes: "At least 9 years",
      legal_reference: "code de commerce, art. L. 145-4",
    },
    deposit: { cap_months: UNKNOWN, notes: "No cap confirmed", legal_reference: "UNKNOWN" },
    notice: {
      lessee: {
        months: 6,
        when: "at the end of each three-year period, at least 6 months ahead",
        legal_reference: "code de commerce, art. L. 145-4",
      },
      lessor: {
        months: 6,
        when: "at least 6 months before the term, for the term; past it (tacit prolongation), for the last day of a civil quarter",
        legal_reference: "code de commerce, art. L. 145-9",
      },
    },
    index_revision: { index: UNKNOWN, at_most_once_a_year: UNKNOWN, legal_reference: "UNKNOWN" },
    mandatory_mentions: [],
    mandatory_annexes: [],
  },
  PARKING: {
    code: "PARKING",
    label: "Location d'un emplacement de stationnement",
    law: "UNKNOWN (outside loi n° 89-462 when let apart from a dwelling)",
    under_loi_89_462: false,
    duration: {
      minimum_months: UNKNOWN,
      maximum_months: null,
      default_months: UNKNOWN,
      renewal: UNKNOWN,
      renewal_months: UNKNOWN,
      notes: null,
      legal_reference: "UNKNOWN",
    },
    deposit: { cap_months: UNKNOWN, notes: null, legal_reference: "UNKNOWN" },
    notice: {
      lessee: { months: UNKNOWN, when: "UNKNOWN", legal_reference: "UNKNOWN" },
      lessor: { months: UNKNOWN, when: "UNKNOWN", legal_reference: "UNKNOWN" },
    },
    index_revision: { index: UNKNOWN, at_most_once_a_year: UNKNOWN, legal_reference: "UNKNOWN" },
    mandatory_mentions: [],
    mandatory_annexes: [],
  },
};

/**
 * Who lets: art. 10 gives a legal person 6-year terms, but « une société civile constituée
 * exclusivement entre parents et alliés jusqu'au quatrième degré inclus » lets as a natural person
 * (art. 13 a): 3 years, and its renewals and notices follow (FAMILY_SCI).
 */
export type LessorKind = "NATURAL_PERSON" | "LEGAL_PERSON" | "FAMILY_SCI";

/** The lessor's kind from its owner's category and legal form (a company not stated: 6 years). */
export const lessorKind = (category: string | null | undefined, legalForm?: string | null): LessorKind =>
  category !== "company" ? "NATURAL_PERSON" : legalForm === "FAMILY_SCI" ? "FAMILY_SCI" : "LEGAL_PERSON";

/**
 * The months of a tacit renewal (art. 10: 3 years, 6 for a legal-person lessor; art. 25-7: 1 year);
 * null when the law ends the lease at its term or no renewal rule is confirmed (the lease is left as is).
 */
export function renewalMonths(type: LeaseType, lessor: LessorKind): number | null {
  if (type === "UNFURNISHED") return lessor === "LEGAL_PERSON" ? 72 : 36;
  if (type === "FURNISHED") return 12;
  return null;
}

/** Leases the law ends at their term (art. 25-7 student, art. 25-14 mobility): they expire. */
export const endsAtTerm = (type: LeaseType): boolean => type === "MOBILITY" || type === "STUDENT";

export interface LeaseTermFacts {
  lease_type: LeaseType;
  start_date: string;
  end_date: string | null;
  duration_months: number | null;
}

/** The first term in months: the lease's duration, else from its end date, else the law's default. */
export function firstTermMonths(lease: LeaseTermFacts, lessor: LessorKind = "NATURAL_PERSON"): number | null {
  if (lease.duration_months !== null) return lease.duration_months;
  if (lease.end_date !== null) return monthsOfTerm(lease.start_date, lease.end_date);
  if (lease.lease_type === "UNFURNISHED" && lessor === "LEGAL_PERSON") return 72;
  const d = LEASE_REGIMES[lease.lease_type].duration.default_months;
  return typeof d === "number" ? d : null;
}

/**
 * The first renewal day: the day after the first term. The first term is `duration_months` from the
 * start when stated; else, with an end date, a renewal moves the end date (LeaseRenewed), so the
 * renewals are counted back from it in renewal periods (the first term taken as one renewal period,
 * the law's minimum: art. 10, 25-7); else the law's default term.
 */
function firstRenewal(lease: LeaseTermFacts, renewal: number, lessor: LessorKind): string | null {
  if (lease.duration_months !== null) return addMonths(lease.start_date, lease.duration_months);
  if (lease.end_date !== null) {
    let day = addDays(lease.end_date, 1);
    while (addMonths(day, -renewal) > lease.start_date) day = addMonths(day, -renewal);
    return day;
  }
  const first = firstTermMonths(lease, lessor);
  return first === null ? null : addMonths(lease.start_date, first);
}

/**
 * The days a contract is concluded, renewed or tacitly renewed on, in order, up to `until`: the
 * start, then each day after a term ends while the law renews the lease (art. 10, 25-7). The
 * conclusion alone when the term is unknown or the lease ends at its term.
 */
export function contractPeriodStarts(
  lease: LeaseTermFacts,
  until: string,
  lessor: LessorKind = "NATURAL_PERSON",
): string[] {
  const starts = [lease.start_date];
  const renewal = renewalMonths(lease.lease_type, lessor);
  let next = renewal === null ? null : firstRenewal(lease, renewal, lessor);
  while (renewal !== null && next !== null && next <= until) {
    starts.push(next);
    next = addMonths(next, renewal);
  }
  return starts;
}

/** The first day on or after `from` a contract is concluded or renewed on (null: never again). */
export function nextPeriodStartFrom(
  lease: LeaseTermFacts,
  from: string,
  lessor: LessorKind = "NATURAL_PERSON",
): string | null {
  if (lease.start_date >= from) return lease.start_date;
  const renewal = renewalMonths(lease.lease_type, lessor);
  let next = renewal === null ? null : firstRenewal(lease, renewal, lessor);
  while (renewal !== null && next !== null && next < from) next = addMonths(next, renewal);
  return next;
}

/** The start of the contract period (conclusion or last renewal) in force on `on`. */
export const periodStartOn = (lease: LeaseTermFacts, on: string, lessor: LessorKind = "NATURAL_PERSON") =>
  contractPeriodStarts(lease, on, lessor).at(-1) as string;

/**
 * A bail mobilité lasts 1 to 10 months (art. 25-14), counted from its start: by its duration, else
 * its end date (at most the day before the 10-month anniversary, at least the day before the 1-month one).
 */
export function mobilityDurationVerdict(lease: LeaseTermFacts): Verdict {
  const rule = "MOBILITY_DURATION";
  const ref = `${LOI_89}, art. 25-14`;
  if (lease.lease_type !== "MOBILITY") return verdict(rule, "NOT_APPLICABLE", "Not a bail mobilité", ref);
  const errors: { field: string; message: string }[] = [];
  const d = lease.duration_months;
  if (d !== null && (d < 1 || d > 10))
    errors.push({ field: "duration_months", message: `${d} months is outside 1 to 10 months` });
  if (lease.end_date !== null) {
    const [min, max] = [termEnd(lease.start_date, 1), termEnd(lease.start_date, 10)];
    if (lease.end_date > max || lease.end_date < min)
      errors.push({
        field: "end_date",
        message: `A bail mobilité starting ${lease.start_date} ends between ${min} and ${max}`,
      });
  }
  const details = { start_date: lease.start_date, end_date: lease.end_date, duration_months: d };
  if (errors.length > 0)
    return verdict(rule, "FAIL", `A bail mobilité lasts 1 to 10 months (${ref})`, ref, {
      ...details,
      errors,
    });
  if (d === null && lease.end_date === null)
    return verdict(rule, "UNKNOWN", "The lease states neither its duration nor its end", ref, details);
  return verdict(rule, "PASS", `The bail mobilité lasts 1 to 10 months (${ref})`, ref, details);
}

/**
 * How charges are settled, by lease type: a bail mobilité's are a flat rate (art. 25-18); a
 * furnished lease may choose a flat rate or provisions (art. 25-10); an unfurnished lease's are
 * provisions with a yearly settlement (art. 23; a flat rate only for a shared letting, art. 8-1).
 */
export function chargeSettlementOf(type: LeaseType, requested: string | null): "PROVISION" | "FLAT" {
  if (type === "MOBILITY") return "FLAT";
  if (type === "FURNISHED" || type === "STUDENT") return requested === "FLAT_RATE" ? "FLAT" : "PROVISION";
  return "PROVISION";
}

/** A bail mobilité names the motive of mobility the lessee justifies (art. 25-13, 25-12). */
export function mobilityMotiveVerdict(type: LeaseType, motive: string | null): Verdict {
  const rule = "MOBILITY_MOTIVE";
  const ref = `${LOI_89}, art. 25-13`;
  if (type !== "MOBILITY") return verdict(rule, "NOT_APPLICABLE", "Not a bail mobilité", ref);
  if (motive !== null && motive.trim() !== "")
    return verdict(rule, "PASS", `The bail mobilité names its motive: ${motive}`, ref);
  return verdict(
    rule,
    "FAIL",
    `A bail mobilité names the motive of mobility the lessee justifies (${ref})`,
    ref,
    {
      errors: [
        {
          field: "mobility_motive",
          message:
            "State the motive (formation professionnelle, études supérieures, apprentissage, stage, service civique, mutation or mission temporaire)",
        },
      ],
    },
  );
}
