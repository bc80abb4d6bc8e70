import { describe, expect, it } from "vitest";
import { amendmentOf, leaseTermsOf } from "../../src/commands/leases/bodies.ts";
import { type LeaseCommand, leaseDecider, TRANSITIONS } from "../../src/commands/leases/decider.ts";
import {
  LEASE_STATUSES,
  type LeaseEvent,
  type LeaseStatus,
  type LeaseTerms,
} from "../../src/events/leases.ts";
import { addMonths } from "../../src/law/calendar.ts";
import { DEFAULT_NOTICE, type NoticeFacts } from "../../src/law/notice.ts";
import { fold } from "../../src/platform/decider.ts";
import { ApiError } from "../../src/platform/errors.ts";
import type { CreateLeaseInput } from "../../src/queries/leasesSchemas.ts";
import { leaseHistory, sampleTerms } from "../support/leaseHistory.ts";

const leaseId = "0b6f9a8e-1111-4c3b-9d4e-000000000001";
const estateId = "0b6f9a8e-2222-4c3b-9d4e-000000000002";
const primaryId = "0b6f9a8e-3333-4c3b-9d4e-000000000003";
const otherId = "0b6f9a8e-4444-4c3b-9d4e-000000000004";
const assocId = "0b6f9a8e-5555-4c3b-9d4e-000000000005";

/** Given these events, when this command: then these events, or this refusal. */
const given = (events: LeaseEvent[]) => ({
  when: (command: LeaseCommand) => {
    const run = () => leaseDecider.decide(command, fold(leaseDecider, events));
    return {
      thenEmits: (expected: LeaseEvent[]) => expect(run()).toEqual(expected),
      thenRefuses: (status: number, message: RegExp, field?: string) => {
        let error: unknown;
        try {
          run();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ApiError);
        const api = error as ApiError;
        expect(api.status, api.message).toBe(status);
        expect(`${api.message} ${JSON.stringify(api.details ?? [])}`).toMatch(message);
        if (field) expect(api.details?.map((d) => d.field)).toContain(field);
        return api;
      },
    };
  },
});

const terms = sampleTerms(estateId);
const { created, primaryAdded, activated, draft, active } = leaseHistory(leaseId, terms, {
  lessee_id: primaryId,
  association_id: assocId,
});
const change = (effective_date = "2025-01-01", reason: string | null = null) => ({
  lease_id: leaseId,
  effective_date,
  reason,
});

const createInput = (extra: Partial<CreateLeaseInput> = {}): CreateLeaseInput => ({
  estate_id: estateId,
  primary_lessee_id: primaryId,
  lease_type: "UNFURNISHED",
  start_date: "2025-01-01",
  rent_amount: 800,
  ...extra,
});
const create = (input: CreateLeaseInput, primary: { category: string } | null = { category: "individual" }) =>
  ({
    type: "CreateLease",
    lease_id: leaseId,
    association_id: assocId,
    terms: leaseTermsOf(input),
    primary_lessee_id: input.primary_lessee_id,
    estate_exists: true,
    primary,
  }) as const;
const status = (
  s: LeaseStatus,
  effective_date = "2025-01-01",
  reason: string | null = null,
): LeaseCommand => ({
  type: "ChangeLeaseStatus",
  lease_id: leaseId,
  status: s,
  effective_date,
  reason,
});
const rent = (
  rent_amount: number,
  extra: object = {},
  dpe: { energy_label: string; valid_until: string } | null = null,
) =>
  ({
    type: "ChangeRent",
    lease_id: leaseId,
    rent: { rent_amount, effective_date: "2025-07-01", reason: "AGREEMENT", ...extra },
    dpe,
  }) as LeaseCommand;

/** The events that bring a fresh lease to each status. */
const reach: Record<LeaseStatus, LeaseEvent[]> = {
  DRAFT: draft,
  PENDING_SIGNATURE: [...draft, { type: "LeaseSentForSignature", data: change() }],
  ACTIVE: active,
  NOTICE: [...active, { type: "LeaseNoticeGiven", data: change() }],
  FINALISATION: [
    ...active,
    { type: "LeaseNoticeGiven", data: change() },
    { type: "LeaseFinalisationStarted", data: change() },
  ],
  TERMINATED: [...active, { type: "LeaseTerminated", data: change() }],
  EXPIRED: [...active, { type: "LeaseExpired", data: change() }],
};

