import { describe, expect, it } from "vitest";
import { addDays, addMonths, lastDayBefore, termEnd } from "../../src/law/calendar.ts";
import { depositVerdict } from "../../src/law/deposit.ts";
import {
  chargeSettlementOf,
  contractPeriodStarts,
  endsAtTerm,
  firstTermMonths,
  furnished,
  LEASE_REGIMES,
  LEASE_TYPES,
  type LeaseType,
  lessorKind,
  mobilityDurationVerdict,
  mobilityMotiveVerdict,
  nextPeriodStartFrom,
  periodStartOn,
  renewalMonths,
  underLoi89,
} from "../../src/law/leaseTypes.ts";
import { DEFAULT_NOTICE, noticeVerdict } from "../../src/law/notice.ts";
import { indexRevisionVerdict } from "../../src/law/rent.ts";

/** Lease types and their terms (loi n° 89-462 art. 10, 25-7, 25-12 to 25-18). */

const LAW = "loi n° 89-462 du 6 juillet 1989";
const RESIDENTIAL: LeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY", "STUDENT"];
const lease = (
  lease_type: LeaseType,
  over: { end_date?: string | null; duration_months?: number | null } = {},
) => ({
  lease_type,
  start_date: "2024-12-31",
  end_date: null,
  duration_months: null,
  ...over,
});

describe("the catalogue says what the rules do", () => {
  it("names each type once, residential ones under loi 89-462, furnished ones furnished", () => {
    expect(Object.keys(LEASE_REGIMES).sort()).toEqual([...LEASE_TYPES].sort());
    for (const type of LEASE_TYPES) {
      const regime = LEASE_REGIMES[type];
      expect(regime.code).toBe(type);
      expect(regime.under_loi_89_462, type).toBe(RESIDENTIAL.includes(type));
      expect(underLoi89(type), type).toBe(RESIDENTIAL.includes(type));
      expect(furnished(type), type).toBe(["FURNISHED", "MOBILITY", "STUDENT"].includes(type));
      if (regime.under_loi_89_462) {
        expect(regime.law, type).toMatch(/^loi n° 89-462 du 6 juillet 1989, titre Ier/);
        expect(regime.mandatory_mentions.length, type).toBeGreaterThan(0);
        expect(regime.mandatory_annexes.length, type).toBeGreaterThan(0);
        for (const ref of [regime.duration.legal_reference, regime.deposit.legal_reference])
          expect(ref, type).toMatch(/^loi n° 89-462 du 6 juillet 1989, art\. /);
      }
    }
  });

  it("renewal: tacit for unfurnished (3 years) and furnished (1 year), none for student and mobility", () => {
    for (const type of RESIDENTIAL) {
      const { duration } = LEASE_REGIMES[type];
      expect(duration.renewal_months, type).toBe(renewalMonths(type, "NATURAL_PERSON"));
      expect(duration.renewal, type).toBe(endsAtTerm(type) ? "NONE" : "TACIT");
      expect(duration.default_months, type).toBe(firstTermMonths(lease(type)));
    }
  });

  it("the deposit cap in months is the one the deposit rule applies", () => {
    for (const type of RESIDENTIAL) {
      const months = LEASE_REGIMES[type].deposit.cap_months as number;
      const at = (deposit_amount: number) =>
        depositVerdict({
          lease_type: type,
          rent_amount: 1000,
          deposit_amount,
          rent_frequency: null,
          payment_terms: null,
        });
      expect(at(1000 * months + 0.01).status, type).toBe("FAIL");
      if (months > 0) expect(at(1000 * months).status, type).toBe("PASS");
      expect(at(1000 * months + 0.01).legal_reference, type).toBe(
        LEASE_REGIMES[type].deposit.legal_reference,
      );
    }
  });

  it("the lessee's notice in months is the one the notice rule counts", () => {
    for (const type of RESIDENTIAL) {
      const months = LEASE_REGIMES[type].notice.lessee.months as number;
      const end = noticeVerdict(lease(type, { duration_months: 36 }), "2025-01-15", DEFAULT_NOTICE).details
        .notice_end_date;
      expect(end, type).toBe(`2025-${String(1 + months).padStart(2, "0")}-15`);
    }
  });

  it("the index: the IRL at most once a year, none for a bail mobilité", () => {
    for (const type of RESIDENTIAL) {
      const { index } = LEASE_REGIMES[type].index_revision;
      const allowed = indexRevisionVerdict({
        lease_type: type,
        index_type: "IRL",
        effective_date: "2025-06-01",
        last_index_revision_on: null,
      }).status;
      expect(index, type).toBe(allowed === "PASS" ? "IRL" : "NONE");
      // No index revision at all (bail mobilité, art. 25-12): no yearly limit is affirmed of it.
      expect(LEASE_REGIMES[type].index_revision.at_most_once_a_year, type).toBe(
        allowed === "PASS" ? true : null,
      );
    }
  });
});

