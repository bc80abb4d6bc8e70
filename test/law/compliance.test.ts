import { describe, expect, it } from "vitest";
import {
  type ComplianceFacts,
  decencyCalendarCheck,
  depositCapCheck,
  dpeRentFreezeCheck,
  dpeValidAtStartCheck,
  finalEnergyDecencyCheck,
  irlRevisionCapCheck,
  type RentChange,
  relettingCapCheck,
  relettingExceptions,
  rentComplementCheck,
  rentControlCheck,
} from "../../src/commands/leases/compliance.ts";
import type { LeaseType } from "../../src/events/leases.ts";

/**
 * The compliance checks as the API returns them (docs/compliance.md): status, message, legal reference
 * and the figures compared, at each rule's boundaries and for every lease type the law names.
 */

const LOI = "Loi n° 89-462 du 6 juillet 1989";
/** As the law module (src/law) cites it. */
const LAW = "loi n° 89-462 du 6 juillet 1989";
const FREEZE = `${LOI}, art. 17, 17-1 and 17-2 (loi n° 2021-1104, art. 159)`;
const ELAN = "Loi n° 2018-1021 du 23 novembre 2018 (ELAN), art. 140";
const RELETTING =
  "Décret n° 2017-1198 du 27 juillet 2017, art. 2 to 4, as renewed yearly (latest: décret n° 2025-652 du 15 juillet 2025); loi n° 89-462 art. 17, 18";
const DECENCY = `${LAW}, art. 6; décret n° 2002-120 art. 3 bis; loi n° 2021-1104, art. 160`;
const ANNEX = `${LOI}, art. 3-3; code de la construction et de l'habitation, art. L. 126-26`;
const RESIDENTIAL: LeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY", "STUDENT"];
const OUTSIDE: LeaseType[] = ["COMMERCIAL", "PROFESSIONAL", "PARKING"];

const dpe = (energy_label: string, valid_until = "2035-01-01") => ({
  energy_label,
  diagnosis_date: "2025-01-02",
  valid_until,
});
/** IRL values with their publication day (INSEE's calendar aside). */
const irl = (quarter: string, value: number, published_on: string) => ({
  quarter,
  value,
  published_on,
  source: "published" as const,
  note: null,
});
const IRL = [
  irl("2022-Q2", 135.84, "2022-07-15"),
  irl("2022-Q3", 136.27, "2022-10-14"),
  irl("2024-Q1", 143.46, "2024-04-12"),
  irl("2024-Q2", 145.17, "2024-07-12"),
  irl("2024-Q3", 144.51, "2024-10-15"),
];
const line = (furnished: boolean, increased_reference: number) => ({
  rooms: 2,
  construction_period: "1971_1990" as const,
  furnished,
  reference: increased_reference - 4,
  increased_reference,
});

const REGULATION = {
  high_demand_zone: true as boolean | null,
  reference_rents: [line(false, 22), line(true, 25)],
  effective_from: null as string | null,
};
const PREVIOUS: NonNullable<ComplianceFacts["previous_lease"]> = {
  id: "lease-0",
  rent_amount: 1000,
  ended_on: "2025-02-28",
  irl_reference_quarter: "2024-Q1",
  last_index_revision_on: null,
};

/** A lease started 2025-03-01 at 1000 € in a high-demand zone, re-let after a lease at 1000 €. */
const facts = (over: Partial<ComplianceFacts> = {}, lease: Partial<ComplianceFacts["lease"]> = {}) => ({
  lease: {
    id: "lease-1",
    lease_type: "UNFURNISHED" as LeaseType,
    status: "ACTIVE",
    start_date: "2025-03-01",
    end_date: null,
    duration_months: 36,
    rent_amount: 1000,
    deposit_amount: 1000,
    rent_frequency: "MONTHLY",
    payment_terms: null,
    lessor: "NATURAL_PERSON" as const,
    ...lease,
  },
  on: "2025-06-01",
  estate: { area: 50, rooms: 2, construction_year: 1980 },
  dpe_at_start: dpe("D"),
  latest_dpe_before_start: dpe("D"),
  dpe_on: dpe("D"),
  regulation: {
    high_demand_zone: true,
    reference_rents: [line(false, 22), line(true, 25)],
    effective_from: null,
  },
  previous_lease: PREVIOUS,
  rent_changes: [],
  irl: IRL,
  reletting_claims: null,
  ...over,
});
const prior = (over: Partial<NonNullable<ComplianceFacts["previous_lease"]>>) => ({
  previous_lease: { ...PREVIOUS, ...over },
});