describe("lease decider: create", () => {
  it("creates a DRAFT lease with its Primary association", () => {
    given([])
      .when(create(createInput({ deposit_amount: 800 })))
      .thenEmits([
        {
          type: "LeaseCreated",
          data: {
            lease_id: leaseId,
            ...terms,
            duration_months: null,
            charges_amount: null,
            rent_frequency: null,
            payment_day: null,
            revision_index_type: null,
            revision_reference_quarter: null,
            revision_reference_value: null,
          },
        },
        primaryAdded,
      ]);
  });
  it("refuses an end before the start, an unknown estate, a guarantor as Primary (400)", () => {
    given([])
      .when(create(createInput({ end_date: "2024-12-31" })))
      .thenRefuses(400, /Must not be before/, "end_date");
    given([])
      .when({ ...create(createInput()), estate_exists: false })
      .thenRefuses(400, /Estate .* does not exist/, "estate_id");
    given([])
      .when(create(createInput(), { category: "guarantor" }))
      .thenRefuses(400, /guarantor/, "primary_lessee_id");
    given([])
      .when(create(createInput(), null))
      .thenRefuses(400, /does not exist/, "primary_lessee_id");
  });
  it("caps the deposit: exactly at the cap passes, one cent over is 422 with the figures", () => {
    expect(
      leaseDecider.decide(create(createInput({ deposit_amount: 800 })), { status: "absent" }),
    ).toHaveLength(2);
    given([])
      .when(create(createInput({ deposit_amount: 800.01 })))
      .thenRefuses(422, /800\.01.*800\.00.*art\. 22/, "deposit_amount");
    expect(
      leaseDecider.decide(create(createInput({ lease_type: "FURNISHED", deposit_amount: 1600 })), {
        status: "absent",
      }),
    ).toHaveLength(2);
    given([])
      .when(create(createInput({ lease_type: "FURNISHED", deposit_amount: 1600.01 })))
      .thenRefuses(422, /1600\.01.*1600\.00.*art\. 25-6/);
    given([])
      .when(create(createInput({ lease_type: "MOBILITY", deposit_amount: 0.01 })))
      .thenRefuses(422, /25-13/);
    expect(
      leaseDecider.decide(create(createInput({ lease_type: "COMMERCIAL", deposit_amount: 2400 })), {
        status: "absent",
      }),
    ).toHaveLength(2);
  });
});

describe("lease decider: update and delete", () => {
  it("changes only what differs, before activation", () => {
    given(draft)
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { rent_amount: 800, charges_amount: 60 } })
      .thenEmits([{ type: "LeaseUpdated", data: { lease_id: leaseId, changes: { charges_amount: 60 } } }]);
  });
  it("refuses contract terms after activation naming the amendment and rent routes (409)", () => {
    given(active)
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { rent_amount: 900 } })
      .thenRefuses(409, /amendments.*\/rent/, "rent_amount");
    given(active)
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { payment_method: "CHEQUE" } })
      .thenEmits([
        { type: "LeaseUpdated", data: { lease_id: leaseId, changes: { payment_method: "CHEQUE" } } },
      ]);
  });
  it("re-checks the deposit cap and dates on the merged terms", () => {
    given(draft)
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { rent_amount: 700 } })
      .thenRefuses(422, /800\.00.*700\.00/);
    given(draft)
      .when({ type: "UpdateLease", lease_id: leaseId, changes: { end_date: "2024-01-01" } })
      .thenRefuses(400, /before/, "end_date");
  });
  it("deletes only in DRAFT", () => {
    given(draft)
      .when({ type: "DeleteLease", lease_id: leaseId })
      .thenEmits([{ type: "LeaseDeleted", data: { lease_id: leaseId, estate_id: estateId } }]);
    given(reach.PENDING_SIGNATURE)
      .when({ type: "DeleteLease", lease_id: leaseId })
      .thenRefuses(409, /only a DRAFT/);
    given([])
      .when({ type: "DeleteLease", lease_id: leaseId })
      .thenRefuses(404, /not found/);
  });
});