describe("leases outside loi 89-462 in the catalogue", () => {
  it("state every part of the regime, UNKNOWN where no text is confirmed, no mentions or annexes of loi 89-462", () => {
    for (const type of ["COMMERCIAL", "PROFESSIONAL", "PARKING"] as const) {
      const regime = LEASE_REGIMES[type];
      expect(regime.mandatory_mentions, type).toEqual([]);
      expect(regime.mandatory_annexes, type).toEqual([]);
      expect(regime.deposit, type).toMatchObject({ cap_months: "UNKNOWN", legal_reference: "UNKNOWN" });
      expect(regime.index_revision, type).toEqual({
        index: "UNKNOWN",
        at_most_once_a_year: "UNKNOWN",
        legal_reference: "UNKNOWN",
      });
      for (const part of [regime.duration, regime.notice.lessee, regime.notice.lessor])
        expect(typeof part.legal_reference, type).toBe("string");
      expect(regime.notice.lessor.months, type).not.toBeUndefined();
      expect(regime.duration.renewal, type).not.toBeUndefined();
    }
    expect(LEASE_REGIMES.PARKING.notice).toEqual({
      lessee: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
      lessor: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
    });
  });

  it("residential lessors: 6 months unfurnished, 3 furnished, no notice for student and mobility leases", () => {
    expect(LEASE_REGIMES.UNFURNISHED.notice.lessor.months).toBe(6);
    expect(LEASE_REGIMES.FURNISHED.notice.lessor.months).toBe(3);
    expect(LEASE_REGIMES.STUDENT.notice.lessor.months).toBeNull();
    expect(LEASE_REGIMES.MOBILITY.notice.lessor.months).toBeNull();
  });
});

