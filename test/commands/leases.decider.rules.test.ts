import { describe, expect, it } from "vitest";
import { amendmentOf, leaseTermsOf, tenantChangesOf } from "../../src/commands/leases/bodies.ts";
import { type LeaseCommand, type LeaseState, leaseDecider } from "../../src/commands/leases/decider.ts";
import type { LeaseEvent, LeaseTerms } from "../../src/events/leases.ts";
import type { CreateLeaseInput } from "../../src/queries/leasesSchemas.ts";
import { deciderSpec } from "../support/deciderSpec.ts";
import { sampleTerms } from "../support/leaseHistory.ts";

/**
 * The lease decider at the rules' edges (given / when / then, no database): what each command refuses
 * and what the fold of each event leaves for the next decision.
 */

const spec = deciderSpec(leaseDecider);
/** A create body as the route maps it. */
const createBody = (body: CreateLeaseInput) => ({
  terms: leaseTermsOf(body),
  primary_lessee_id: body.primary_lessee_id,
});
const lease_id = "7c1e0000-0000-4000-8000-000000000001";
const primary = "7c1e0000-0000-4000-8000-0000000000a1";
const cotenant = "7c1e0000-0000-4000-8000-0000000000a2";
const amendment_id = "7c1e0000-0000-4000-8000-0000000000b1";
const document_id = "7c1e0000-0000-4000-8000-0000000000c1";

const terms = sampleTerms("7c1e0000-0000-4000-8000-0000000000e1", {
  start_date: "2025-03-01",
  rent_amount: 1000,
  charges_amount: 80,
  deposit_amount: 1000,
  revision_reference_quarter: "2024-Q3",
  revision_reference_value: 144.51,
});
const created: LeaseEvent = { type: "LeaseCreated", data: { lease_id, ...terms } };
const added = (lessee_id: string, role: "Primary" | "CoTenant" | "Guarantor"): LeaseEvent => ({
  type: "LeaseLesseeAdded",
  data: {
    lease_id,
    association_id: `${lessee_id.slice(0, -2)}ff`,
    lessee_id,
    role,
    start_date: "2025-03-01",
    end_date: null,
  },
});
const statusChange = { lease_id, effective_date: "2025-03-01", reason: null };
const draft = [created, added(primary, "Primary")];
const active: LeaseEvent[] = [...draft, { type: "LeaseActivated", data: statusChange }];
const ended: Record<"TERMINATED" | "EXPIRED", LeaseEvent[]> = {
  TERMINATED: [...active, { type: "LeaseTerminated", data: statusChange }],
  EXPIRED: [...active, { type: "LeaseExpired", data: statusChange }],
};
const live = (state: LeaseState) => {
  if (state.status === "absent" || state.status === "deleted") throw new Error(`lease is ${state.status}`);
  return state;
};

const rentChanged = (
  rent_amount: number,
  previous_rent_amount: number,
  reason: "AGREEMENT" | "INDEX_REVISION",
  effective_date: string,
): LeaseEvent => ({
  type: "LeaseRentChanged",
  data: {
    lease_id,
    rent_amount,
    charges_amount: 80,
    previous_rent_amount,
    previous_charges_amount: 80,
    effective_date,
    reason,
    index: null,
  },
});
const irl = {
  type: "IRL" as const,
  reference_quarter: "2024-Q3",
  reference_value: 144.51,
  new_quarter: "2025-Q3",
  new_value: 145.77,
};
const changeRent = (
  input: Record<string, unknown>,
  published_irl?: { reference_value: number | null; new_value: number | null },
) =>
  ({
    type: "ChangeRent",
    lease_id,
    rent: { effective_date: "2026-03-01", reason: "AGREEMENT", ...input },
    dpe: { energy_label: "D", valid_until: "2034-01-01" },
    published_irl,
  }) as LeaseCommand;

