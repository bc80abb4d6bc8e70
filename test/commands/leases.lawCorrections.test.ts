import { describe, expect, it } from "vitest";
import { energyClassOf } from "../../src/commands/energyDiagnoses/decider.ts";
import { amendmentOf, leaseTermsOf } from "../../src/commands/leases/bodies.ts";
import {
  type ComplianceFacts,
  decencyCalendarCheck,
  depositCapCheck,
  rentControlCheck,
} from "../../src/commands/leases/compliance.ts";
import { buildLeaseContract } from "../../src/commands/leases/contract/buildLeaseContract.ts";
import { contractMarkup } from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { type LeaseCommand, leaseDecider } from "../../src/commands/leases/decider.ts";
import type { LeaseEvent, LeaseTerms } from "../../src/events/leases.ts";
import type { LeaseContractFacts } from "../../src/queries/leaseContractFacts.ts";
import { deciderSpec } from "../support/deciderSpec.ts";
import { sampleContract } from "../support/leaseContractSample.ts";
import { leaseHistory, sampleTerms } from "../support/leaseHistory.ts";

/**
 * The French law corrections of 2026-11 (docs/compliance.md, "What changed in the law's reading"),
 * each at its boundary. Every test here failed on the code before them.
 */

const spec = deciderSpec(leaseDecider);
const leaseId = "7d0c0a3e-1111-4c3b-9d4e-000000000001";
const estateId = "7d0c0a3e-2222-4c3b-9d4e-000000000002";
const primaryId = "7d0c0a3e-3333-4c3b-9d4e-000000000003";
const amendmentId = "7d0c0a3e-4444-4c3b-9d4e-000000000004";

const terms = sampleTerms(estateId, {
  rent_amount: 1000,
  deposit_amount: 1000,
  payment_terms: "TERME_A_ECHOIR",
});

const active = (extra: Partial<LeaseTerms> = {}): LeaseEvent[] =>
  leaseHistory(
    leaseId,
    { ...terms, ...extra },
    { lessee_id: primaryId, association_id: "7d0c0a3e-5555-4c3b-9d4e-000000000005" },
  ).active;

const create = (extra: Partial<LeaseTerms>): LeaseCommand => {
  const { estate_id, ...rest } = { ...terms, ...extra };
  return {
    type: "CreateLease",
    lease_id: leaseId,
    association_id: "7d0c0a3e-5555-4c3b-9d4e-000000000005",
    terms: leaseTermsOf({ ...rest, estate_id, primary_lessee_id: primaryId } as never),
    primary_lessee_id: primaryId,
    estate_exists: true,
    primary: { category: "individual" },
  };
};

const rent = (input: Record<string, unknown>, dpe: { energy_label: string; valid_until: string } | null) =>
  ({ type: "ChangeRent", lease_id: leaseId, rent: input as never, dpe }) as LeaseCommand;

const irl = (effective_date: string, rent_amount = 1010, type = "IRL") => ({
  rent_amount,
  effective_date,
  reason: "INDEX_REVISION",
  index: {
    type,
    reference_quarter: "2024-Q2",
    reference_value: 145.17,
    new_quarter: "2025-Q2",
    new_value: 146.68,
  },
});