describe("renewal and term", () => {
  it("renews unfurnished leases 3 years, 6 for a legal-person lessor; furnished 1 year; others never", () => {
    expect(renewalMonths("UNFURNISHED", "NATURAL_PERSON")).toBe(36);
    expect(renewalMonths("UNFURNISHED", "LEGAL_PERSON")).toBe(72);
    expect(renewalMonths("FURNISHED", "LEGAL_PERSON")).toBe(12);
    for (const type of ["MOBILITY", "STUDENT", "COMMERCIAL", "PROFESSIONAL", "PARKING"] as const)
      expect(renewalMonths(type, "NATURAL_PERSON"), type).toBeNull();
    expect(LEASE_TYPES.filter(endsAtTerm)).toEqual(["MOBILITY", "STUDENT"]);
  });

  it("the first term: the duration stated, else from the end date, else the law's default", () => {
    expect(firstTermMonths(lease("UNFURNISHED", { duration_months: 48, end_date: "2026-12-30" }))).toBe(48);
    expect(firstTermMonths(lease("UNFURNISHED", { end_date: "2026-12-30" }))).toBe(24);
    expect(firstTermMonths(lease("UNFURNISHED"))).toBe(36);
    expect(firstTermMonths(lease("UNFURNISHED"), "LEGAL_PERSON")).toBe(72);
    expect(firstTermMonths(lease("FURNISHED"), "LEGAL_PERSON")).toBe(12);
    expect(firstTermMonths(lease("MOBILITY"))).toBeNull();
    expect(firstTermMonths(lease("COMMERCIAL"))).toBe(108);
    expect(firstTermMonths(lease("PARKING"))).toBeNull();
  });

  it("lists the days a contract is concluded and renewed, up to a day included", () => {
    const unfurnished = lease("UNFURNISHED", { duration_months: 36 });
    expect(contractPeriodStarts(unfurnished, "2030-12-30")).toEqual(["2024-12-31", "2027-12-31"]);
    expect(contractPeriodStarts(unfurnished, "2030-12-31")).toEqual([
      "2024-12-31",
      "2027-12-31",
      "2030-12-31",
    ]);
    expect(contractPeriodStarts(unfurnished, "2030-12-31", "LEGAL_PERSON")).toEqual([
      "2024-12-31",
      "2027-12-31",
    ]);
    expect(contractPeriodStarts(lease("UNFURNISHED"), "2031-01-01", "LEGAL_PERSON")).toEqual([
      "2024-12-31",
      "2030-12-31",
    ]);
    expect(contractPeriodStarts(lease("STUDENT", { duration_months: 9 }), "2030-01-01")).toEqual([
      "2024-12-31",
    ]);
    expect(contractPeriodStarts(lease("PARKING"), "2030-01-01")).toEqual(["2024-12-31"]);
  });

  it("counts renewals back from an end date a renewal moved", () => {
    // Furnished from 2024-12-31, end date moved by two renewals to 2027-12-30.
    const renewed = lease("FURNISHED", { end_date: "2027-12-30" });
    expect(contractPeriodStarts(renewed, "2027-12-31")).toEqual([
      "2024-12-31",
      "2025-12-31",
      "2026-12-31",
      "2027-12-31",
    ]);
    expect(periodStartOn(renewed, "2026-12-30")).toBe("2025-12-31");
    expect(periodStartOn(renewed, "2026-12-31")).toBe("2026-12-31");
  });

  it("the next conclusion or renewal on or after a day; null when the lease is never renewed", () => {
    const unfurnished = lease("UNFURNISHED", { duration_months: 36 });
    expect(nextPeriodStartFrom(unfurnished, "2024-12-31")).toBe("2024-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2025-01-01")).toBe("2027-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2027-12-31")).toBe("2027-12-31");
    expect(nextPeriodStartFrom(unfurnished, "2028-01-01")).toBe("2030-12-31");
    // The 3-year term stated, then 6-year renewals (art. 10).
    expect(nextPeriodStartFrom(unfurnished, "2028-01-01", "LEGAL_PERSON")).toBe("2033-12-31");
    expect(nextPeriodStartFrom(lease("MOBILITY", { duration_months: 10 }), "2025-01-01")).toBeNull();
    expect(nextPeriodStartFrom(lease("PARKING"), "2025-01-01")).toBeNull();
  });
});