describe("deposit cap", () => {
  it("a STUDENT lease is capped at two months (art. 25-6), the figures in details", () => {
    const at = depositCapCheck(facts({}, { lease_type: "STUDENT", deposit_amount: 2000 }));
    expect(at).toEqual({
      rule: "DEPOSIT_CAP",
      status: "PASS",
      message: `The deposit is within the cap of ${LAW}, art. 25-6`,
      legal_reference: `${LAW}, art. 25-6`,
      details: { deposit_amount: 2000, rent_amount: 1000, rent_frequency: "MONTHLY", payment_terms: null },
    });
    const over = depositCapCheck(facts({}, { lease_type: "STUDENT", deposit_amount: 2000.01 }));
    expect(over).toMatchObject({
      status: "FAIL",
      message: expect.stringMatching(/^The deposit of a STUDENT lease may not exceed 2 month/),
      details: { deposit_amount: 2000.01, rent_amount: 1000, errors: [{ field: "deposit_amount" }] },
    });
  });

  it("no deposit passes as such; leases outside loi 89-462 are not judged", () => {
    expect(depositCapCheck(facts({}, { deposit_amount: null }))).toMatchObject({
      status: "PASS",
      message: "No deposit is required",
      details: { deposit_amount: null, rent_amount: 1000 },
    });
    expect(depositCapCheck(facts({}, { lease_type: "PARKING", deposit_amount: 9000 }))).toEqual({
      rule: "DEPOSIT_CAP",
      status: "NOT_APPLICABLE",
      message: "A PARKING lease is outside loi n° 89-462",
      legal_reference: LAW,
      details: {},
    });
  });
});

describe("IRL revision cap", () => {
  // A lease from 2024-07-01 on 2024-Q2; its first revision on its first anniversary.
  const revision = (
    over: Partial<RentChange> = {},
    new_quarter = "2025-Q2",
    new_value = 146.68,
  ): RentChange => ({
    effective_date: "2025-07-01",
    rent_amount: 1010.4, // 1000 × 146.68 / 145.17 = 1010.401…: 1010.40 to the cent
    previous_rent_amount: 1000,
    reason: "INDEX_REVISION",
    index: { type: "IRL", reference_quarter: "2024-Q2", reference_value: 145.17, new_quarter, new_value },
    dpe: dpe("D"),
    ...over,
  });
  const onLease = (over: Partial<ComplianceFacts> = {}) =>
    facts(over, { start_date: "2024-07-01", revision_reference_quarter: "2024-Q2" });

  it("reports each revision compared, passing to the cent", () => {
    expect(irlRevisionCapCheck(onLease({ rent_changes: [revision()] }))).toEqual({
      rule: "IRL_REVISION_CAP",
      status: "PASS",
      message: `Every index revision is within the IRL cap (${LOI}, art. 17-1 I).`,
      legal_reference: `${LOI}, art. 17-1 I`,
      details: {
        revisions: [
          {
            effective_date: "2025-07-01",
            previous_rent: 1000,
            new_rent: 1010.4,
            reference: { quarter: "2024-Q2", value: 145.17 },
            new: { quarter: "2025-Q2", value: 146.68 },
            passes: true,
            error: null,
          },
        ],
      },
    });
  });

  it("counts and names the revisions above the cap, each judged against the one before", () => {
    // The next year's: 1010.40 × 148 / 146.68 = 1019.49…
    const next = (rent_amount: number) =>
      revision({
        effective_date: "2026-07-01",
        previous_rent_amount: 1010.4,
        rent_amount,
        index: {
          type: "IRL",
          reference_quarter: "2025-Q2",
          reference_value: 146.68,
          new_quarter: "2026-Q2",
          new_value: 148,
        },
      });
    expect(irlRevisionCapCheck(onLease({ rent_changes: [revision(), next(1019.49)] })).status).toBe("PASS");
    const over = irlRevisionCapCheck(onLease({ rent_changes: [revision(), next(1019.5)] }));
    expect(over.status).toBe("FAIL");
    expect(over.message).toBe(
      `1 index revision(s) were not allowed, used IRL values other than INSEE's or raised the rent above rent × new IRL / reference IRL (${LOI}, art. 17-1 I): Revised rent 1019.50 exceeds the cap 1019.49 = 1010.40 × 148 / 146.68.`,
    );
    expect((over.details.revisions as { passes: boolean }[]).map((r) => r.passes)).toEqual([true, false]);
    // The second from the lease's first quarter again: refused by the chain.
    const again = irlRevisionCapCheck(
      onLease({ rent_changes: [revision(), revision({ effective_date: "2026-07-01" })] }),
    );
    expect(again.message).toContain("2024-Q2 is before the current reference 2025-Q2");
  });

  it("a rent change by agreement, or one without an index, is no index revision", () => {
    const agreed = revision({ reason: "AGREEMENT", rent_amount: 1200 });
    const noIndex = revision({ index: null });
    expect(irlRevisionCapCheck(facts({ rent_changes: [agreed, noIndex] }))).toEqual({
      rule: "IRL_REVISION_CAP",
      status: "NOT_APPLICABLE",
      message: "No index revision was applied to this lease",
      legal_reference: `${LOI}, art. 17-1 I`,
      details: {},
    });
  });

  it("notes the 3.5 % ceiling for quarters 2022-Q3 to 2024-Q1 only (loi n° 2022-1158 art. 12)", () => {
    const noted = (quarter: string, value: number) =>
      irlRevisionCapCheck(
        facts({ rent_changes: [revision({ rent_amount: 900 }, quarter, value)], irl: [] }),
      ).legal_reference.includes("2022-1158");
    expect(noted("2022-Q2", 135.84)).toBe(false);
    expect(noted("2022-Q3", 136.27)).toBe(true);
    expect(noted("2024-Q1", 143.46)).toBe(true);
    expect(noted("2024-Q2", 145.17)).toBe(false);
    const one = irlRevisionCapCheck(
      facts({
        rent_changes: [
          revision(),
          revision({ effective_date: "2024-03-01", rent_amount: 1000 }, "2022-Q3", 136.27),
        ],
        irl: [],
      }),
    );
    expect(one.message).toContain(
      " The IRL of 2022-Q3 is used as published: it already carries the 3.5 % yearly cap of loi n° 2022-1158 du 16 août 2022, art. 12.",
    );
    expect(one.legal_reference).toBe(`${LOI}, art. 17-1 I; loi n° 2022-1158, art. 12`);
  });
});