describe("1. the deposit is never revised during the lease (loi 89-462 art. 22)", () => {
  const cut = { title: "Baisse", effective_date: "2025-06-01", changes: { rent_amount: 950 }, reason: null };
  const drafted: LeaseEvent = {
    type: "LeaseAmendmentDrafted",
    data: { lease_id: leaseId, amendment_id: amendmentId, ...cut },
  };
  it("accepts and applies an amendment lowering the rent below the deposit", () => {
    spec
      .given(active())
      .when({
        type: "DraftAmendment",
        lease_id: leaseId,
        amendment_id: amendmentId,
        amendment: amendmentOf(cut),
      })
      .then([drafted]);
    const submitted: LeaseEvent = {
      type: "LeaseAmendmentSubmitted",
      data: { lease_id: leaseId, amendment_id: amendmentId, reason: null },
    };
    const events = spec
      .given([...active(), drafted, submitted])
      .when({
        type: "ChangeAmendmentStatus",
        lease_id: leaseId,
        amendment_id: amendmentId,
        status: "VALIDATED",
        reason: null,
        dpe: null,
      })
      .thenEvents();
    expect(events.map((e) => e.type)).toEqual(["LeaseAmendmentValidated", "LeaseRentChanged"]);
  });
  it("lets a signed lease whose rent was cut below its deposit change its free fields", () => {
    const cut: LeaseEvent = {
      type: "LeaseRentChanged",
      data: {
        lease_id: leaseId,
        rent_amount: 950,
        charges_amount: 50,
        previous_rent_amount: 1000,
        previous_charges_amount: 50,
        effective_date: "2025-06-01",
        reason: "AGREEMENT",
        index: null,
      },
    };
    spec
      .given([...active(), cut])
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { payment_method: "CHEQUE" } })
      .then([{ type: "LeaseUpdated", data: { lease_id: leaseId, changes: { payment_method: "CHEQUE" } } }]);
  });
  it("judges DEPOSIT_CAP on the rent when the deposit was set, not the current rent", () => {
    const facts = (deposit_amount: number) =>
      ({
        lease: {
          ...terms,
          id: leaseId,
          status: "ACTIVE",
          rent_amount: 950,
          deposit_amount,
          lessor: "NATURAL_PERSON",
        },
        rent_changes: [
          {
            effective_date: "2025-06-01",
            rent_amount: 950,
            previous_rent_amount: 1000,
            reason: "AGREEMENT",
            index: null,
            dpe: null,
          },
        ],
      }) as unknown as ComplianceFacts;
    expect(depositCapCheck(facts(1000)).status).toBe("PASS");
    expect(depositCapCheck(facts(1000.01)).status).toBe("FAIL");
  });
});