describe("rent changes (PUT .../rent)", () => {
  it("the fold of a rent change is the rent the next change starts from", () => {
    const history = [...active, rentChanged(1010, 1000, "AGREEMENT", "2025-09-01")];
    const [event] = spec
      .given(history)
      .when(changeRent({ rent_amount: 1020, charges_amount: 90 }))
      .thenEvents();
    expect(event).toEqual({
      type: "LeaseRentChanged",
      data: {
        lease_id,
        rent_amount: 1020,
        charges_amount: 90,
        previous_rent_amount: 1010,
        previous_charges_amount: 80,
        effective_date: "2026-03-01",
        reason: "AGREEMENT",
        index: null,
      },
    });
    expect(live(spec.given(history).state).terms).toMatchObject({ rent_amount: 1010, charges_amount: 80 });
  });

  it("keeps the charges when the change omits them, removes them on null", () => {
    const keep = spec
      .given(active)
      .when(changeRent({ rent_amount: 990 }))
      .thenEvents();
    expect(keep[0].data).toMatchObject({ charges_amount: 80, previous_charges_amount: 80 });
    const none = spec
      .given(active)
      .when(changeRent({ rent_amount: 990, charges_amount: null }))
      .thenEvents();
    expect(none[0].data).toMatchObject({ charges_amount: null });
  });

  it("an index revision folds into the date the next one must wait a year from (art. 17-1 I)", () => {
    const revised = [...active, rentChanged(1005, 1000, "INDEX_REVISION", "2025-09-01")];
    const next = (effective_date: string) =>
      spec
        .given(revised)
        .when(changeRent({ rent_amount: 1006, reason: "INDEX_REVISION", index: irl, effective_date }));
    next("2026-08-31").thenRefuses(422, /at most once a year/, ["effective_date"]);
    expect(next("2026-09-01").thenEvents()).toHaveLength(1);
    // A change by agreement is no index revision: the year counts from none.
    const agreed = [...active, rentChanged(1005, 1000, "AGREEMENT", "2025-09-01")];
    expect(
      spec
        .given(agreed)
        .when(
          changeRent({
            rent_amount: 1006,
            reason: "INDEX_REVISION",
            index: irl,
            effective_date: "2026-03-01",
          }),
        )
        .thenEvents(),
    ).toHaveLength(1);
  });

  it("a change by agreement that names an index reaches the check of INSEE's values", () => {
    spec
      .given(active)
      .when(changeRent({ rent_amount: 1000, index: irl }, { reference_value: 144.51, new_value: 146 }))
      .thenRefuses(422, /published by INSEE/, ["index.new_value"]);
    // The same figures, INSEE's: accepted, and by agreement the IRL cap does not bind.
    expect(
      spec
        .given(active)
        .when(changeRent({ rent_amount: 1100, index: irl }, { reference_value: 144.51, new_value: 145.77 }))
        .thenEvents(),
    ).toHaveLength(1);
  });

  it("an index revision is capped: exactly at the cap passes, one cent above is 422", () => {
    // 1000 × 145.77 / 144.51 = 1008.719… → 1008.71
    const revise = (rent_amount: number) =>
      spec.given(active).when(changeRent({ rent_amount, reason: "INDEX_REVISION", index: irl }));
    expect(revise(1008.71).thenEvents()).toHaveLength(1);
    revise(1008.72).thenRefuses(422, /rent × new index \/ reference index/, ["rent_amount"]);
  });

  it("each applied revision becomes the reference: 1,000 € on 2023-Q2 gives 1,032.57 € then 1,043.31 € (art. 17-1 I)", () => {
    const start = sampleTerms("7c1e0000-0000-4000-8000-0000000000e1", {
      start_date: "2023-07-01",
      rent_amount: 1000,
      charges_amount: 80,
      deposit_amount: 1000,
      revision_reference_quarter: "2023-Q2",
      revision_reference_value: 140.59,
    });
    const history: LeaseEvent[] = [
      { type: "LeaseCreated", data: { lease_id, ...start } },
      added(primary, "Primary"),
      { type: "LeaseActivated", data: { ...statusChange, effective_date: "2023-07-01" } },
    ];
    const revise = (
      given: LeaseEvent[],
      rent_amount: number,
      index: Record<string, unknown>,
      effective_date: string,
      requested_on?: string,
    ) =>
      spec.given(given).when(
        changeRent({
          rent_amount,
          reason: "INDEX_REVISION",
          index: { type: "IRL", ...index },
          effective_date,
          ...(requested_on ? { requested_on } : {}),
        }),
      );
    const first = {
      reference_quarter: "2023-Q2",
      reference_value: 140.59,
      new_quarter: "2024-Q2",
      new_value: 145.17,
    };
    revise(history, 1032.58, first, "2024-07-01").thenRefuses(422, /above rent × new index/, ["rent_amount"]);
    revise(history, 1032.57, first, "2024-06-30").thenRefuses(422, /anniversary 2024-07-01.*17-1 I/, [
      "effective_date",
    ]);
    const [applied] = revise(history, 1032.57, first, "2024-07-01").thenEvents();
    const revised = [...history, applied];
    const second = {
      reference_quarter: "2024-Q2",
      reference_value: 145.17,
      new_quarter: "2025-Q2",
      new_value: 146.68,
    };
    expect(revise(revised, 1043.31, second, "2025-07-01").thenEvents()[0].data).toMatchObject({
      rent_amount: 1043.31,
      previous_rent_amount: 1032.57,
      index: { reference_quarter: "2024-Q2", new_quarter: "2025-Q2" },
    });
    revise(revised, 1043.32, second, "2025-07-01").thenRefuses(422, /above rent × new index/, [
      "rent_amount",
    ]);
    // Compounding from the lease's first quarter again (1,077.29 €) is refused.
    revise(
      revised,
      1077.29,
      { ...first, new_quarter: "2025-Q2", new_value: 146.68 },
      "2025-07-01",
    ).thenRefuses(422, /reference quarter is now 2024-Q2/, ["index.reference_quarter"]);
    revise(revised, 1043.31, { ...second, new_quarter: "2025-Q3" }, "2025-07-01").thenRefuses(
      422,
      /same quarter one year before/,
      ["index.new_quarter"],
    );
    // Asked on 2025-09-15: effective from the request, never before; asked after 2026-07-01: lost.
    expect(revise(revised, 1043.31, second, "2025-09-15", "2025-09-15").thenEvents()).toHaveLength(1);
    revise(revised, 1043.31, second, "2025-09-14", "2025-09-15").thenRefuses(422, /never before it/, [
      "effective_date",
    ]);
    expect(revise(revised, 1043.31, second, "2026-07-01", "2026-07-01").thenEvents()).toHaveLength(1);
    revise(revised, 1043.31, second, "2026-07-02", "2026-07-02").thenRefuses(
      422,
      /renounced it for that year/,
      ["requested_on"],
    );
  });

  it("a works increase needs the clause and the completed works (art. 17-1 II), never on F or G (III)", () => {
    const works = (agreed_by_clause: boolean, works_completed: boolean) =>
      changeRent({
        rent_amount: 1100,
        reason: "WORKS_INCREASE",
        works: { agreed_by_clause, works_completed },
      });
    expect(spec.given(active).when(works(true, true)).thenEvents()[0].data).toMatchObject({
      rent_amount: 1100,
      reason: "WORKS_INCREASE",
    });
    spec
      .given(active)
      .when(works(false, true))
      .thenRefuses(422, /express clause.*17-1 II/, ["reason"]);
    spec
      .given(active)
      .when(works(true, false))
      .thenRefuses(422, /completion.*17-1 II/, ["effective_date"]);
    spec
      .given(active)
      .when(changeRent({ rent_amount: 1100, reason: "WORKS_INCREASE" }))
      .thenRefuses(422, /express clause/, ["reason"]);
    spec
      .given(active)
      .when({
        ...(works(true, true) as Extract<LeaseCommand, { type: "ChangeRent" }>),
        dpe: { energy_label: "F", valid_until: "2034-01-01" },
      })
      .thenRefuses(422, /classed F.*17-1 III/);
  });

  it("a re-evaluation at the renewal (art. 17-2): its first day, proposed 6 months ahead, at most the neighbourhood's", () => {
    // Start 2025-03-01, 36 months: term 2028-02-29, renewed 2028-03-01; proposal by 2027-08-31.
    const reevaluate = (rent_amount: number, proposed_on = "2027-08-31", effective_date = "2028-03-01") =>
      ({
        ...(changeRent({
          rent_amount,
          reason: "REEVALUATION",
          effective_date,
          reevaluation: { proposed_on, neighbourhood_rent: 1200 },
        }) as Extract<LeaseCommand, { type: "ChangeRent" }>),
        high_demand_zone: false,
      }) as LeaseCommand;
    expect(spec.given(active).when(reevaluate(1200)).thenEvents()[0].data).toMatchObject({
      rent_amount: 1200,
      reason: "REEVALUATION",
    });
    spec
      .given(active)
      .when(reevaluate(1200.01))
      .thenRefuses(422, /neighbourhood's.*17-2/, ["rent_amount"]);
    spec
      .given(active)
      .when(reevaluate(1200, "2027-09-01"))
      .thenRefuses(422, /six months before the term/, ["proposed_on"]);
    spec
      .given(active)
      .when(reevaluate(1200, "2027-08-31", "2028-03-02"))
      .thenRefuses(422, /renewal/, ["effective_date"]);
    spec
      .given(active)
      .when(changeRent({ rent_amount: 1100, reason: "REEVALUATION", effective_date: "2028-03-01" }))
      .thenRefuses(400, /^Invalid rent change$/, ["reevaluation"]);
  });

  it("an index revision without its index is a 400", () => {
    spec
      .given(active)
      .when(changeRent({ rent_amount: 1005, reason: "INDEX_REVISION" }))
      .thenRefuses(400, /^Invalid rent change$/, ["index"]);
  });

  it("an ended lease's rent does not change", () => {
    for (const [status, history] of Object.entries(ended))
      spec
        .given(history)
        .when(changeRent({ rent_amount: 900 }))
        .thenRefuses(409, new RegExp(`is ${status}$`));
  });
});

describe("amendments", () => {
  const fields = {
    title: "Avenant n° 1",
    effective_date: "2025-03-01",
    changes: { rent_amount: 1050 },
    reason: null,
  };
  const ids = { lease_id, amendment_id };
  const drafted: LeaseEvent = { type: "LeaseAmendmentDrafted", data: { ...ids, ...fields } };
  const submitted: LeaseEvent = { type: "LeaseAmendmentSubmitted", data: { ...ids, reason: null } };
  const validate = {
    type: "ChangeAmendmentStatus",
    ...ids,
    status: "VALIDATED",
    reason: null,
    dpe: null,
  } as LeaseCommand;

  it("takes effect on the lease start at the earliest: the day before is a 400", () => {
    spec
      .given(active)
      .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf(fields) })
      .then([drafted]);
    spec
      .given(active)
      .when({
        type: "DraftAmendment",
        ...ids,
        amendment: amendmentOf({ ...fields, effective_date: "2025-02-28" }),
      })
      .thenRefuses(400, /^Invalid lease data$/, ["effective_date"]);
    spec
      .given([...active, drafted])
      .when({ type: "ReviseAmendment", ...ids, changes: { effective_date: "2025-02-28" } })
      .thenRefuses(400, /Invalid lease data/, ["effective_date"]);
  });

  it("keeps a reason given, null when none", () => {
    const [event] = spec
      .given(active)
      .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf({ ...fields, reason: "Travaux" }) })
      .thenEvents();
    expect(event.data).toMatchObject({ reason: "Travaux" });
    const { reason: _, ...withoutReason } = fields;
    const [bare] = spec
      .given(active)
      .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf(withoutReason) })
      .thenEvents();
    expect(bare.data).toMatchObject({ reason: null });
  });

  it("an ended lease takes no amendment, nor validates one", () => {
    for (const [status, history] of Object.entries(ended)) {
      spec
        .given(history)
        .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf(fields) })
        .thenRefuses(409, new RegExp(`is ${status}$`));
      const before = [...active, drafted, submitted];
      spec
        .given([...before, ...history.slice(active.length)])
        .when(validate)
        .thenRefuses(409, new RegExp(`is ${status}$`));
    }
  });

  it("validation re-checks the amendment against the lease (an end before the start is a 400)", () => {
    const bad: LeaseEvent = {
      type: "LeaseAmendmentDrafted",
      data: { ...ids, ...fields, changes: { end_date: "2025-01-01" } },
    };
    spec
      .given([...active, bad, submitted])
      .when(validate)
      .thenRefuses(400, /Invalid lease data/, ["changes.end_date"]);
  });

  it("validation emits only what changes: no LeaseAmended for the rent alone, a rent change for charges alone", () => {
    const events = spec
      .given([...active, drafted, submitted])
      .when(validate)
      .thenEvents();
    expect(events.map((e) => e.type)).toEqual(["LeaseAmendmentValidated", "LeaseRentChanged"]);
    const charges: LeaseEvent = {
      type: "LeaseAmendmentDrafted",
      data: { ...ids, ...fields, changes: { charges_amount: 95 } },
    };
    const [, rent] = spec
      .given([...active, charges, submitted])
      .when(validate)
      .thenEvents();
    expect(rent).toMatchObject({
      type: "LeaseRentChanged",
      data: { rent_amount: 1000, charges_amount: 95, previous_charges_amount: 80, reason: "AGREEMENT" },
    });
    const same: LeaseEvent = {
      type: "LeaseAmendmentDrafted",
      data: { ...ids, ...fields, changes: { rent_amount: 1000, special_conditions: "Jardin" } },
    };
    expect(
      spec
        .given([...active, same, submitted])
        .when(validate)
        .thenEvents()
        .map((e) => e.type),
    ).toEqual(["LeaseAmendmentValidated", "LeaseAmended"]);
  });

  it("folds revisions, deletions and status changes into the amendment the next command sees", () => {
    const revised: LeaseEvent = {
      type: "LeaseAmendmentRevised",
      data: { ...ids, changes: { title: "bis" } },
    };
    expect(live(spec.given([...active, drafted, revised]).state).amendments[amendment_id]).toEqual({
      ...fields,
      title: "bis",
      status: "DRAFT",
    });
    const deleted: LeaseEvent = { type: "LeaseAmendmentDeleted", data: ids };
    spec
      .given([...active, drafted, deleted])
      .when({ type: "DeleteAmendment", ...ids })
      .thenRefuses(404, /Amendment/);
    const validated: LeaseEvent = { type: "LeaseAmendmentValidated", data: { ...ids, reason: null } };
    spec
      .given([...active, drafted, submitted, validated])
      .when({ type: "ChangeAmendmentStatus", ...ids, status: "CANCELLED", reason: null, dpe: null })
      .thenRefuses(409, /^Amendment .* cannot go from VALIDATED to CANCELLED \(VALIDATED is final\)$/);
    spec
      .given([...active, drafted])
      .when({ type: "ChangeAmendmentStatus", ...ids, status: "REJECTED", reason: null, dpe: null })
      .thenRefuses(409, /\(allowed: PENDING_VALIDATION, CANCELLED\)$/);
  });

  it("a validated amendment's term changes fold into the lease", () => {
    const amended: LeaseEvent = {
      type: "LeaseAmended",
      data: { ...ids, changes: { end_date: "2029-02-28" } },
    };
    expect(live(spec.given([...active, amended]).state).terms.end_date).toBe("2029-02-28");
  });
});