describe("bail mobilité (art. 25-12 to 25-18)", () => {
  const ref = `${LAW}, art. 25-14`;
  const mobility = (over: { end_date?: string | null; duration_months?: number | null }) =>
    mobilityDurationVerdict({ ...lease("MOBILITY", over), start_date: "2025-01-15" });

  it("lasts 1 to 10 months by its duration", () => {
    for (const d of [1, 10]) expect(mobility({ duration_months: d }).status, `${d}`).toBe("PASS");
    for (const d of [0, 11])
      expect(mobility({ duration_months: d }), `${d}`).toEqual({
        rule: "MOBILITY_DURATION",
        status: "FAIL",
        message: `A bail mobilité lasts 1 to 10 months (${ref})`,
        legal_reference: ref,
        details: {
          start_date: "2025-01-15",
          end_date: null,
          duration_months: d,
          errors: [{ field: "duration_months", message: `${d} months is outside 1 to 10 months` }],
        },
      });
  });

  it("ends between the day before its 1-month and its 10-month anniversaries", () => {
    expect(mobility({ end_date: "2025-02-14" })).toEqual({
      rule: "MOBILITY_DURATION",
      status: "PASS",
      message: `The bail mobilité lasts 1 to 10 months (${ref})`,
      legal_reference: ref,
      details: { start_date: "2025-01-15", end_date: "2025-02-14", duration_months: null },
    });
    expect(mobility({ end_date: "2025-11-14" }).status).toBe("PASS");
    for (const end of ["2025-02-13", "2025-11-15"])
      expect(mobility({ end_date: end }).details.errors, end).toEqual([
        {
          field: "end_date",
          message: "A bail mobilité starting 2025-01-15 ends between 2025-02-14 and 2025-11-14",
        },
      ]);
    expect(
      mobility({ duration_months: 12, end_date: "2026-01-14" }).details.errors?.map((e) => e.field),
    ).toEqual(["duration_months", "end_date"]);
  });

  it("is UNKNOWN without duration nor end; other leases are not judged", () => {
    expect(mobility({})).toMatchObject({
      status: "UNKNOWN",
      message: "The lease states neither its duration nor its end",
    });
    expect(mobilityDurationVerdict(lease("FURNISHED", { duration_months: 40 }))).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "Not a bail mobilité",
    });
  });

  it("names its motive of mobility (art. 25-13)", () => {
    const mref = `${LAW}, art. 25-13`;
    expect(mobilityMotiveVerdict("MOBILITY", "stage")).toEqual({
      rule: "MOBILITY_MOTIVE",
      status: "PASS",
      message: "The bail mobilité names its motive: stage",
      legal_reference: mref,
      details: {},
    });
    for (const motive of [null, "  "])
      expect(mobilityMotiveVerdict("MOBILITY", motive)).toMatchObject({
        status: "FAIL",
        message: `A bail mobilité names the motive of mobility the lessee justifies (${mref})`,
        details: { errors: [{ field: "mobility_motive" }] },
      });
    expect(mobilityMotiveVerdict("FURNISHED", null).status).toBe("NOT_APPLICABLE");
  });

  it("charges: flat for a bail mobilité, flat or provisions furnished, provisions unfurnished", () => {
    expect(chargeSettlementOf("MOBILITY", null)).toBe("FLAT");
    expect(chargeSettlementOf("FURNISHED", "FLAT_RATE")).toBe("FLAT");
    expect(chargeSettlementOf("STUDENT", "FLAT_RATE")).toBe("FLAT");
    expect(chargeSettlementOf("FURNISHED", null)).toBe("PROVISION");
    expect(chargeSettlementOf("UNFURNISHED", "FLAT_RATE")).toBe("PROVISION");
  });
});

/**
 * The catalogue is what GET /api/lease-types publishes: clients read it instead of hard-coding the
 * law, so its whole content is pinned here, written out by hand from loi n° 89-462 (art. 3, 10, 15,
 * 17-1, 22, 25-4 to 25-18), loi n° 86-1290 art. 57 A and code de commerce art. L. 145-4, L. 145-9.
 */
const ART = (n: string) => `${LAW}, art. ${n}`;
const ANNEXES = [
  "Dossier de diagnostic technique (art. 3-3): DPE, constat de risque d'exposition au plomb, état de l'amiante (copropriété), états des installations d'électricité et de gaz, état des risques, diagnostic bruit",
  "Notice d'information (art. 3)",
  "État des lieux d'entrée (art. 3-2)",
  "Extraits du règlement de copropriété (art. 3)",
];
const FURNISHED_ANNEXES = [...ANNEXES, "Inventaire et état détaillé du mobilier (art. 25-5)"];
const MENTIONS = [
  "Parties: nom ou dénomination et domicile du bailleur (et de son mandataire), nom du locataire (art. 3)",
  "Date de prise d'effet et durée (art. 3)",
  "Consistance, destination et surface habitable du logement; locaux et équipements privatifs et communs (art. 3)",
  "Loyer, modalités de paiement et, s'il y a lieu, de révision; dépôt de garantie (art. 3)",
  "Loyer de référence et loyer du précédent locataire lorsque la loi le prévoit (art. 3)",
];
const UNKNOWN_INDEX = { index: "UNKNOWN", at_most_once_a_year: "UNKNOWN", legal_reference: "UNKNOWN" };
const NO_CAP = { cap_months: "UNKNOWN", notes: "No cap confirmed", legal_reference: "UNKNOWN" };
const NO_LESSOR_NOTICE = { months: null, when: "no notice: the lease ends at its term" };