describe("lease decider: status machine", () => {
  const eventFor: Record<string, string> = {
    "DRAFT>PENDING_SIGNATURE": "LeaseSentForSignature",
    "DRAFT>ACTIVE": "LeaseActivated",
    "PENDING_SIGNATURE>ACTIVE": "LeaseActivated",
    "PENDING_SIGNATURE>DRAFT": "LeaseReturnedToDraft",
    "ACTIVE>NOTICE": "LeaseNoticeGiven",
    "ACTIVE>TERMINATED": "LeaseTerminated",
    "ACTIVE>EXPIRED": "LeaseExpired",
    "NOTICE>ACTIVE": "LeaseNoticeWithdrawn",
    "NOTICE>FINALISATION": "LeaseFinalisationStarted",
    "NOTICE>TERMINATED": "LeaseTerminated",
    "FINALISATION>TERMINATED": "LeaseTerminated",
  };
  for (const from of LEASE_STATUSES) {
    for (const to of LEASE_STATUSES) {
      const type = eventFor[`${from}>${to}`];
      it(`${from} -> ${to}: ${type ?? "409"}`, () => {
        const when = given(reach[from]).when(status(to, "2025-03-01", "why"));
        // a lessee's notice on an unfurnished lease outside a high-demand zone: 3 months (./notice.ts)
        const notice = { given_by: "LESSEE", notice_end_date: "2025-06-01" };
        const data = { ...change("2025-03-01", "why"), ...(type === "LeaseNoticeGiven" ? notice : {}) };
        if (type) when.thenEmits([{ type, data } as LeaseEvent]);
        else when.thenRefuses(409, /cannot go from/);
      });
    }
  }
  it("has exactly docs/design.md's transitions", () => {
    expect(Object.keys(eventFor).sort()).toEqual(
      Object.entries(TRANSITIONS)
        .flatMap(([from, tos]) => tos.map((to) => `${from}>${to}`))
        .sort(),
    );
  });
  it("needs an active Primary to activate", () => {
    const ended: LeaseEvent = {
      type: "LeaseLesseeEnded",
      data: { lease_id: leaseId, lessee_id: primaryId, ended_on: "2025-01-01" },
    };
    given([created])
      .when(status("ACTIVE"))
      .thenRefuses(409, /active Primary/);
    given([...draft, ended])
      .when(status("ACTIVE"))
      .thenRefuses(409, /active Primary/);
    given([...draft, { type: "LeaseLesseeRemoved", data: { lease_id: leaseId, lessee_id: primaryId } }])
      .when(status("ACTIVE"))
      .thenRefuses(409, /active Primary/);
  });
});