describe("tenants", () => {
  const update = (input: Record<string, unknown>, lessee_id = primary) =>
    ({ type: "UpdateLeaseLessee", lease_id, lessee_id, ...tenantChangesOf(input as never) }) as LeaseCommand;

  it("an association's path names its lessee and lease, and a term ends only through PUT .../end", () => {
    spec
      .given(active)
      .when(update({ lessee_id: cotenant, lease_id: "7c1e0000-0000-4000-8000-000000000009", ended: true }))
      .thenRefuses(400, /Invalid lease data/, ["lessee_id", "lease_id", "ended"]);
    spec
      .given(active)
      .when(update({ lessee_id: primary, lease_id, ended: false, start_date: "2025-03-02" }))
      .then([
        {
          type: "LeaseLesseeUpdated",
          data: { lease_id, lessee_id: primary, changes: { start_date: "2025-03-02" } },
        },
      ]);
  });

  it("dates are checked on the merged association", () => {
    const withEnd: LeaseEvent = {
      type: "LeaseLesseeUpdated",
      data: { lease_id, lessee_id: primary, changes: { end_date: "2026-01-01" } },
    };
    expect(
      spec
        .given([...active, withEnd])
        .when(update({ start_date: "2026-01-02" }))
        .thenRefuses(400, /^Invalid lease data$/, ["end_date"]).details?.[0].message,
    ).toBe("Must not be before 2026-01-02");
    expect(
      spec
        .given(active)
        .when(update({ end_date: "2025-02-28" }))
        .thenRefuses(400, /^Invalid lease data$/, ["end_date"]).details?.[0].message,
    ).toBe("Must not be before 2025-03-01");
    spec
      .given(active)
      .when(update({ end_date: "2025-03-01" }))
      .then([
        {
          type: "LeaseLesseeUpdated",
          data: { lease_id, lessee_id: primary, changes: { end_date: "2025-03-01" } },
        },
      ]);
  });

  it("the last Primary of an active lease is not demoted; another Primary may be, and a co-tenant changed", () => {
    spec
      .given(active)
      .when(update({ role: "CoTenant" }))
      .thenRefuses(409, /last Primary tenant/);
    const two = [...active, added(cotenant, "Primary")];
    expect(
      spec
        .given(two)
        .when(update({ role: "CoTenant" }))
        .thenEvents(),
    ).toHaveLength(1);
    const withCo = [...active, added(cotenant, "CoTenant")];
    expect(
      spec
        .given(withCo)
        .when(update({ role: "Guarantor" }, cotenant))
        .thenEvents(),
    ).toHaveLength(1);
    expect(
      spec
        .given(active)
        .when(update({ role: "Primary" }))
        .thenEvents(),
    ).toHaveLength(1);
    // A Primary demoted by an update no longer counts as one.
    const demoted: LeaseEvent = {
      type: "LeaseLesseeUpdated",
      data: { lease_id, lessee_id: cotenant, changes: { role: "CoTenant" } },
    };
    spec
      .given([...two, demoted])
      .when(update({ role: "CoTenant" }))
      .thenRefuses(409, /last Primary/);
  });

  it("a term ended is folded: it cannot end again, and that lessee no longer counts as Primary", () => {
    const two = [...active, added(cotenant, "Primary")];
    const endedTerm: LeaseEvent = {
      type: "LeaseLesseeEnded",
      data: { lease_id, lessee_id: cotenant, ended_on: "2025-06-30" },
    };
    expect(live(spec.given([...two, endedTerm]).state).lessees[cotenant]).toMatchObject({
      end_date: "2025-06-30",
      ended: true,
      role: "Primary",
    });
    spec
      .given([...two, endedTerm])
      .when({ type: "EndLeaseLessee", lease_id, lessee_id: cotenant, end_date: "2025-07-01" })
      .thenRefuses(409, /has ended/);
    spec
      .given([...two, endedTerm])
      .when({ type: "EndLeaseLessee", lease_id, lessee_id: primary, end_date: "2025-07-01" })
      .thenRefuses(409, /last Primary/);
  });

  it("a term ends on its start at the earliest", () => {
    const withCo = [...active, added(cotenant, "CoTenant")];
    expect(
      spec
        .given(withCo)
        .when({ type: "EndLeaseLessee", lease_id, lessee_id: cotenant, end_date: "2025-02-28" })
        .thenRefuses(400, /^Invalid lease data$/, ["end_date"]).details?.[0].message,
    ).toBe("Must not be before 2025-03-01");
    spec
      .given(withCo)
      .when({ type: "EndLeaseLessee", lease_id, lessee_id: cotenant, end_date: "2025-03-01" })
      .then([{ type: "LeaseLesseeEnded", data: { lease_id, lessee_id: cotenant, ended_on: "2025-03-01" } }]);
  });

  it("an unknown association is a 404 naming the lessee and lease", () => {
    spec
      .given(active)
      .when(update({ role: "CoTenant" }, cotenant))
      .thenRefuses(404, new RegExp(`${cotenant} of lease ${lease_id}`));
  });

  it("a tenant is added with the end date asked, none by default; never to an ended lease", () => {
    const add = (input: Record<string, unknown>) =>
      ({
        type: "AddLeaseLessee",
        lease_id,
        association_id: "7c1e0000-0000-4000-8000-0000000000d1",
        tenant: { lessee_id: cotenant, role: "CoTenant", ...input },
        lessee: { category: "individual" },
        today: "2025-04-01",
      }) as LeaseCommand;
    const [withEnd] = spec
      .given(active)
      .when(add({ end_date: "2025-12-31" }))
      .thenEvents();
    expect(withEnd.data).toMatchObject({ start_date: "2025-04-01", end_date: "2025-12-31" });
    expect(
      spec
        .given(active)
        .when(add({ end_date: "2025-03-31" }))
        .thenRefuses(400, /^Invalid lease data$/).details,
    ).toEqual([{ field: "end_date", message: "Must not be before 2025-04-01" }]);
    spec
      .given([...active, added(cotenant, "CoTenant")])
      .when(add({}))
      .thenRefuses(409, /already on lease/, ["lessee_id"]);
    for (const [status, history] of Object.entries(ended))
      spec
        .given(history)
        .when(add({}))
        .thenRefuses(409, new RegExp(`is ${status}$`));
  });
});