describe("F/G rent freeze", () => {
  const change = (
    effective_date: string,
    from: number,
    to: number,
    label: string | null,
    until?: string,
  ) => ({
    effective_date,
    rent_amount: to,
    previous_rent_amount: from,
    reason: "AGREEMENT",
    index: null,
    dpe: label ? dpe(label, until) : null,
  });
  const first = prior({ rent_amount: 1000 });

  it("is not applicable to leases outside loi 89-462", () => {
    for (const lease_type of OUTSIDE)
      expect(
        dpeRentFreezeCheck(facts({ rent_changes: [change("2025-04-01", 1000, 1100, "G")] }, { lease_type })),
      ).toEqual({
        rule: "DPE_F_G_RENT_FREEZE",
        status: "NOT_APPLICABLE",
        message: `A ${lease_type} lease is outside loi n° 89-462`,
        legal_reference: FREEZE,
        details: {},
      });
  });

  it("an unchanged rent on a G estate is no increase", () => {
    const same = dpeRentFreezeCheck(
      facts({ ...first, rent_changes: [change("2025-04-01", 1000, 1000, "G")] }),
    );
    expect(same).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "NOT_APPLICABLE",
      message: "No rent increase since 2022-08-24 to check",
      legal_reference: FREEZE,
      details: {},
    });
  });

  it("fails a rise on F or G with the refused increases in details", () => {
    const rise = change("2025-04-01", 1000, 1000.01, "F");
    const failed = dpeRentFreezeCheck(facts({ ...first, rent_changes: [rise] }));
    expect(failed.status).toBe("FAIL");
    expect(failed.message).toBe(`The rent of housing classed F may not be increased (${LAW}, art. 17-1 III)`);
    const increase = { effective_date: "2025-04-01", from: 1000, to: 1000.01, dpe: rise.dpe };
    expect(failed.details).toEqual({
      increases: [increase],
      refused: [{ ...increase, error: failed.message }],
    });
  });

  it("passes a rise on D, each increase with its verdict's message", () => {
    const onD = change("2025-05-01", 1000, 1020, "D");
    expect(dpeRentFreezeCheck(facts({ ...first, rent_changes: [onD] }))).toEqual({
      rule: "DPE_F_G_RENT_FREEZE",
      status: "PASS",
      message:
        "No rent increase on housing classed F or G within a contract concluded or renewed since 2022-08-24",
      legal_reference: FREEZE,
      details: {
        increases: [
          {
            effective_date: "2025-05-01",
            from: 1000,
            to: 1020,
            dpe: onD.dpe,
            message: "Housing classed D: the rent may rise",
          },
        ],
      },
    });
  });

  it("a G lease concluded before 2022-08-24 may rise until its renewal (loi n° 2021-1104 art. 159)", () => {
    const lease = { start_date: "2021-01-01", duration_months: 36 };
    const rise = (on: string) =>
      dpeRentFreezeCheck(facts({ previous_lease: null, rent_changes: [change(on, 1000, 1010, "G")] }, lease))
        .status;
    expect(rise("2023-12-31")).toBe("PASS");
    expect(rise("2024-01-01")).toBe("FAIL");
  });

  it("is UNKNOWN without a DPE on the day of a rise, naming the days", () => {
    const rises = [change("2025-04-01", 1000, 1010, null), change("2025-05-01", 1010, 1020, null)];
    const unknown = dpeRentFreezeCheck(facts({ ...first, rent_changes: rises }));
    expect(unknown.status).toBe("UNKNOWN");
    expect(unknown.message).toBe(
      "No DPE was valid on 2025-04-01, 2025-05-01: whether the rent could rise is unknown",
    );
    expect(unknown.details).toEqual({
      increases: rises.map((r) => ({
        effective_date: r.effective_date,
        from: r.previous_rent_amount,
        to: r.rent_amount,
        dpe: null,
      })),
    });
  });

  it("a re-letting above the previous rent counts from 2022-08-24; a first letting never", () => {
    const relet = (start_date: string, previous_lease: ComplianceFacts["previous_lease"]) =>
      dpeRentFreezeCheck(
        facts(
          { previous_lease, dpe_at_start: dpe("G"), rent_changes: [] },
          { start_date, rent_amount: 1100 },
        ),
      ).status;
    const before = { ...PREVIOUS, ended_on: "2022-07-31" };
    expect(relet("2022-08-24", before)).toBe("FAIL");
    expect(relet("2022-08-23", before)).toBe("NOT_APPLICABLE");
    expect(relet("2025-03-01", null)).toBe("NOT_APPLICABLE");
  });

  it("a rise effective before 2022-08-24 is not judged", () => {
    expect(
      dpeRentFreezeCheck(
        facts(
          { ...first, rent_changes: [change("2022-08-23", 1000, 1100, "G")] },
          { start_date: "2021-01-01" },
        ),
      ).status,
    ).toBe("NOT_APPLICABLE");
  });
});