describe("2. no deposit when the rent is paid more than two months in advance (art. 22 al. 2)", () => {
  it("refuses a deposit with a quarterly rent paid in advance; accepts it monthly or paid at term", () => {
    spec
      .given()
      .when(create({ rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR", deposit_amount: 1 }))
      .thenRefuses(422, /more than two months.*art\. 22/, ["deposit_amount"]);
    spec
      .given()
      .when(create({ rent_frequency: "ANNUALLY", payment_terms: "TERME_A_ECHOIR", deposit_amount: 1 }))
      .thenRefuses(422, /more than two months/);
    for (const ok of [
      { rent_frequency: "MONTHLY", payment_terms: "TERME_A_ECHOIR", deposit_amount: 1000 },
      { rent_frequency: "QUARTERLY", payment_terms: "TERME_ECHU", deposit_amount: 1000 },
      { rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR", deposit_amount: 0 },
      { rent_frequency: "QUARTERLY", payment_terms: "TERME_A_ECHOIR", deposit_amount: null },
    ] as Partial<LeaseTerms>[])
      expect(spec.given().when(create(ok)).thenEvents()[0].type).toBe("LeaseCreated");
  });
  it("a furnished lease too: art. 25-3 applies art. 22 to it", () => {
    spec
      .given()
      .when(
        create({
          lease_type: "FURNISHED",
          rent_frequency: "QUARTERLY",
          payment_terms: "TERME_A_ECHOIR",
          deposit_amount: 1,
        } as Partial<LeaseTerms>),
      )
      .thenRefuses(422, /more than two months.*art\. 22 al\. 2, applied by art\. 25-3/, ["deposit_amount"]);
  });
});

describe("3. unfurnished and furnished leases are renewed tacitly at their term (art. 10, 25-7)", () => {
  const reach = (
    today: string,
    lessor: "NATURAL_PERSON" | "LEGAL_PERSON" = "NATURAL_PERSON",
  ): LeaseCommand => ({
    type: "ReachLeaseTerm",
    lease_id: leaseId,
    today,
    lessor,
  });
  const renewed = (renewed_on: string, previous_end_date: string, end_date: string, months: number) => ({
    type: "LeaseRenewed",
    data: { lease_id: leaseId, renewed_on, previous_end_date, end_date, months },
  });
  it("renews for 3 years, 6 for a legal-person lessor, from the day after the term; nothing on the term day", () => {
    const lease = active({ end_date: "2027-12-31" });
    spec.given(lease).when(reach("2027-12-31")).thenNothing();
    spec
      .given(lease)
      .when(reach("2028-01-01"))
      .then([renewed("2028-01-01", "2027-12-31", "2030-12-31", 36)] as LeaseEvent[]);
    spec
      .given(lease)
      .when(reach("2028-01-01", "LEGAL_PERSON"))
      .then([renewed("2028-01-01", "2027-12-31", "2033-12-31", 72)] as LeaseEvent[]);
    spec
      .given(active({ lease_type: "FURNISHED", end_date: "2025-12-31" }))
      .when(reach("2026-01-01"))
      .then([renewed("2026-01-01", "2025-12-31", "2026-12-31", 12)] as LeaseEvent[]);
  });
  it("expires a bail mobilité or a student lease at its term", () => {
    const [expired] = spec
      .given(
        active({ lease_type: "MOBILITY", deposit_amount: null, duration_months: 10, end_date: "2025-10-31" }),
      )
      .when(reach("2025-11-01"))
      .thenEvents();
    expect(expired).toMatchObject({ type: "LeaseExpired", data: { effective_date: "2025-10-31" } });
  });
});

describe("4. the decency calendar applies from the contract's conclusion or renewal (loi 2021-1104 art. 160)", () => {
  const facts = (start_date: string, on: string) =>
    ({
      lease: { ...terms, id: leaseId, status: "ACTIVE", start_date, lessor: "NATURAL_PERSON" },
      on,
      dpe_on: { energy_label: "G", diagnosis_date: "2024-01-01", valid_until: "2034-01-01" },
    }) as unknown as ComplianceFacts;
  it("passes a G dwelling let on 2024-12-31 until its renewal on 2027-12-31, and says when", () => {
    const now = decencyCalendarCheck(facts("2024-12-31", "2026-11-26"));
    expect(now.status).toBe("PASS");
    expect(now.details).toMatchObject({ non_compliant_from: "2027-12-31" });
    expect(now.message).toContain("2027-12-31");
    expect(decencyCalendarCheck(facts("2024-12-31", "2027-12-30")).status).toBe("PASS");
    expect(decencyCalendarCheck(facts("2024-12-31", "2027-12-31")).status).toBe("FAIL");
    // Concluded from 2025-01-01: not decent from its start.
    expect(decencyCalendarCheck(facts("2025-01-01", "2025-01-01")).status).toBe("FAIL");
  });
});

describe("5. the F/G rent freeze applies to contracts concluded or renewed from 2022-08-24 (art. 159)", () => {
  const g = { energy_label: "G", valid_until: "2030-01-01" };
  const increase = (effective_date: string) => ({ rent_amount: 1010, effective_date, reason: "AGREEMENT" });
  it("lets the rent of a G dwelling rise under a lease concluded before, until its renewal", () => {
    const lease = active({ start_date: "2021-09-01", duration_months: 36 });
    expect(
      spec
        .given(lease)
        .when(rent(increase("2023-06-01"), g))
        .thenEvents()[0].type,
    ).toBe("LeaseRentChanged");
    expect(
      spec
        .given(lease)
        .when(rent(increase("2024-08-31"), g))
        .thenEvents(),
    ).toHaveLength(1);
    spec
      .given(lease)
      .when(rent(increase("2024-09-01"), g))
      .thenRefuses(422, /classed G.*17-1/, ["rent_amount"]);
  });
  it("counts a company lessor's 6-year contract as one period (art. 10)", () => {
    const lease = active({ start_date: "2020-01-01", end_date: "2025-12-31", duration_months: null });
    const raise = { ...(rent(increase("2023-06-01"), g) as object), lessor: "LEGAL_PERSON" } as LeaseCommand;
    expect(spec.given(lease).when(raise).thenEvents()).toHaveLength(1);
    // Taken as 3-year periods (a natural person), the contract was renewed on 2023-01-01.
    spec
      .given(lease)
      .when(rent(increase("2023-06-01"), g))
      .thenRefuses(422, /classed G/);
  });
});

describe("6. the DPE scale before 2021-07-01 has F up to 450 (arrêté du 15 septembre 2006)", () => {
  it("classes 430 and 450 kWh F on a 2020 certificate, 450.01 G; 2021's scale keeps 420", () => {
    expect(energyClassOf(430, "2020-06-01")).toBe("F");
    expect(energyClassOf(450, "2021-06-30")).toBe("F");
    expect(energyClassOf(450.01, "2021-06-30")).toBe("G");
    expect(energyClassOf(420.01, "2021-07-01")).toBe("G");
  });
});

describe("7. index revision: IRL only under loi 89-462, at most once a year, none on a bail mobilité", () => {
  it("refuses an ICC revision of an unfurnished lease (art. 17-1 I)", () => {
    spec
      .given(active())
      .when(rent(irl("2026-01-01", 1005, "ICC"), null))
      .thenRefuses(422, /IRL only.*17-1/, ["index.type"]);
  });
  it("refuses a second revision within a year: the day before the anniversary, not on it", () => {
    const revised: LeaseEvent = {
      type: "LeaseRentChanged",
      data: {
        lease_id: leaseId,
        rent_amount: 1010,
        charges_amount: 50,
        previous_rent_amount: 1000,
        previous_charges_amount: 50,
        effective_date: "2026-01-01",
        reason: "INDEX_REVISION",
        index: irl("2026-01-01").index as never,
      },
    };
    // The next year's: 2025-Q2 (the reference now) to 2026-Q2; 1010 × 147.5 / 146.68 = 1015.64.
    const nextYear = (effective_date: string) => ({
      ...irl(effective_date, 1015),
      index: {
        type: "IRL",
        reference_quarter: "2025-Q2",
        reference_value: 146.68,
        new_quarter: "2026-Q2",
        new_value: 147.5,
      },
    });
    spec
      .given([...active(), revised])
      .when(rent(nextYear("2026-12-31"), null))
      .thenRefuses(422, /once a year/, ["effective_date"]);
    expect(
      spec
        .given([...active(), revised])
        .when(rent(nextYear("2027-01-01"), null))
        .thenEvents(),
    ).toHaveLength(1);
  });
  it("refuses any index revision of a bail mobilité (art. 25-12)", () => {
    spec
      .given(active({ lease_type: "MOBILITY", deposit_amount: null, duration_months: 10 }))
      .when(rent(irl("2025-06-01"), null))
      .thenRefuses(422, /mobilité.*25-12/);
  });
});

describe("8. a bail mobilité lasts 1 to 10 months, with no deposit (art. 25-13, 25-14)", () => {
  const mobility = {
    lease_type: "MOBILITY",
    deposit_amount: null,
    start_date: "2026-01-01",
    mobility_motive: "Mission temporaire",
  } as const;
  it("refuses 11 or 13 months, takes 1 and 10; by end date up to the day before the 10-month anniversary", () => {
    for (const months of [0, 11, 13])
      spec
        .given()
        .when(create({ ...mobility, duration_months: months }))
        .thenRefuses(422, /1 to 10 months.*25-14/, ["duration_months"]);
    for (const months of [1, 10])
      expect(
        spec
          .given()
          .when(create({ ...mobility, duration_months: months }))
          .thenEvents(),
      ).toHaveLength(2);
    const byEnd = { ...mobility, duration_months: null };
    expect(
      spec
        .given()
        .when(create({ ...byEnd, end_date: "2026-10-31" }))
        .thenEvents(),
    ).toHaveLength(2);
    spec
      .given()
      .when(create({ ...byEnd, end_date: "2026-11-01" }))
      .thenRefuses(422, /1 to 10 months/, ["end_date"]);
    spec
      .given()
      .when(create({ ...mobility, duration_months: 10, deposit_amount: 0.01 }))
      .thenRefuses(422, /25-13/);
  });
  it("states its motive when it is created, not only when its contract is printed (art. 25-13)", () => {
    for (const motive of [null, "", "   "])
      spec
        .given()
        .when(create({ ...mobility, duration_months: 6, mobility_motive: motive }))
        .thenRefuses(422, /motive of mobility.*25-13/, ["mobility_motive"]);
    expect(
      spec
        .given()
        .when(create({ ...mobility, duration_months: 6, mobility_motive: "S" }))
        .thenEvents(),
    ).toHaveLength(2);
    // Another type needs none; a draft turned into a bail mobilité does.
    const furnished = {
      ...mobility,
      lease_type: "FURNISHED",
      duration_months: 12,
      mobility_motive: null,
    } as const;
    const [created] = spec.given().when(create(furnished)).thenEvents();
    spec
      .given([created])
      .when({
        type: "UpdateLease",
        lease_id: leaseId,
        changes: { lease_type: "MOBILITY", duration_months: 6 },
      })
      .thenRefuses(422, /25-13/, ["mobility_motive"]);
  });
});

describe("9. the term ends the day before the anniversary (art. 15 I)", () => {
  it("takes a lessor's notice received by the day before the anniversary-equivalent 6 months earlier, for the term", () => {
    const notice = (received_on: string): LeaseCommand => ({
      type: "GiveLeaseNotice",
      lease_id: leaseId,
      notice_id: amendmentId,
      received_on,
      given_by: "LESSOR",
      reason: "LEGITIMATE_SERIOUS_REASON",
      high_demand_zone: null,
    });
    const [given] = spec
      .given(active({ end_date: "2027-12-31" }))
      .when(notice("2027-06-30"))
      .thenEvents();
    expect(given).toMatchObject({ type: "LeaseNoticeGiven", data: { notice_end_date: "2027-12-31" } });
    spec
      .given(active({ end_date: "2027-12-31" }))
      .when(notice("2027-07-01"))
      .thenRefuses(422, /6 months before the term/);
  });
});

describe("10. the contract states the law in force", () => {
  it("gives six weeks after a commandement de payer (art. 24 since loi 2023-668)", () => {
    const text = contractMarkup(sampleContract("UNFURNISHED"));
    expect(text).toContain("six semaines après un commandement de payer");
    expect(text).not.toContain("deux mois après un commandement de payer");
  });
  const facts = (lease: Record<string, unknown>, owner: Record<string, unknown>) =>
    ({
      lease: {
        id: leaseId,
        start_date: "2026-01-01",
        end_date: null,
        duration_months: null,
        rent_amount: 900,
        charges_amount: 50,
        charge_settlement_mode: null,
        payment_day: 5,
        deposit_amount: null,
        custom_fields: null,
        ...lease,
      },
      lease_revision: 1,
      parties: [],
      estate: null,
      estate_type: null,
      place: null,
      owner,
      dpe: null,
      diagnostics: [],
      regulation: null,
      previous_lease: null,
    }) as unknown as LeaseContractFacts;
  it("gives a company lessor's unfurnished lease a 6-year term, an individual's 3 years", () => {
    const company = { category: "company", legal_name: "Foncière du Parc" };
    expect(buildLeaseContract(facts({ lease_type: "UNFURNISHED" }, company)).dates.duration_months).toBe(72);
    expect(
      buildLeaseContract(facts({ lease_type: "UNFURNISHED" }, { category: "individual" })).dates
        .duration_months,
    ).toBe(36);
  });
  it("settles charges by the lease type: a flat rate for a bail mobilité, provisions unfurnished", () => {
    const mobility = facts(
      { lease_type: "MOBILITY", charge_settlement_mode: "PROVISION" },
      { category: "individual" },
    );
    expect(buildLeaseContract(mobility).rent.charge_settlement_mode).toBe("FLAT");
    const unfurnished = facts({ lease_type: "UNFURNISHED", charge_settlement_mode: "FLAT_RATE" }, {});
    expect(buildLeaseContract(unfurnished).rent.charge_settlement_mode).toBe("PROVISION");
    const furnished = facts({ lease_type: "FURNISHED", charge_settlement_mode: "FLAT_RATE" }, {});
    expect(buildLeaseContract(furnished).rent.charge_settlement_mode).toBe("FLAT");
  });
});

describe("the rent control experiment (loi ELAN art. 140) is confirmed until 2026-11-23 only", () => {
  const facts = (start_date: string) =>
    ({
      lease: { ...terms, id: leaseId, status: "ACTIVE", start_date, rent_amount: 2000 },
      estate: { area: 40, rooms: 2, construction_year: 1980 },
      regulation: {
        high_demand_zone: true,
        effective_from: "2019-07-01",
        reference_rents: [
          {
            rooms: 2,
            construction_period: "1971_1990",
            furnished: false,
            reference: 20,
            increased_reference: 24,
          },
        ],
      },
      rent_changes: [],
    }) as unknown as ComplianceFacts;
  it("judges a lease concluded on 2026-11-23, answers UNKNOWN from 2026-11-24 with the reason", () => {
    expect(rentControlCheck(facts("2026-11-23")).status).toBe("FAIL");
    for (const disputed of ["2026-11-24", "2026-11-25"]) {
      const v = rentControlCheck(facts(disputed));
      expect(v.status).toBe("UNKNOWN");
      expect(v.message).toContain("23, 24 or 25 November 2026");
    }
    const after = rentControlCheck(facts("2026-11-26"));
    expect(after).toMatchObject({ status: "UNKNOWN", legal_reference: expect.stringContaining("2022-217") });
    expect(after.message).toContain("no text carrying it on is confirmed");
  });
});