describe("status", () => {
  const to = (status: string) =>
    ({
      type: "ChangeLeaseStatus",
      lease_id,
      status,
      effective_date: "2025-06-01",
      reason: null,
    }) as LeaseCommand;

  it("activation needs an active Primary, except when a notice is withdrawn", () => {
    const noPrimary = [created, added(cotenant, "CoTenant")];
    spec
      .given(noPrimary)
      .when(to("ACTIVE"))
      .thenRefuses(409, /needs an active Primary/);
    const endedPrimary: LeaseEvent = {
      type: "LeaseLesseeEnded",
      data: { lease_id, lessee_id: primary, ended_on: "2025-05-01" },
    };
    spec
      .given([...draft, endedPrimary])
      .when(to("ACTIVE"))
      .thenRefuses(409, /needs an active Primary/);
    const notice: LeaseEvent = {
      type: "LeaseNoticeGiven",
      data: { ...statusChange, given_by: "LESSEE", notice_end_date: "2025-06-01" },
    };
    spec
      .given([...active, notice, endedPrimary])
      .when(to("ACTIVE"))
      .then([
        { type: "LeaseNoticeWithdrawn", data: { lease_id, effective_date: "2025-06-01", reason: null } },
      ]);
  });

  it("a lease returned to draft is a draft again: its tenants may be removed", () => {
    const back = [
      ...draft,
      { type: "LeaseSentForSignature", data: statusChange },
      { type: "LeaseReturnedToDraft", data: statusChange },
    ] as LeaseEvent[];
    expect(live(spec.given(back).state).status).toBe("DRAFT");
    expect(
      spec.given(back).when({ type: "RemoveLeaseLessee", lease_id, lessee_id: primary }).thenEvents(),
    ).toHaveLength(1);
  });

  it("says which statuses are allowed, or that the status is final", () => {
    spec
      .given(ended.TERMINATED)
      .when(to("ACTIVE"))
      .thenRefuses(409, /\(TERMINATED is final\)$/);
    spec
      .given(active)
      .when(to("DRAFT"))
      .thenRefuses(409, /\(allowed: NOTICE, TERMINATED, EXPIRED\)$/);
  });
});