describe("rent control (loi ELAN art. 140)", () => {
  it("runs furnished leases (furnished, student, mobility) against the furnished reference rent", () => {
    // Furnished: 25 €/m² × 50 m² = 1250.00; unfurnished: 22 × 50 = 1100.00.
    for (const lease_type of ["FURNISHED", "STUDENT", "MOBILITY"] as const) {
      const at = rentControlCheck(facts({}, { lease_type, rent_amount: 1250, deposit_amount: null }));
      expect(at, lease_type).toMatchObject({
        status: "PASS",
        details: { increased_reference: 25, max_rent: "1250.00" },
      });
      expect(rentControlCheck(facts({}, { lease_type, rent_amount: 1250.01 })).status, lease_type).toBe(
        "FAIL",
      );
    }
    expect(rentControlCheck(facts({}, { rent_amount: 1100 })).details).toEqual({
      rent_amount: 1100,
      area: 50,
      rent_per_m2: 22,
      reference: 18,
      increased_reference: 22,
      max_rent: "1100.00",
      dwelling: { rooms: 2, construction_period: "1971_1990", furnished: false },
    });
  });

  it("fails above the increased reference rent × area, with the figures", () => {
    const above = rentControlCheck(facts({}, { rent_amount: 1133.33 }));
    expect(above).toMatchObject({
      status: "FAIL",
      message: `Rent 1133.33 is above the increased reference rent 22 €/m² × 50 m² = 1100.00 (${ELAN})`,
      legal_reference: ELAN,
      details: { rent_per_m2: 22.67, max_rent: "1100.00" },
    });
    expect(rentControlCheck(facts({}, { rent_amount: 1000 })).message).toBe(
      `Rent is within the increased reference rent (${ELAN})`,
    );
  });

  it("judges the initial rent, not a later change", () => {
    const later = {
      effective_date: "2025-05-01",
      rent_amount: 1200,
      previous_rent_amount: 1100,
      reason: "AGREEMENT",
      index: null,
      dpe: null,
    };
    expect(rentControlCheck(facts({ rent_changes: [later] }, { rent_amount: 1200 })).status).toBe("PASS");
  });

  it("applies from the order's effective date, not before", () => {
    const regulation = { ...REGULATION, effective_from: "2025-03-01" };
    expect(rentControlCheck(facts({ regulation }, { rent_amount: 1200 })).status).toBe("FAIL");
    expect(rentControlCheck(facts({ regulation }, { rent_amount: 1200, start_date: "2025-02-28" }))).toEqual({
      rule: "RENT_CONTROL",
      status: "NOT_APPLICABLE",
      message: "The lease started before the reference rents apply (2025-03-01)",
      legal_reference: ELAN,
      details: {},
    });
  });

  it("is UNKNOWN without reference rents, a line for the dwelling, or the estate's figures", () => {
    const none = { ...REGULATION, reference_rents: [] };
    expect(rentControlCheck(facts({ regulation: none }))).toEqual({
      rule: "RENT_CONTROL",
      status: "UNKNOWN",
      message: "No reference rents are recorded for the estate or its place",
      legal_reference: ELAN,
      details: {},
    });
    expect(
      rentControlCheck(facts({ estate: { area: null, rooms: null, construction_year: null } })).message,
    ).toBe(
      "The estate's area, number_of_room, construction_date is unknown: no reference rent can be chosen",
    );
    expect(
      rentControlCheck(facts({ estate: { area: 50, rooms: 2, construction_year: null } })),
    ).toMatchObject({
      status: "UNKNOWN",
      message: "The estate's construction_date is unknown: no reference rent can be chosen",
    });
    const noLine = rentControlCheck(facts({ estate: { area: 50, rooms: 2, construction_year: 2000 } }));
    expect(noLine).toEqual({
      rule: "RENT_CONTROL",
      status: "UNKNOWN",
      message: "The order has no reference rent for this dwelling",
      legal_reference: ELAN,
      details: { dwelling: { rooms: 2, construction_period: "AFTER_1990", furnished: false } },
    });
  });

  it("leases outside loi 89-462 are outside rent control", () => {
    for (const lease_type of OUTSIDE)
      expect(rentControlCheck(facts({}, { lease_type, rent_amount: 5000 }))).toMatchObject({
        status: "NOT_APPLICABLE",
        message: `A ${lease_type} lease is outside rent control`,
      });
  });
});