const EXPECTED_CATALOGUE = {
  UNFURNISHED: {
    code: "UNFURNISHED",
    label: "Bail d'habitation non meublé",
    law: `${LAW}, titre Ier`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 36,
      maximum_months: null,
      default_months: 36,
      renewal: "TACIT",
      renewal_months: 36,
      notes:
        "3 years when the lessor is a natural person or a family SCI (art. 13); 6 years, and 6-year renewals, when it is another legal person",
      legal_reference: ART("10"),
    },
    deposit: {
      cap_months: 1,
      notes:
        "1 month of rent excluding charges, judged when the deposit is set and never revised during the lease; none when the rent is payable in advance for more than two months",
      legal_reference: ART("22"),
    },
    notice: {
      lessee: {
        months: 3,
        when: "any time; 1 month in a high-demand zone or in the cases art. 15 I lists",
        legal_reference: ART("15 I"),
      },
      lessor: { months: 6, when: "before the term, for the term", legal_reference: ART("15 I") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: ART("17-1 I") },
    mandatory_mentions: MENTIONS,
    mandatory_annexes: ANNEXES,
  },
  FURNISHED: {
    code: "FURNISHED",
    label: "Bail d'habitation meublé",
    law: `${LAW}, titre Ier bis`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 12,
      maximum_months: null,
      default_months: 12,
      renewal: "TACIT",
      renewal_months: 12,
      notes: null,
      legal_reference: ART("25-7"),
    },
    deposit: { cap_months: 2, notes: null, legal_reference: ART("25-6") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: ART("25-8 I") },
      lessor: { months: 3, when: "before the term, for the term", legal_reference: ART("25-8 I") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: ART("25-9, 17-1 I") },
    mandatory_mentions: MENTIONS,
    mandatory_annexes: FURNISHED_ANNEXES,
  },
  STUDENT: {
    code: "STUDENT",
    label: "Bail meublé étudiant (9 mois)",
    law: `${LAW}, titre Ier bis`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 9,
      maximum_months: null,
      default_months: 9,
      renewal: "NONE",
      renewal_months: null,
      notes: "A 9-month furnished lease to a student is not renewed tacitly: it ends at its term",
      legal_reference: ART("25-7"),
    },
    deposit: { cap_months: 2, notes: null, legal_reference: ART("25-6") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: ART("25-8 I") },
      lessor: { ...NO_LESSOR_NOTICE, legal_reference: ART("25-7") },
    },
    index_revision: { index: "IRL", at_most_once_a_year: true, legal_reference: ART("25-9, 17-1 I") },
    mandatory_mentions: MENTIONS,
    mandatory_annexes: FURNISHED_ANNEXES,
  },
  MOBILITY: {
    code: "MOBILITY",
    label: "Bail mobilité",
    law: `${LAW}, titre Ier ter (art. 25-12 to 25-18)`,
    under_loi_89_462: true,
    duration: {
      minimum_months: 1,
      maximum_months: 10,
      default_months: null,
      renewal: "NONE",
      renewal_months: null,
      notes:
        "1 to 10 months, neither renewed nor reconducted; its duration may change once by amendment within 10 months",
      legal_reference: ART("25-14"),
    },
    deposit: { cap_months: 0, notes: "No deposit may be required", legal_reference: ART("25-13") },
    notice: {
      lessee: { months: 1, when: "any time", legal_reference: ART("25-15") },
      lessor: { ...NO_LESSOR_NOTICE, legal_reference: ART("25-14") },
    },
    index_revision: {
      index: "NONE",
      at_most_once_a_year: null,
      legal_reference: `${LAW}, art. 25-12 (art. 17-1 is not among the articles it applies)`,
    },
    mandatory_mentions: [
      ...MENTIONS,
      "The words « bail mobilité » and its articles 25-12 to 25-18; the motive of mobility (art. 25-13)",
      "Charges as a flat rate (art. 25-18)",
    ],
    mandatory_annexes: FURNISHED_ANNEXES,
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
      renewal_months: "UNKNOWN",
      notes: "At least 6 years, reconducted tacitly at its term",
      legal_reference: "loi n° 86-1290, art. 57 A",
    },
    deposit: NO_CAP,
    notice: {
      lessee: { months: 6, when: "any time", legal_reference: "loi n° 86-1290, art. 57 A" },
      lessor: {
        months: 6,
        when: "before the term, for the term",
        legal_reference: "loi n° 86-1290, art. 57 A",
      },
    },
    index_revision: UNKNOWN_INDEX,
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
      renewal: "UNKNOWN",
      renewal_months: "UNKNOWN",
      notes: "At least 9 years",
      legal_reference: "code de commerce, art. L. 145-4",
    },
    deposit: NO_CAP,
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
    index_revision: UNKNOWN_INDEX,
    mandatory_mentions: [],
    mandatory_annexes: [],
  },
  PARKING: {
    code: "PARKING",
    label: "Location d'un emplacement de stationnement",
    law: "UNKNOWN (outside loi n° 89-462 when let apart from a dwelling)",
    under_loi_89_462: false,
    duration: {
      minimum_months: "UNKNOWN",
      maximum_months: null,
      default_months: "UNKNOWN",
      renewal: "UNKNOWN",
      renewal_months: "UNKNOWN",
      notes: null,
      legal_reference: "UNKNOWN",
    },
    deposit: { cap_months: "UNKNOWN", notes: null, legal_reference: "UNKNOWN" },
    notice: {
      lessee: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
      lessor: { months: "UNKNOWN", when: "UNKNOWN", legal_reference: "UNKNOWN" },
    },
    index_revision: UNKNOWN_INDEX,
    mandatory_mentions: [],
    mandatory_annexes: [],
  },
};