describe("create, update, delete", () => {
  it("a lease is created once", () => {
    spec
      .given(draft)
      .when({
        type: "CreateLease",
        lease_id,
        association_id: "7c1e0000-0000-4000-8000-0000000000d1",
        ...createBody({
          estate_id: terms.estate_id,
          primary_lessee_id: primary,
          lease_type: "UNFURNISHED",
          start_date: "2025-03-01",
          rent_amount: 1000,
        }),
        estate_exists: true,
        primary: { category: "individual" },
      })
      .thenRefuses(409, /already exists/);
  });

  it("a draft moved to an unknown estate is a 400; its free fields change after signing", () => {
    spec
      .given(draft)
      .when({
        type: "UpdateLease",
        lease_id,
        changes: { estate_id: "7c1e0000-0000-4000-8000-0000000000e2" },
        estate_exists: false,
      })
      .thenRefuses(400, /Invalid lease data/, ["estate_id"]);
    spec
      .given(active)
      .when({
        type: "UpdateLease",
        lease_id,
        changes: { payment_method: "VIREMENT_BANCAIRE", custom_fields: { ref: "A1" } },
      })
      .then([
        {
          type: "LeaseUpdated",
          data: { lease_id, changes: { payment_method: "VIREMENT_BANCAIRE", custom_fields: { ref: "A1" } } },
        },
      ]);
    spec
      .given(active)
      .when({ type: "UpdateLease", lease_id, changes: { rent_amount: 900 } })
      .thenRefuses(409, /contract terms change only through amendments/, ["rent_amount"]);
  });

  it("a deleted lease is gone: later events leave it deleted and every command is a 404", () => {
    const deleted: LeaseEvent = { type: "LeaseDeleted", data: { lease_id, estate_id: terms.estate_id } };
    const after = [
      ...draft,
      deleted,
      { type: "LeaseUpdated", data: { lease_id, changes: { rent_amount: 1 } } },
    ] as LeaseEvent[];
    expect(spec.given(after).state).toEqual({ status: "deleted" });
    spec.given(after).when({ type: "DeleteLease", lease_id }).thenRefuses(404, /Lease/);
    spec.given([]).when({ type: "DeleteLease", lease_id }).thenRefuses(404, /Lease/);
  });

  it("a plain update folds into the terms", () => {
    const updated: LeaseEvent = { type: "LeaseUpdated", data: { lease_id, changes: { payment_day: 10 } } };
    expect(live(spec.given([...draft, updated]).state).terms.payment_day).toBe(10);
  });
});