describe("re-letting cap (décret 2017-1198)", () => {
  const relet = (rent_amount: number, over: Partial<ComplianceFacts> = {}, start_date = "2025-03-01") =>
    relettingCapCheck(facts(over, { rent_amount, start_date }));
  const na = (message: string, details = {}) => ({
    rule: "RELETTING_CAP",
    status: "NOT_APPLICABLE",
    message,
    legal_reference: RELETTING,
    details,
  });

  it("is not applicable outside loi 89-462, outside a high-demand zone, at a first letting", () => {
    expect(relettingCapCheck(facts({}, { lease_type: "COMMERCIAL" }))).toEqual(
      na("A COMMERCIAL lease is outside loi n° 89-462"),
    );
    const calm = { ...REGULATION, high_demand_zone: false };
    expect(relet(1500, { regulation: calm })).toEqual(na("The estate is not in a high-demand zone"));
    expect(relet(1500, { previous_lease: null })).toEqual(
      na("First letting of the estate (décret 2017-1198 art. 2)"),
    );
  });

  it("is UNKNOWN when the zone is not recorded", () => {
    const unknown = {
      rule: "RELETTING_CAP",
      status: "UNKNOWN",
      message: "Whether the estate is in a high-demand zone is not recorded",
      legal_reference: RELETTING,
      details: {},
    };
    expect(relet(1000, { regulation: null })).toEqual(unknown);
    expect(relet(1000, { regulation: { ...REGULATION, high_demand_zone: null } })).toEqual(unknown);
  });

  it("applies after up to 18 months of vacancy, to the day (month ends clamp)", () => {
    const vacant = (ended_on: string, start: string) => relet(1500, prior({ ended_on }), start).status;
    expect(vacant("2023-06-15", "2024-12-15")).not.toBe("NOT_APPLICABLE");
    expect(vacant("2023-06-15", "2024-12-16")).toBe("NOT_APPLICABLE");
    expect(vacant("2023-07-31", "2025-01-31")).not.toBe("NOT_APPLICABLE");
    expect(vacant("2023-07-31", "2025-02-01")).toBe("NOT_APPLICABLE");
    expect(relet(1500, prior({ ended_on: "2023-06-15" }), "2024-12-16")).toEqual(
      na("The estate was vacant more than 18 months (décret 2017-1198 art. 2)", {
        previous_lease_id: "lease-0",
        previous_ended_on: "2023-06-15",
      }),
    );
  });

  it("applies to leases concluded from 2017-08-01", () => {
    const old = { ...prior({ ended_on: "2017-06-30", irl_reference_quarter: null }), dpe_at_start: null };
    expect(relet(1500, old, "2017-07-31")).toEqual(
      na("Décret 2017-1198 applies to leases concluded from 2017-08-01"),
    );
    expect(relet(1500, old, "2017-08-01").status).toBe("UNKNOWN");
  });

  it("passes at the previous tenant's last rent, with the figures", () => {
    expect(relet(1000)).toEqual({
      rule: "RELETTING_CAP",
      status: "PASS",
      message: "The new rent does not exceed the previous tenant's last rent",
      legal_reference: RELETTING,
      details: { rent_amount: 1000, previous_lease_id: "lease-0", previous_rent_amount: 1000 },
    });
  });

  it("refuses any rise on housing classed F, as on G (loi n° 2021-1104 art. 159)", () => {
    for (const label of ["F", "G"]) {
      const frozen = relet(1000.01, {
        dpe_at_start: dpe(label),
        reletting_claims: { works_amount: 50_000, neighbourhood_rent: 3000 },
      });
      expect(frozen).toMatchObject({
        status: "FAIL",
        message: `New rent 1000.01 exceeds the previous tenant's last rent 1000.00: housing classed ${label} may not be re-let higher, with no IRL uplift nor exception (loi n° 89-462 art. 17, loi n° 2021-1104 art. 159)`,
        details: { energy_label: label, max_rent: "1000.00", rent_amount: 1000.01 },
      });
    }
    expect(relet(1000.01, { dpe_at_start: null }).message).toBe(
      "No DPE is valid on 2025-03-01: whether housing classed F or G forbids any increase is unknown",
    );
  });

  it("allows the IRL uplift to the cent, saying so (art. 3)", () => {
    // Latest published by 2025-03-01: 2024-Q3, 144.51. 1000 × 144.51 / 143.46 = 1007.319… → 1007.31
    const at = relet(1007.31);
    expect(at).toEqual({
      rule: "RELETTING_CAP",
      status: "PASS",
      message:
        "The new rent is within the previous tenant's last rent revised by the IRL, 1007.31 (décret 2017-1198 art. 3)",
      legal_reference: RELETTING,
      details: {
        rent_amount: 1007.31,
        previous_lease_id: "lease-0",
        previous_rent_amount: 1000,
        max_rent: "1007.31",
        irl_uplift: {
          applies: true,
          reference: { quarter: "2024-Q1", value: 143.46 },
          new: { quarter: "2024-Q3", value: 144.51 },
          formula: "1000.00 × 144.51 / 143.46 = 1007.31 (rounded down to the cent)",
        },
      },
    });
    const above = relet(1007.32);
    expect(above.status).toBe("UNKNOWN");
    expect(above.message).toBe(
      "New rent 1007.32: it is above 1007.31, the previous tenant's last rent as revised by art. 3; only works since the previous lease of at least half its last year's rent or a manifestly under-valued previous rent allow more (art. 4): state works_amount and neighbourhood_rent to decide",
    );
  });

  it("an IRL that fell gives no uplift and no cut: the previous rent stays the cap", () => {
    const fell = prior({ irl_reference_quarter: "2024-Q2" }); // 145.17 → 144.51
    expect(relet(1000, fell).status).toBe("PASS");
    expect(
      relet(1000.01, { ...fell, reletting_claims: { works_amount: null, neighbourhood_rent: null } }),
    ).toMatchObject({
      status: "FAIL",
      details: { max_rent: "1000.00" },
    });
  });

  it("no uplift when the previous lease was revised in the 12 months before the start, to the day", () => {
    const revised = (on: string) => relet(1000.01, prior({ last_index_revision_on: on }));
    expect(revised("2024-03-01").details.irl_uplift).toEqual({
      applies: false,
      reason: "the previous lease was revised on 2024-03-01, within the 12 months before 2025-03-01",
    });
    expect((revised("2024-02-29").details.irl_uplift as { applies: boolean }).applies).toBe(true);
  });

  it("says why the uplift cannot be computed: no reference quarter, no value for it, none published", () => {
    const reason = (over: Partial<ComplianceFacts>) =>
      (relet(1000.01, over).details.irl_uplift as { reason: string }).reason;
    expect(reason(prior({ irl_reference_quarter: null }))).toBe(
      "the previous lease names no IRL reference quarter",
    );
    expect(reason(prior({ irl_reference_quarter: "2023-Q1" }))).toBe("no IRL value for 2023-Q1");
    expect(reason({ irl: [irl("2024-Q1", 143.46, "2025-04-15")] })).toBe("no IRL published by 2025-03-01");
    expect(relet(1000.01, prior({ irl_reference_quarter: null })).message).toContain(
      "the IRL uplift cannot be computed (the previous lease names no IRL reference quarter)",
    );
  });

  it("with claims: within the art. 4 increase passes, above fails; UNKNOWN while the uplift is unknown", () => {
    // Works 6000 ≥ 6 × 1000: + 6000 × 15 / 1200 = 75.00 on 1007.31.
    const works = { reletting_claims: { works_amount: 6000, neighbourhood_rent: null } };
    expect(relet(1082.31, works)).toMatchObject({
      status: "PASS",
      message: "The new rent is within 1082.31, the art. 3 rent plus the increase art. 4 allows",
      details: { max_rent: "1082.31", claims: works.reletting_claims },
    });
    expect(relet(1082.32, works)).toMatchObject({
      status: "FAIL",
      message:
        "New rent 1082.32 exceeds 1082.31: the previous tenant's last rent revised by the IRL plus what art. 4 allows (décret n° 2017-1198 art. 3 and 4)",
    });
    const noQuarter = { ...works, ...prior({ irl_reference_quarter: null }) };
    expect(relet(1075, noQuarter).status).toBe("PASS");
    expect(relet(1075.01, noQuarter)).toMatchObject({
      status: "UNKNOWN",
      message:
        "New rent 1075.01 is above 1075.00 without the IRL uplift, which cannot be computed (the previous lease names no IRL reference quarter)",
    });
  });

  it("after the last recorded renewal of the décret, neither a rise nor the same rent is judged: UNKNOWN", () => {
    const late = relet(1000.01, prior({ ended_on: "2026-07-31" }), "2026-08-01");
    expect(late.message).toBe(
      "décret n° 2025-652 du 15 juillet 2025 covers leases concluded up to 2026-07-31; no later renewal of décret 2017-1198 is recorded",
    );
    expect(relet(1000, prior({ ended_on: "2026-07-31" }), "2026-08-01").status).toBe("UNKNOWN");
    expect(relet(1000, prior({ ended_on: "2026-07-30" }), "2026-07-31").status).toBe("PASS");
  });
});