describe("lease decider: notice end date (loi n° 89-462 art. 15, 25-8, 25-15)", () => {
  const activeLease = (extra: Partial<LeaseTerms>): LeaseEvent[] => [
    { type: "LeaseCreated", data: { lease_id: leaseId, ...terms, ...extra } },
    primaryAdded,
    activated,
  ];
  const notice = (effective_date: string, facts: Partial<NoticeFacts> = {}): LeaseCommand => ({
    ...(status("NOTICE", effective_date) as Extract<LeaseCommand, { type: "ChangeLeaseStatus" }>),
    notice: { ...DEFAULT_NOTICE, ...facts },
  });
  /** A lessor's notice goes through POST .../notices (GiveLeaseNotice), with a motive. */
  const lessorNotice = (received_on: string): LeaseCommand => ({
    type: "GiveLeaseNotice",
    lease_id: leaseId,
    notice_id: "7d0c0a3e-9999-4c3b-9d4e-000000000009",
    received_on,
    given_by: "LESSOR",
    reason: "LEGITIMATE_SERIOUS_REASON",
    high_demand_zone: null,
  });
  const endsOn = (events: LeaseEvent[], command: LeaseCommand) => {
    const [event] = leaseDecider.decide(command, fold(leaseDecider, events));
    expect(event.type).toBe("LeaseNoticeGiven");
    return (event.data as { notice_end_date: string | null }).notice_end_date;
  };

  it("lessee, unfurnished: 3 months; 1 month in a high-demand zone or a listed case (art. 15 I)", () => {
    const lease = activeLease({});
    expect(endsOn(lease, notice("2025-03-01"))).toBe("2025-06-01");
    expect(endsOn(lease, notice("2025-03-01", { high_demand_zone: null }))).toBe("2025-06-01");
    expect(endsOn(lease, notice("2025-03-01", { high_demand_zone: false }))).toBe("2025-06-01");
    expect(endsOn(lease, notice("2025-03-01", { high_demand_zone: true }))).toBe("2025-04-01");
    expect(endsOn(lease, notice("2025-03-01", { reduced_notice: true }))).toBe("2025-04-01");
  });

  it("counts months as délais do: same day, else the month's last day (CPC art. 641)", () => {
    const furnished = activeLease({ lease_type: "FURNISHED", duration_months: 12 });
    expect(endsOn(furnished, notice("2025-01-31"))).toBe("2025-02-28");
    expect(endsOn(furnished, notice("2024-01-31"))).toBe("2024-02-29");
    expect(endsOn(furnished, notice("2025-12-15"))).toBe("2026-01-15");
    expect(endsOn(activeLease({}), notice("2025-11-30"))).toBe("2026-02-28");
    expect(addMonths("2025-08-31", -6)).toBe("2025-02-28");
  });

  it("lessee, furnished or student: 1 month (art. 25-8 I); bail mobilité: 1 month (art. 25-15)", () => {
    expect(endsOn(activeLease({ lease_type: "FURNISHED" }), notice("2025-03-10"))).toBe("2025-04-10");
    expect(endsOn(activeLease({ lease_type: "STUDENT" }), notice("2025-03-10"))).toBe("2025-04-10");
    expect(endsOn(activeLease({ lease_type: "MOBILITY", deposit_amount: null }), notice("2025-03-10"))).toBe(
      "2025-04-10",
    );
  });

  it("lessor, unfurnished: at the term, received at least 6 months before it (art. 15 I)", () => {
    // The term ends the day before the anniversary (2028-01-01); the notice is in time until the day
    // before the anniversary-equivalent 6 months earlier (2027-07-01): 2027-06-30.
    const lease = activeLease({ end_date: "2027-12-31" });
    expect(endsOn(lease, lessorNotice("2027-06-30"))).toBe("2027-12-31");
    given(lease)
      .when(lessorNotice("2027-07-01"))
      .thenRefuses(422, /6 months before the term.*art\. 15 I/, "effective_date");
    // no end date: the term of the tacitly renewed 36-month periods from the start
    const renewed = activeLease({ end_date: null, duration_months: 36 });
    expect(endsOn(renewed, lessorNotice("2027-06-30"))).toBe("2027-12-31");
    expect(endsOn(renewed, lessorNotice("2027-07-01"))).toBe("2030-12-31");
    given(activeLease({ end_date: null, duration_months: null }))
      .when(lessorNotice("2027-07-01"))
      .thenRefuses(422, /neither end_date nor duration_months/, "given_by");
  });

  it("lessor, furnished: 3 months before the term (art. 25-8 I); never on a bail mobilité (art. 25-14)", () => {
    const lease = activeLease({ lease_type: "FURNISHED", end_date: "2025-12-31" });
    expect(endsOn(lease, lessorNotice("2025-09-30"))).toBe("2025-12-31");
    given(lease)
      .when(lessorNotice("2025-10-01"))
      .thenRefuses(422, /3 months before the term.*art\. 25-8/);
    given(activeLease({ lease_type: "MOBILITY", deposit_amount: null, end_date: "2025-10-01" }))
      .when(lessorNotice("2025-05-01"))
      .thenRefuses(422, /art\. 25-14/, "given_by");
  });

  it("PUT .../status to NOTICE by the lessor is refused with a pointer to POST .../notices (art. 15 I, 25-8 I)", () => {
    for (const lease_type of ["UNFURNISHED", "FURNISHED"] as const)
      given(activeLease({ lease_type, end_date: "2027-12-31" }))
        .when(notice("2027-06-30", { given_by: "LESSOR" }))
        .thenRefuses(422, /must state its motive.*POST \/api\/leases\/.*\/notices/, "reason");
    // Outside art. 15 (a professional lease) the status route still takes it.
    expect(
      endsOn(
        activeLease({ lease_type: "PROFESSIONAL", end_date: "2027-12-31" }),
        notice("2027-06-30", { given_by: "LESSOR" }),
      ),
    ).toBe("2027-12-31");
  });

  it("takes a later end from the client, never an earlier one than the law's", () => {
    const lease = activeLease({});
    expect(endsOn(lease, notice("2025-03-01", { requested_end: "2025-06-01" }))).toBe("2025-06-01");
    expect(endsOn(lease, notice("2025-03-01", { requested_end: "2025-07-15" }))).toBe("2025-07-15");
    given(lease)
      .when(notice("2025-03-01", { requested_end: "2025-05-31" }))
      .thenRefuses(422, /ends 2025-06-01 at the earliest/, "notice_end_date");
  });

  it("outside loi n° 89-462 without a confirmed period (parking): the client's date, not before the notice", () => {
    const lease = activeLease({ lease_type: "PARKING", deposit_amount: 5000 });
    expect(endsOn(lease, notice("2025-03-01"))).toBeNull();
    expect(endsOn(lease, notice("2025-03-01", { requested_end: "2025-03-01" }))).toBe("2025-03-01");
    given(lease)
      .when(notice("2025-03-01", { requested_end: "2025-02-28" }))
      .thenRefuses(422, /cannot end before/, "notice_end_date");
  });
});