describe("documents", () => {
  const doc = {
    lease_id,
    document_id,
    document_type: "INSURANCE",
    description: "Attestation 2025",
    filename: "a.pdf",
    content_type: "application/pdf",
    size: 10,
    sha256: "0".repeat(64),
    blob_key: "k",
  };
  const addedDoc: LeaseEvent = { type: "LeaseDocumentAdded", data: doc };

  it("adds a document to a lease that exists, not to an unknown one", () => {
    spec.given(active).when({ type: "AddLeaseDocument", lease_id, document: doc }).then([addedDoc]);
    spec.given([]).when({ type: "AddLeaseDocument", lease_id, document: doc }).thenRefuses(404, /Lease/);
  });

  it("attaches a document to one of the lease's amendments only; one recorded before amendments had documents is the lease's own", () => {
    const drafted: LeaseEvent = {
      type: "LeaseAmendmentDrafted",
      data: { lease_id, amendment_id, title: "A", effective_date: "2025-06-01", changes: {}, reason: null },
    };
    const attached = { ...doc, amendment_id };
    spec
      .given([...active, drafted])
      .when({ type: "AddLeaseDocument", lease_id, document: attached })
      .then([{ type: "LeaseDocumentAdded", data: attached }]);
    spec
      .given(active)
      .when({ type: "AddLeaseDocument", lease_id, document: attached })
      .thenRefuses(400, /Invalid lease document/, ["amendment_id"]);
    const state = live(
      spec.given([...active, drafted, addedDoc, { type: "LeaseDocumentAdded", data: attached }]).state,
    );
    expect(state.documents[document_id].amendment_id).toBe(amendment_id);
    expect(live(spec.given([...active, addedDoc]).state).documents[document_id]).not.toHaveProperty(
      "amendment_id",
    );
    spec
      .given([...active, drafted, { type: "LeaseDocumentAdded", data: attached }])
      .when({ type: "DeleteAmendment", lease_id, amendment_id })
      .thenRefuses(409, /has documents/);
  });

  it("updates only what differs, from the folded document", () => {
    const renamed: LeaseEvent = {
      type: "LeaseDocumentUpdated",
      data: { lease_id, document_id, changes: { description: "Attestation 2026" } },
    };
    expect(live(spec.given([...active, addedDoc, renamed]).state).documents[document_id]).toEqual({
      document_type: "INSURANCE",
      description: "Attestation 2026",
    });
    spec
      .given([...active, addedDoc, renamed])
      .when({
        type: "UpdateLeaseDocument",
        lease_id,
        document_id,
        changes: { document_type: "INSURANCE", description: "Bail" },
      })
      .then([
        { type: "LeaseDocumentUpdated", data: { lease_id, document_id, changes: { description: "Bail" } } },
      ]);
  });

  it("deletes a document once: then it is unknown (404)", () => {
    spec
      .given([...active, addedDoc])
      .when({ type: "DeleteLeaseDocument", lease_id, document_id })
      .then([{ type: "LeaseDocumentDeleted", data: { lease_id, document_id } }]);
    const gone = [
      ...active,
      addedDoc,
      { type: "LeaseDocumentDeleted", data: { lease_id, document_id } },
    ] as LeaseEvent[];
    spec
      .given(gone)
      .when({ type: "DeleteLeaseDocument", lease_id, document_id })
      .thenRefuses(404, /Document/);
    spec
      .given(gone)
      .when({ type: "UpdateLeaseDocument", lease_id, document_id, changes: { description: "x" } })
      .thenRefuses(404, /Document/);
  });
});