describe("re-letting exceptions (décret 2017-1198 art. 4)", () => {
  const cap = 100_000n; // 1000.00 in cents
  it("works of at least six months of the previous rent give 15 % of their cost a year", () => {
    expect(relettingExceptions(1000, cap, { works_amount: 6000, neighbourhood_rent: null })).toEqual({
      increase: 7500n,
      detail: {
        works: { amount: 6000, threshold: "6000.00", eligible: true, monthly_increase: "75.00" },
        undervalued: { neighbourhood_rent: null, monthly_increase: "0.00" },
      },
    });
    const short = relettingExceptions(1000, cap, { works_amount: 5999.99, neighbourhood_rent: null });
    expect(short.increase).toBe(0n);
    expect(short.detail.works).toMatchObject({ eligible: false, monthly_increase: "0.00" });
  });

  it("an under-valued rent rises by half the gap, never by a negative one; the larger exception wins", () => {
    expect(relettingExceptions(1000, cap, { works_amount: null, neighbourhood_rent: 1200 }).increase).toBe(
      10_000n,
    );
    expect(relettingExceptions(1000, cap, { works_amount: null, neighbourhood_rent: 900 }).increase).toBe(0n);
    expect(relettingExceptions(1000, cap, { works_amount: 6000, neighbourhood_rent: 1200 }).increase).toBe(
      10_000n,
    );
    expect(relettingExceptions(1000, cap, { works_amount: 6000, neighbourhood_rent: 1100 }).increase).toBe(
      7500n,
    );
  });
});