describe("lease decider: tenants", () => {
  const add = (lessee_id: string, role: "Primary" | "CoTenant" | "Guarantor", category = "individual") =>
    ({
      type: "AddLeaseLessee",
      lease_id: leaseId,
      association_id: assocId,
      tenant: { lessee_id, role },
      lessee: { category },
      today: "2025-05-01",
    }) as LeaseCommand;
  it("adds a co-tenant from the lease start in DRAFT, from today once active", () => {
    given(draft)
      .when(add(otherId, "CoTenant"))
      .thenEmits([
        {
          type: "LeaseLesseeAdded",
          data: {
            lease_id: leaseId,
            association_id: assocId,
            lessee_id: otherId,
            role: "CoTenant",
            start_date: "2025-01-01",
            end_date: null,
          },
        },
      ]);
    const [event] = leaseDecider.decide(add(otherId, "Guarantor", "guarantor"), fold(leaseDecider, active));
    expect(event.data).toMatchObject({ role: "Guarantor", start_date: "2025-05-01" });
  });
  it("refuses a guarantor-category lessee in another role, a duplicate, a terminated lease", () => {
    given(draft)
      .when(add(otherId, "CoTenant", "guarantor"))
      .thenRefuses(400, /guarantor/, "lessee_id");
    given(draft)
      .when(add(primaryId, "CoTenant"))
      .thenRefuses(409, /already/);
    given(reach.TERMINATED)
      .when(add(otherId, "CoTenant"))
      .thenRefuses(409, /TERMINATED/);
  });
  it("refuses ending or demoting the last Primary of a non-draft lease; allows it in DRAFT", () => {
    const end = {
      type: "EndLeaseLessee",
      lease_id: leaseId,
      lessee_id: primaryId,
      end_date: "2025-06-30",
    } as const;
    given(active)
      .when(end)
      .thenRefuses(409, /last Primary/);
    given(draft)
      .when(end)
      .thenEmits([
        {
          type: "LeaseLesseeEnded",
          data: { lease_id: leaseId, lessee_id: primaryId, ended_on: "2025-06-30" },
        },
      ]);
    const demote = {
      type: "UpdateLeaseLessee",
      lease_id: leaseId,
      lessee_id: primaryId,
      changes: { role: "CoTenant" },
    } as const;
    given(active)
      .when(demote)
      .thenRefuses(409, /last Primary/);
    const second: LeaseEvent = {
      type: "LeaseLesseeAdded",
      data: { ...primaryAdded.data, association_id: otherId, lessee_id: otherId } as never,
    };
    given([...active, second])
      .when(end)
      .thenEmits([
        {
          type: "LeaseLesseeEnded",
          data: { lease_id: leaseId, lessee_id: primaryId, ended_on: "2025-06-30" },
        },
      ]);
  });
  it("removes an association only in DRAFT", () => {
    const remove = { type: "RemoveLeaseLessee", lease_id: leaseId, lessee_id: primaryId } as const;
    given(draft)
      .when(remove)
      .thenEmits([{ type: "LeaseLesseeRemoved", data: { lease_id: leaseId, lessee_id: primaryId } }]);
    given(active)
      .when(remove)
      .thenRefuses(409, /end the tenant's term/);
    given(active)
      .when({ ...remove, lessee_id: otherId })
      .thenRefuses(404, /not found/);
  });
});

describe("lease decider: rent", () => {
  const index = (reference_value: number, new_value: number) => ({
    reason: "INDEX_REVISION",
    effective_date: "2026-01-01",
    index: { type: "IRL", reference_quarter: "2024-Q2", reference_value, new_quarter: "2025-Q2", new_value },
  });
  it("records a change with the previous figures", () => {
    given(active)
      .when(rent(820, { charges_amount: 55 }))
      .thenEmits([
        {
          type: "LeaseRentChanged",
          data: {
            lease_id: leaseId,
            rent_amount: 820,
            charges_amount: 55,
            previous_rent_amount: 800,
            previous_charges_amount: 50,
            effective_date: "2025-07-01",
            reason: "AGREEMENT",
            index: null,
          },
        },
      ]);
  });
  it("caps an index revision to the cent", () => {
    // 800 × 146.68 / 145.17 = 808.3213…: 808.32 passes, 808.33 is over
    expect(leaseDecider.decide(rent(808.32, index(145.17, 146.68)), fold(leaseDecider, active))).toHaveLength(
      1,
    );
    given(active)
      .when(rent(808.33, index(145.17, 146.68)))
      .thenRefuses(422, /808\.33 exceeds the cap 808\.32/, "rent_amount");
    given(active)
      .when(rent(808.32, { reason: "INDEX_REVISION" }))
      .thenRefuses(400, /Required/, "index");
  });
  it("freezes increases while the DPE is F or G, not once it expired the day before", () => {
    given(active)
      .when(rent(801, {}, { energy_label: "G", valid_until: "2025-07-01" }))
      .thenRefuses(422, /classed G/);
    given(active)
      .when(rent(801, {}, { energy_label: "F", valid_until: "2030-01-01" }))
      .thenRefuses(422, /classed F/);
    expect(
      leaseDecider.decide(
        rent(801, {}, { energy_label: "G", valid_until: "2025-06-30" }),
        fold(leaseDecider, active),
      ),
    ).toHaveLength(1);
    expect(
      leaseDecider.decide(
        rent(790, {}, { energy_label: "G", valid_until: "2030-01-01" }),
        fold(leaseDecider, active),
      ),
    ).toHaveLength(1);
    expect(
      leaseDecider.decide(
        rent(900, {}, { energy_label: "E", valid_until: "2030-01-01" }),
        fold(leaseDecider, active),
      ),
    ).toHaveLength(1);
  });
  it("lowers freely (the deposit cap binds at signature), refuses a terminated lease", () => {
    expect(leaseDecider.decide(rent(700), fold(leaseDecider, active))).toHaveLength(1);
    given(reach.TERMINATED)
      .when(rent(800))
      .thenRefuses(409, /TERMINATED/);
  });
});

describe("lease decider: amendments", () => {
  const amendmentId = "0b6f9a8e-6666-4c3b-9d4e-000000000006";
  const ids = { lease_id: leaseId, amendment_id: amendmentId };
  const fields = {
    title: "Avenant n°1",
    effective_date: "2025-09-01",
    changes: { rent_amount: 820, end_date: "2028-12-31" },
    reason: null,
  };
  const drafted: LeaseEvent = { type: "LeaseAmendmentDrafted", data: { ...ids, ...fields } };
  const submitted: LeaseEvent = { type: "LeaseAmendmentSubmitted", data: { ...ids, reason: null } };
  const to = (status: "PENDING_VALIDATION" | "VALIDATED" | "REJECTED" | "CANCELLED" | "DRAFT", dpe = null) =>
    ({ type: "ChangeAmendmentStatus", ...ids, status, reason: null, dpe }) as LeaseCommand;

  it("drafts an amendment, refusing an end before the start (400); a rent cut never fails the deposit cap (art. 22)", () => {
    given(active)
      .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf(fields) })
      .thenEmits([drafted]);
    given(active)
      .when({
        type: "DraftAmendment",
        ...ids,
        amendment: amendmentOf({ ...fields, changes: { end_date: "2024-01-01" } }),
      })
      .thenRefuses(400, /before/, "changes.end_date");
    // The deposit is judged when it is set and never revised during the lease (loi 89-462 art. 22).
    const cut = { ...fields, changes: { rent_amount: 799.99 } };
    given(active)
      .when({ type: "DraftAmendment", ...ids, amendment: amendmentOf(cut) })
      .thenEmits([{ ...drafted, data: { ...drafted.data, changes: cut.changes } }]);
  });
  it("updates and deletes only in DRAFT", () => {
    given([...active, drafted])
      .when({ type: "ReviseAmendment", ...ids, changes: { title: "Avenant 1 bis" } })
      .thenEmits([{ type: "LeaseAmendmentRevised", data: { ...ids, changes: { title: "Avenant 1 bis" } } }]);
    given([...active, drafted, submitted])
      .when({ type: "ReviseAmendment", ...ids, changes: { title: "x" } })
      .thenRefuses(409, /only a DRAFT/);
    given([...active, drafted, submitted])
      .when({ type: "DeleteAmendment", ...ids })
      .thenRefuses(409, /only a DRAFT/);
    given([...active, drafted])
      .when({ type: "DeleteAmendment", ...ids })
      .thenEmits([{ type: "LeaseAmendmentDeleted", data: ids }]);
    given(active)
      .when({ type: "DeleteAmendment", ...ids })
      .thenRefuses(404, /Amendment/);
  });
  it("follows DRAFT -> PENDING_VALIDATION -> VALIDATED|REJECTED, cancel from the first two", () => {
    given([...active, drafted])
      .when(to("VALIDATED"))
      .thenRefuses(409, /cannot go from DRAFT/);
    given([...active, drafted])
      .when(to("PENDING_VALIDATION"))
      .thenEmits([submitted]);
    given([...active, drafted])
      .when(to("CANCELLED"))
      .thenEmits([{ type: "LeaseAmendmentCancelled", data: { ...ids, reason: null } }]);
    given([...active, drafted, submitted])
      .when(to("REJECTED"))
      .thenEmits([{ type: "LeaseAmendmentRejected", data: { ...ids, reason: null } }]);
    given([...active, drafted, submitted, { type: "LeaseAmendmentRejected", data: { ...ids, reason: null } }])
      .when(to("CANCELLED"))
      .thenRefuses(409, /REJECTED is final/);
  });
  it("validation applies the changes in the same events: terms, then the rent by agreement", () => {
    given([...active, drafted, submitted])
      .when(to("VALIDATED"))
      .thenEmits([
        { type: "LeaseAmendmentValidated", data: { ...ids, reason: null } },
        { type: "LeaseAmended", data: { ...ids, changes: { end_date: "2028-12-31" } } },
        {
          type: "LeaseRentChanged",
          data: {
            lease_id: leaseId,
            rent_amount: 820,
            charges_amount: 50,
            previous_rent_amount: 800,
            previous_charges_amount: 50,
            effective_date: "2025-09-01",
            reason: "AGREEMENT",
            index: null,
          },
        },
      ]);
  });
  it("a validated rent increase is frozen while the DPE is F or G", () => {
    const raise: LeaseEvent = {
      type: "LeaseAmendmentDrafted",
      data: { ...ids, ...fields, changes: { rent_amount: 850 } },
    };
    given([...active, raise, submitted])
      .when({ ...to("VALIDATED"), dpe: { energy_label: "F", valid_until: "2030-01-01" } } as LeaseCommand)
      .thenRefuses(422, /classed F/);
  });
});