describe("a compliance record changes no term", () => {
  it("folds LeaseComplianceChecked to the same state but for the status the read model shows", () => {
    const checked = {
      type: "LeaseComplianceChecked",
      data: { lease_id, status: "COMPLIANT", checked_at: "2025-06-01T00:00:00.000Z", checks: [] },
    } as unknown as LeaseEvent;
    const after = live(spec.given([...active, checked]).state);
    expect(after).toEqual({
      ...live(spec.given(active).state),
      rent_regulation_compliance_status: "COMPLIANT",
    });
  });
});

describe("a lease reaching its term (the daily job)", () => {
  const reach = (today: string, lessor: "NATURAL_PERSON" | "LEGAL_PERSON" = "NATURAL_PERSON") =>
    ({ type: "ReachLeaseTerm", lease_id, today, lessor }) as LeaseCommand;
  const activeWith = (over: Partial<LeaseTerms>): LeaseEvent[] => [
    { type: "LeaseCreated", data: { lease_id, ...terms, ...over } },
    added(primary, "Primary"),
    { type: "LeaseActivated", data: statusChange },
  ];

  it("renews as many terms as have passed, and the fold moves the end date", () => {
    const lease = activeWith({ end_date: "2026-02-28", duration_months: 12, lease_type: "FURNISHED" });
    const events = spec.given(lease).when(reach("2027-03-01")).thenEvents();
    expect(events).toEqual([
      {
        type: "LeaseRenewed",
        data: {
          lease_id,
          renewed_on: "2026-03-01",
          previous_end_date: "2026-02-28",
          end_date: "2027-02-28",
          months: 12,
        },
      },
      {
        type: "LeaseRenewed",
        data: {
          lease_id,
          renewed_on: "2027-03-01",
          previous_end_date: "2027-02-28",
          end_date: "2028-02-29",
          months: 12,
        },
      },
    ]);
    expect(live(spec.given([...lease, ...events]).state).terms.end_date).toBe("2028-02-29");
    spec
      .given([...lease, ...events])
      .when(reach("2027-03-01"))
      .thenNothing();
  });

  it("a student lease expires at its term (art. 25-7), a bail mobilité too (art. 25-14)", () => {
    for (const [lease_type, article] of [
      ["STUDENT", "25-7"],
      ["MOBILITY", "25-14"],
    ] as const)
      spec
        .given(activeWith({ lease_type, end_date: "2025-11-30", duration_months: 9, deposit_amount: null }))
        .when(reach("2025-12-01"))
        .then([
          {
            type: "LeaseExpired",
            data: {
              lease_id,
              effective_date: "2025-11-30",
              reason: `End of term: a ${lease_type} lease is not renewed (loi n° 89-462 art. ${article})`,
            },
          },
        ]);
  });

  it("leaves alone a lease not active, without end date, or with no renewal rule", () => {
    const ended = activeWith({ end_date: "2025-11-30" });
    spec.given(ended.slice(0, 2)).when(reach("2026-01-01")).thenNothing();
    spec
      .given(activeWith({ end_date: null }))
      .when(reach("2030-01-01"))
      .thenNothing();
    spec
      .given(activeWith({ lease_type: "COMMERCIAL", end_date: "2025-11-30" }))
      .when(reach("2026-01-01"))
      .thenNothing();
    spec.given([]).when(reach("2026-01-01")).thenNothing();
  });
});

describe("pending signature is still a draft for its contract", () => {
  const pending: LeaseEvent[] = [...draft, { type: "LeaseSentForSignature", data: statusChange }];
  it("its tenants may be removed and its contract terms changed", () => {
    expect(
      spec.given(pending).when({ type: "RemoveLeaseLessee", lease_id, lessee_id: primary }).thenEvents(),
    ).toHaveLength(1);
    spec
      .given(pending)
      .when({ type: "UpdateLease", lease_id, changes: { rent_amount: 1100 } })
      .then([{ type: "LeaseUpdated", data: { lease_id, changes: { rent_amount: 1100 } } }]);
    // Before signing the deposit is judged on the new rent (art. 22).
    spec
      .given(pending)
      .when({ type: "UpdateLease", lease_id, changes: { rent_amount: 999.99 } })
      .thenRefuses(422, /may not exceed 1 month/);
  });

  it("an amendment pending validation may be cancelled", () => {
    const ids = { lease_id, amendment_id };
    const history: LeaseEvent[] = [
      ...active,
      {
        type: "LeaseAmendmentDrafted",
        data: {
          ...ids,
          title: "A",
          effective_date: "2025-04-01",
          changes: { rent_amount: 990 },
          reason: null,
        },
      },
      { type: "LeaseAmendmentSubmitted", data: { ...ids, reason: null } },
    ];
    spec
      .given(history)
      .when({ type: "ChangeAmendmentStatus", ...ids, status: "CANCELLED", reason: "retiré", dpe: null })
      .then([{ type: "LeaseAmendmentCancelled", data: { ...ids, reason: "retiré" } }]);
  });
});