describe("DPE valid at the start", () => {
  it("passes, fails or is unknown, naming the DPE and the start", () => {
    expect(dpeValidAtStartCheck(facts())).toEqual({
      rule: "DPE_VALID_AT_START",
      status: "PASS",
      message: "A DPE valid on 2025-03-01 covers the estate",
      legal_reference: ANNEX,
      details: { dpe: dpe("D") },
    });
    const expired = dpe("D", "2025-02-28");
    expect(dpeValidAtStartCheck(facts({ dpe_at_start: null, latest_dpe_before_start: expired }))).toEqual({
      rule: "DPE_VALID_AT_START",
      status: "FAIL",
      message: "The estate's DPE was valid until 2025-02-28, before the lease start 2025-03-01",
      legal_reference: ANNEX,
      details: { dpe: expired, start_date: "2025-03-01" },
    });
    expect(dpeValidAtStartCheck(facts({ dpe_at_start: null, latest_dpe_before_start: null })).message).toBe(
      "No DPE is recorded for the estate or its place on 2025-03-01",
    );
  });
});

describe("decency calendar", () => {
  const on = (label: string | null, lease: Partial<ComplianceFacts["lease"]> = {}) =>
    decencyCalendarCheck(facts({ dpe_on: label ? dpe(label) : null }, lease));

  it("judges every residential lease type; not leases outside loi 89-462", () => {
    for (const lease_type of RESIDENTIAL) expect(on("G", { lease_type }).status, lease_type).toBe("FAIL");
    for (const lease_type of OUTSIDE)
      expect(on("G", { lease_type })).toEqual({
        rule: "DPE_DECENCY_CALENDAR",
        status: "NOT_APPLICABLE",
        message: `A ${lease_type} lease is outside loi n° 89-462`,
        legal_reference: DECENCY,
        details: {},
      });
  });

  it("an ended lease (terminated or expired) is not judged", () => {
    for (const status of ["TERMINATED", "EXPIRED"])
      expect(on("G", { status })).toEqual({
        rule: "DPE_DECENCY_CALENDAR",
        status: "NOT_APPLICABLE",
        message: "The lease has ended",
        legal_reference: DECENCY,
        details: {},
      });
    for (const status of ["NOTICE", "FINALISATION"]) expect(on("G", { status }).status, status).toBe("FAIL");
  });

  it("states the label, the day and when it stops being decent", () => {
    expect(on("G")).toEqual({
      rule: "DPE_DECENCY_CALENDAR",
      status: "FAIL",
      message: `Housing classed G is not decent for a contract concluded or renewed from 2025-01-01; this lease was concluded on 2025-03-01 (${DECENCY})`,
      legal_reference: DECENCY,
      details: {
        energy_label: "G",
        on: "2025-06-01",
        indecent_from: "2025-01-01",
        non_compliant_from: "2025-03-01",
      },
    });
    expect(on("E")).toMatchObject({
      status: "PASS",
      message:
        "Housing classed E is not decent for contracts concluded or renewed from 2034-01-01; the lease becomes non-compliant at its renewal on 2034-03-01",
      details: { indecent_from: "2034-01-01", non_compliant_from: "2034-03-01" },
    });
    expect(on("C")).toMatchObject({
      status: "PASS",
      message: "Housing classed C is decent on 2025-06-01",
      details: { energy_label: "C", on: "2025-06-01", indecent_from: null, non_compliant_from: null },
    });
    expect(on(null).message).toBe("No DPE is valid on 2025-06-01");
  });
});