describe("the published catalogue (GET /api/lease-types)", () => {
  it("holds exactly the seven types, in order", () => {
    expect(LEASE_TYPES).toEqual([
      "UNFURNISHED",
      "FURNISHED",
      "MOBILITY",
      "STUDENT",
      "COMMERCIAL",
      "PROFESSIONAL",
      "PARKING",
    ]);
    expect(Object.keys(LEASE_REGIMES).sort()).toEqual(Object.keys(EXPECTED_CATALOGUE).sort());
  });

  for (const type of Object.keys(EXPECTED_CATALOGUE) as LeaseType[])
    it(`states the ${type} regime word for word`, () => {
      expect(LEASE_REGIMES[type]).toStrictEqual(EXPECTED_CATALOGUE[type]);
    });
});

const depositStatus = (type: LeaseType, deposit_amount: number) =>
  depositVerdict({
    lease_type: type,
    rent_amount: 1000,
    deposit_amount,
    rent_frequency: null,
    payment_terms: null,
  }).status;
/** A notice on a lease whose term ends 2027-12-30 (anniversary 2027-12-31). */
const notice = (type: LeaseType, given_by: "LESSEE" | "LESSOR", notifiedOn: string) =>
  noticeVerdict(lease(type, { end_date: "2027-12-30" }), notifiedOn, { ...DEFAULT_NOTICE, given_by });