describe("what each refusal names", () => {
  it("a lessee unknown at creation is named under primary_lessee_id", () => {
    const err = spec
      .given([])
      .when({
        type: "CreateLease",
        lease_id,
        association_id: "7c1e0000-0000-4000-8000-0000000000d1",
        ...createBody({
          estate_id: terms.estate_id,
          primary_lessee_id: primary,
          lease_type: "UNFURNISHED",
          start_date: "2025-03-01",
          rent_amount: 1000,
        }),
        estate_exists: false,
        primary: null,
      })
      .thenRefuses(400, /^Invalid lease data$/);
    expect(err.details).toEqual([
      { field: "estate_id", message: `Estate ${terms.estate_id} does not exist` },
      { field: "primary_lessee_id", message: `Lessee ${primary} does not exist` },
    ]);
  });

  it("names the estate a draft is moved to, and each contract term of a signed lease", () => {
    const other = "7c1e0000-0000-4000-8000-0000000000e2";
    expect(
      spec
        .given(draft)
        .when({ type: "UpdateLease", lease_id, changes: { estate_id: other }, estate_exists: false })
        .thenRefuses(400, /Invalid lease data/).details,
    ).toEqual([{ field: "estate_id", message: `Estate ${other} does not exist` }]);
    expect(
      spec
        .given(active)
        .when({ type: "UpdateLease", lease_id, changes: { rent_amount: 900, duration_months: 48 } })
        .thenRefuses(409, /contract terms/).details,
    ).toEqual([
      { field: "duration_months", message: "Contract term of a signed lease" },
      { field: "rent_amount", message: "Contract term of a signed lease" },
    ]);
  });

  it("names what an association update may not change", () => {
    const err = spec
      .given(active)
      .when({
        type: "UpdateLeaseLessee",
        lease_id,
        lessee_id: primary,
        changes: {},
        stated: { lessee_id: cotenant, lease_id: "7c1e0000-0000-4000-8000-000000000009", ended: true },
      } as LeaseCommand)
      .thenRefuses(400, /Invalid lease data/);
    expect(err.details).toEqual([
      { field: "lessee_id", message: "Must be the lessee of the path" },
      { field: "lease_id", message: "Must be the lease of the path" },
      { field: "ended", message: "End a term with PUT .../end" },
    ]);
    const twice = spec
      .given([...active, added(cotenant, "CoTenant")])
      .when({
        type: "AddLeaseLessee",
        lease_id,
        association_id: "7c1e0000-0000-4000-8000-0000000000d1",
        tenant: { lessee_id: cotenant, role: "CoTenant" },
        lessee: { category: "individual" },
        today: "2025-04-01",
      } as LeaseCommand)
      .thenRefuses(409, /already on lease/);
    expect(twice.details).toEqual([{ field: "lessee_id", message: "Already associated" }]);
    expect(
      spec
        .given(active)
        .when({ type: "EndLeaseLessee", lease_id, lessee_id: cotenant, end_date: "2025-07-01" })
        .thenRefuses(404).message,
    ).toMatch(/^Lease lessee /);
  });

  it("names the lease start an amendment may not precede", () => {
    const err = spec
      .given(active)
      .when({
        type: "DraftAmendment",
        lease_id,
        amendment_id,
        amendment: amendmentOf({ title: "A", effective_date: "2025-02-28", changes: { rent_amount: 990 } }),
      } as LeaseCommand)
      .thenRefuses(400);
    expect(err.details).toEqual([
      { field: "effective_date", message: "Must not be before the lease start 2025-03-01" },
    ]);
  });

  it("a draft goes to signature without an active Primary; only activation needs one", () => {
    spec
      .given([created])
      .when({
        type: "ChangeLeaseStatus",
        lease_id,
        status: "PENDING_SIGNATURE",
        effective_date: "2025-02-01",
        reason: null,
      })
      .then([
        { type: "LeaseSentForSignature", data: { lease_id, effective_date: "2025-02-01", reason: null } },
      ]);
  });
});

describe("a bail mobilité lasts 1 to 10 months, whatever changes it (art. 25-14)", () => {
  const mobility: LeaseEvent[] = [
    {
      type: "LeaseCreated",
      data: { lease_id, ...terms, lease_type: "MOBILITY", deposit_amount: null, duration_months: 10 },
    },
    added(primary, "Primary"),
  ];
  it("a draft's update to 11 months is a 422", () => {
    spec
      .given(mobility)
      .when({ type: "UpdateLease", lease_id, changes: { duration_months: 11 } })
      .thenRefuses(422, /1 to 10 months/);
  });
  it("an amendment ending it after 10 months is a 422", () => {
    spec
      .given([...mobility, { type: "LeaseActivated", data: statusChange }])
      .when({
        type: "DraftAmendment",
        lease_id,
        amendment_id,
        amendment: amendmentOf({
          title: "Prolongation",
          effective_date: "2025-06-01",
          changes: { duration_months: 11 },
        }),
      } as LeaseCommand)
      .thenRefuses(422, /1 to 10 months/);
  });
});