describe("final energy over 450 kWh/m²/year (décret n° 2021-19)", () => {
  const DECRET = "décret n° 2021-19 du 11 janvier 2021 (décret n° 2002-120, art. 3 bis)";
  const withDpe = (d: Partial<ReturnType<typeof dpe>> & { final_energy_consumption?: number | null }) =>
    facts({ dpe_at_start: { ...dpe("G"), ...d } }, { start_date: "2025-03-01" });
  it("judges the recorded final energy at 450, and a contract from 2023-01-01 only", () => {
    expect(finalEnergyDecencyCheck(withDpe({ final_energy_consumption: 450 }))).toMatchObject({
      rule: "FINAL_ENERGY_450",
      status: "PASS",
      legal_reference: DECRET,
    });
    expect(finalEnergyDecencyCheck(withDpe({ final_energy_consumption: 450.01 }))).toMatchObject({
      status: "FAIL",
      message: expect.stringContaining("450.01 kWh/m²/year of final energy passes 450"),
    });
    const before = facts(
      { dpe_at_start: { ...dpe("G"), final_energy_consumption: 600 } },
      { start_date: "2022-12-31" },
    );
    expect(finalEnergyDecencyCheck(before).status).toBe("NOT_APPLICABLE");
    const overseas = withDpe({ final_energy_consumption: 600 });
    expect(
      finalEnergyDecencyCheck({ ...overseas, estate: { ...overseas.estate, overseas: true } }).status,
    ).toBe("NOT_APPLICABLE");
  });
  it("a class A to F bounded at 450 of primary energy proves it; G or a small dwelling's F does not", () => {
    // 2021 scale: F up to 420 kWh of primary energy, final energy never above primary.
    expect(finalEnergyDecencyCheck(withDpe({ energy_label: "F" }))).toMatchObject({
      status: "PASS",
      message: expect.stringContaining("Classed F: at most 420"),
    });
    expect(finalEnergyDecencyCheck(withDpe({ energy_label: "G" })).status).toBe("UNKNOWN");
    // From 2024-07-01 a 20 m² dwelling's F goes up to 554 kWh of primary energy: unknown.
    const small = facts(
      {
        estate: { area: 20, rooms: 1, construction_year: 1980 },
        dpe_at_start: { ...dpe("F"), diagnosis_date: "2024-07-01" },
      },
      { start_date: "2025-03-01" },
    );
    expect(finalEnergyDecencyCheck(small).status).toBe("UNKNOWN");
    // 40 m²: the standard scale again.
    expect(finalEnergyDecencyCheck({ ...small, estate: { ...small.estate, area: 40 } }).status).toBe("PASS");
    expect(finalEnergyDecencyCheck(facts({ dpe_at_start: null })).message).toBe(
      `No DPE states the dwelling's final energy consumption (${DECRET})`,
    );
  });
});

describe("complément de loyer (ELAN art. 140 III B)", () => {
  // Unfurnished cap: 22 €/m² × 50 m² = 1100.00; the rent called includes the complement.
  const justified = { rent_complement_justification: "Terrasse de 30 m² plein sud" };
  it("on a base rent at the increased reference, justified, it passes; a cent of base rent over fails", () => {
    const at = facts({}, { rent_amount: 1200, rent_complement: 100, ...justified });
    expect(rentComplementCheck(at)).toMatchObject({ rule: "RENT_COMPLEMENT", status: "PASS" });
    expect(rentControlCheck(at)).toMatchObject({ status: "PASS", details: { rent_amount: 1100 } });
    const over = facts({}, { rent_amount: 1200.01, rent_complement: 100, ...justified });
    expect(rentComplementCheck(over).status).toBe("FAIL");
    expect(rentControlCheck(over).status).toBe("FAIL");
  });
  it("none for a dwelling classed F or G, none unjustified; without reference rents it is unknown", () => {
    const base = { rent_amount: 1150, rent_complement: 50 };
    for (const label of ["F", "G"])
      expect(
        rentComplementCheck(facts({ dpe_at_start: dpe(label) }, { ...base, ...justified })).message,
      ).toContain(`classed ${label}`);
    expect(rentComplementCheck(facts({}, base)).status).toBe("FAIL");
    expect(rentComplementCheck(facts({ regulation: null }, { ...base, ...justified })).status).toBe(
      "UNKNOWN",
    );
    expect(rentComplementCheck(facts()).status).toBe("NOT_APPLICABLE");
  });
});