describe("the catalogue agrees with the rules it summarises, type by type", () => {
  for (const type of LEASE_TYPES)
    it(`${type}: deposit cap, notices, renewal and first term`, () => {
      const { deposit, notice: periods, duration } = LEASE_REGIMES[type];

      // Deposit: the cap's months of rent pass, one cent more fails; outside the law, no cap is judged.
      if (typeof deposit.cap_months === "number") {
        expect(depositStatus(type, 1000 * deposit.cap_months)).toBe("PASS");
        expect(depositStatus(type, 1000 * deposit.cap_months + 0.01)).toBe("FAIL");
      } else {
        expect(deposit.cap_months).toBe("UNKNOWN");
        expect(depositStatus(type, 1)).toBe("NOT_APPLICABLE");
      }

      // Notices: the months the notice rule counts. Commercial leases end at a three-year period
      // (L. 145-4); where the catalogue has no confirmed period the rule counts none (the client's date).
      const lessee = periods.lessee.months;
      const lesseeEnd = notice(type, "LESSEE", "2025-01-15").details.notice_end_date;
      if (type === "COMMERCIAL") expect(lesseeEnd).toBe(termEnd("2024-12-31", 36));
      else if (typeof lessee === "number") expect(lesseeEnd).toBe(addMonths("2025-01-15", lessee));
      else expect(lesseeEnd).toBeNull();

      const lessor = periods.lessor.months;
      if (typeof lessor === "number") {
        // In time until the last day whose `lessor` months run out by the term, late a day after.
        const last = lastDayBefore("2027-12-30", lessor);
        expect(
          addMonths(last, lessor) <= "2027-12-30" && addMonths(addDays(last, 1), lessor) > "2027-12-30",
        ).toBe(true);
        expect(notice(type, "LESSOR", last).details.notice_end_date).toBe("2027-12-30");
        const late = notice(type, "LESSOR", addDays(last, 1));
        // A commercial lease goes on past its term (L. 145-9): the notice ends at a later quarter's end.
        if (type === "COMMERCIAL") expect(late.details.notice_end_date).toBe("2028-03-31");
        else expect(late.status).toBe("FAIL");
      } else if (lessor === null) {
        // No lessor's notice: the rule refuses one.
        expect(notice(type, "LESSOR", "2025-01-15").status).toBe("FAIL");
      } else {
        expect(notice(type, "LESSOR", "2025-01-15").details.notice_end_date).toBeNull();
      }

      // Renewal and first term: the term rules renew by the catalogue's months, or never.
      const renewal = renewalMonths(type, "NATURAL_PERSON");
      if (typeof duration.renewal_months === "number") expect(renewal).toBe(duration.renewal_months);
      else expect(renewal).toBeNull();
      expect(endsAtTerm(type)).toBe(duration.renewal === "NONE");
      expect(firstTermMonths(lease(type))).toBe(
        typeof duration.default_months === "number" ? duration.default_months : null,
      );
    });

  it("MOBILITY: the duration rule accepts the catalogue's minimum to maximum months, no more, no less", () => {
    const { minimum_months, maximum_months } = LEASE_REGIMES.MOBILITY.duration;
    const status = (duration_months: number) =>
      mobilityDurationVerdict(lease("MOBILITY", { duration_months })).status;
    expect(status(minimum_months as number)).toBe("PASS");
    expect(status(maximum_months as number)).toBe("PASS");
    expect(status((minimum_months as number) - 1)).toBe("FAIL");
    expect(status((maximum_months as number) + 1)).toBe("FAIL");
  });

  it("UNFURNISHED: a legal-person lessor's 6-year terms and renewals the notes state", () => {
    expect(LEASE_REGIMES.UNFURNISHED.duration.notes).toContain("6 years, and 6-year renewals");
    expect(renewalMonths("UNFURNISHED", "LEGAL_PERSON")).toBe(72);
    expect(firstTermMonths(lease("UNFURNISHED"), "LEGAL_PERSON")).toBe(72);
  });
});

describe("a family SCI lets as a natural person (art. 10, 13 a): 3 years, not 6", () => {
  it("its term, renewals and period starts are those of a natural person", () => {
    expect(lessorKind("company", "FAMILY_SCI")).toBe("FAMILY_SCI");
    expect(lessorKind("company", "OTHER_COMPANY")).toBe("LEGAL_PERSON");
    expect(lessorKind("company", null)).toBe("LEGAL_PERSON");
    expect(lessorKind("individual", "FAMILY_SCI")).toBe("NATURAL_PERSON");
    expect(renewalMonths("UNFURNISHED", "FAMILY_SCI")).toBe(36);
    expect(firstTermMonths(lease("UNFURNISHED"), "FAMILY_SCI")).toBe(36);
    const l = {
      lease_type: "UNFURNISHED" as const,
      start_date: "2020-01-01",
      end_date: null,
      duration_months: null,
    };
    expect(contractPeriodStarts(l, "2026-01-01", "FAMILY_SCI")).toEqual([
      "2020-01-01",
      "2023-01-01",
      "2026-01-01",
    ]);
    expect(contractPeriodStarts(l, "2026-01-01", "LEGAL_PERSON")).toEqual(["2020-01-01", "2026-01-01"]);
  });
});
