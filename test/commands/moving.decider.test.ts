import { describe, expect, it } from "vitest";
import { depositDecider, type ReturnDeposit } from "../../src/commands/deposits/decider.ts";
import { type LeaseCommand, leaseDecider } from "../../src/commands/leases/decider.ts";
import type { DepositEvent } from "../../src/events/deposits.ts";
import type { LeaseEvent } from "../../src/events/leases.ts";
import { deciderSpec } from "../support/deciderSpec.ts";
import { leaseHistory, sampleTerms } from "../support/leaseHistory.ts";

/** Notices, termination and the deposit's return (docs/moving.md): given / when / then, no database. */

const lease_id = "0b6f9a8e-1111-4c3b-9d4e-00000000000a";
const notice_id = "0b6f9a8e-1111-4c3b-9d4e-00000000000b";
const { active, draft } = leaseHistory(lease_id, sampleTerms("0b6f9a8e-2222-4c3b-9d4e-00000000000c"), {
  lessee_id: "0b6f9a8e-3333-4c3b-9d4e-00000000000d",
  association_id: "0b6f9a8e-5555-4c3b-9d4e-00000000000e",
});
const spec = deciderSpec(leaseDecider);

const notice = (over: Partial<Extract<LeaseCommand, { type: "GiveLeaseNotice" }>> = {}): LeaseCommand => ({
  type: "GiveLeaseNotice",
  lease_id,
  notice_id,
  received_on: "2026-03-10",
  given_by: "LESSEE",
  reason: null,
  high_demand_zone: null,
  ...over,
});
const noticeGiven = (effective_date: string, notice_end_date: string, extra = {}): LeaseEvent => ({
  type: "LeaseNoticeGiven",
  data: { lease_id, notice_id, effective_date, reason: null, given_by: "LESSEE", notice_end_date, ...extra },
});
const terminate = (keys_returned_on: string, matches: boolean | null = null): LeaseCommand => ({
  type: "TerminateLease",
  lease_id,
  keys_returned_on,
  exit_report_id: matches === null ? null : "0b6f9a8e-6666-4c3b-9d4e-00000000000f",
  exit_report_matches: matches,
});

const sale = { price: 250_000, terms: "Paiement comptant à la signature de l'acte authentique" };
const lessorNotice = (over: Partial<Extract<LeaseCommand, { type: "GiveLeaseNotice" }>>) =>
  notice({ given_by: "LESSOR", received_on: "2027-06-30", ...over });

describe("a notice (art. 15 I, 25-8 I)", () => {
  it("a lessee: 3 months; 1 with a listed case or in a high-demand zone", () => {
    spec
      .given(active)
      .when(notice())
      .then([noticeGiven("2026-03-10", "2026-06-10")]);
    spec
      .given(active)
      .when(notice({ reason: "HEALTH" }))
      .then([noticeGiven("2026-03-10", "2026-04-10", { reason: "HEALTH" })]);
    spec
      .given(active)
      .when(notice({ high_demand_zone: true }))
      .then([noticeGiven("2026-03-10", "2026-04-10")]);
  });
  it("a lessor: a motive, 6 months before the term", () => {
    spec
      .given(active)
      .when(notice({ given_by: "LESSOR" }))
      .thenRefuses(422, /must state its motive/, ["reason"]);
    spec
      .given(active)
      .when(notice({ given_by: "LESSOR", reason: "SALE", sale, received_on: "2027-06-30" }))
      .then([
        noticeGiven("2027-06-30", "2027-12-31", {
          given_by: "LESSOR",
          reason: "SALE",
          sale_offer_until: "2027-08-30",
        }),
      ]);
    spec
      .given(active)
      .when(notice({ given_by: "LESSOR", reason: "SALE", sale, received_on: "2027-07-01" }))
      .then([
        noticeGiven("2027-07-01", "2030-12-31", {
          given_by: "LESSOR",
          reason: "SALE",
          sale_offer_until: "2027-09-01",
        }),
      ]);
  });

  it("only on an ACTIVE lease", () => {
    spec
      .given(draft)
      .when(notice())
      .thenRefuses(409, /cannot go from DRAFT to NOTICE/);
    spec
      .given([...active, noticeGiven("2026-03-10", "2026-06-10")])
      .when(notice())
      .thenRefuses(409, /from NOTICE to NOTICE/);
  });
});

describe("termination at the keys' return (art. 22)", () => {
  const underNotice = [...active, noticeGiven("2026-03-10", "2026-06-10")];
  it("ends at the notice's end when the keys come back earlier; the deposit due 2 months after them", () => {
    const [event] = spec.given(underNotice).when(terminate("2026-05-20")).thenEvents();
    expect(event).toEqual({
      type: "LeaseTerminated",
      data: {
        lease_id,
        effective_date: "2026-06-10",
        reason: "Keys returned on 2026-05-20",
        keys_returned_on: "2026-05-20",
        exit_report_id: null,
        exit_report_matches: null,
        deposit_due_on: "2026-07-20",
      },
    });
  });
  it("an exit report matching the entry: due 1 month after the keys; later keys date the end", () => {
    const [event] = spec.given(underNotice).when(terminate("2026-06-15", true)).thenEvents();
    expect(event.data).toMatchObject({ effective_date: "2026-06-15", deposit_due_on: "2026-07-15" });
  });
  it("after the lessor's notice, ends at the keys' return: rent only for the time occupied (art. 15 I)", () => {
    const lessors = [
      ...active,
      noticeGiven("2026-03-10", "2026-12-31", { given_by: "LESSOR", reason: "SALE" }),
    ];
    const [event] = spec.given(lessors).when(terminate("2026-05-20")).thenEvents();
    expect(event.data).toMatchObject({ effective_date: "2026-05-20", keys_returned_on: "2026-05-20" });
  });
  it("the dwelling let again with the lessor's agreement: the lessee's rent stops the day before", () => {
    const [event] = spec
      .given(underNotice)
      .when({ ...terminate("2026-05-20"), relet_on: "2026-06-01" } as LeaseCommand)
      .thenEvents();
    expect(event.data).toMatchObject({ effective_date: "2026-05-31", relet_on: "2026-06-01" });
  });
  it("a notice recorded without its giver: its whole period, as a lessee's", () => {
    const unknown = [...active, noticeGiven("2026-03-10", "2026-06-10", { given_by: undefined })];
    const [event] = spec.given(unknown).when(terminate("2026-05-20")).thenEvents();
    expect(event.data).toMatchObject({ effective_date: "2026-06-10" });
  });
  it("a notice withdrawn: an ACTIVE lease ends at the keys' return", () => {
    const withdrawn: LeaseEvent[] = [
      ...underNotice,
      { type: "LeaseNoticeWithdrawn", data: { lease_id, effective_date: "2026-04-01", reason: null } },
    ];
    const [event] = spec.given(withdrawn).when(terminate("2026-05-20")).thenEvents();
    expect(event.data).toMatchObject({ effective_date: "2026-05-20" });
  });
  it("refused on a draft, or keys before the start", () => {
    spec
      .given(draft)
      .when(terminate("2026-05-20"))
      .thenRefuses(409, /DRAFT to TERMINATED/);
    spec
      .given(active)
      .when(terminate("2024-12-31"))
      .thenRefuses(422, /before the lease starts/, ["keys_returned_on"]);
  });
});

describe("the deposit's return", () => {
  const deposits = deciderSpec(depositDecider);
  const command = (over: Partial<ReturnDeposit> = {}): ReturnDeposit => ({
    type: "ReturnDeposit",
    lease_id,
    returned_on: "2026-07-30",
    deductions: [],
    held: 0,
    forwarding_address_given: null,
    in_copropriete: null,
    keys_returned_on: null,
    lease: {
      amount: 800,
      monthly_rent: 800,
      ended: true,
      keys_returned_on: "2026-05-20",
      due_on: "2026-07-20",
    },
    ...over,
  });
  const returned = (extra: Partial<Extract<DepositEvent, object>["data"]> = {}): DepositEvent => ({
    type: "LeaseDepositReturned",
    data: {
      lease_id,
      returned_on: "2026-07-30",
      deductions: [],
      held: 0,
      returned_amount: 800,
      keys_returned_on: "2026-05-20",
      due_on: "2026-07-20",
      late_months: 1,
      late_penalty: 80,
      ...extra,
    },
  });
  it("10 days late: one started month, 10 % of the rent", () => {
    deposits.given([]).when(command()).then([returned()]);
  });
  it("late because the tenant gave no forwarding address: no penalty (art. 22 al. 7)", () => {
    deposits
      .given([])
      .when(command({ forwarding_address_given: false }))
      .then([returned({ late_months: 1, late_penalty: 0 })]);
  });
  it("a hold-back only in copropriété (art. 22 al. 5)", () => {
    deposits
      .given([])
      .when(command({ held: 100 }))
      .thenRefuses(422, /held part at most 20 %/, ["held"]);
    deposits
      .given([])
      .when(command({ held: 100, in_copropriete: true }))
      .then([returned({ held: 100, returned_amount: 700 })]);
  });
  it("a lease ended without the keys' return: given with the return, due 2 months later", () => {
    const expired = { amount: 800, monthly_rent: 800, ended: true, keys_returned_on: null, due_on: null };
    deposits
      .given([])
      .when(command({ lease: expired }))
      .thenRefuses(400, /Invalid deposit return/, ["keys_returned_on"]);
    deposits
      .given([])
      .when(command({ lease: expired, keys_returned_on: "2026-05-20", returned_on: "2026-07-20" }))
      .then([returned({ returned_on: "2026-07-20", late_months: 0, late_penalty: 0 })]);
  });
  it("once; after the keys; only for a terminated lease", () => {
    deposits
      .given([returned()])
      .when(command())
      .thenRefuses(409, /was returned on 2026-07-30/);
    const running = { amount: 800, monthly_rent: 800, ended: false, keys_returned_on: null, due_on: null };
    deposits
      .given([])
      .when(command({ lease: running }))
      .thenRefuses(409, /not terminated/);
    deposits
      .given([])
      .when(command({ returned_on: "2026-05-19" }))
      .thenRefuses(422, /after the keys/, ["returned_on"]);
  });
});

describe("domestic violence (art. 15 I 3° bis, art. 8-2)", () => {
  it("a one-month notice; the victim's joint liability ends the day after the notice", () => {
    spec
      .given(active)
      .when(notice({ reason: "DOMESTIC_VIOLENCE" }))
      .then([
        noticeGiven("2026-03-10", "2026-04-10", {
          reason: "DOMESTIC_VIOLENCE",
          solidarity_ends_on: "2026-03-11",
        }),
      ]);
    spec
      .given(active)
      .when(notice({ given_by: "LESSOR", reason: "DOMESTIC_VIOLENCE" }))
      .thenRefuses(422, /lessee's reason/, ["reason"]);
  });
});

describe("what a lessor's notice states (art. 15 I, II)", () => {
  it("a notice for sale states the price and the terms, else 422 naming each", () => {
    spec
      .given(active)
      .when(lessorNotice({ reason: "SALE" }))
      .thenRefuses(422, /price and terms of the sale.*art\. 15 II/, ["sale.price", "sale.terms"]);
    spec
      .given(active)
      .when(lessorNotice({ reason: "SALE", sale: { price: 250_000, terms: " " } }))
      .thenRefuses(422, /15 II/, ["sale.terms"]);
    // A furnished lease: art. 25-8 gives no offer to sell, so neither is asked.
    const furnished = leaseHistory(
      lease_id,
      sampleTerms("0b6f9a8e-2222-4c3b-9d4e-00000000000c", {
        lease_type: "FURNISHED",
        duration_months: 12,
        end_date: "2027-12-31",
      }),
      {
        lessee_id: "0b6f9a8e-3333-4c3b-9d4e-00000000000d",
        association_id: "0b6f9a8e-5555-4c3b-9d4e-00000000000e",
      },
    ).active;
    spec
      .given(furnished)
      .when(lessorNotice({ reason: "SALE", received_on: "2027-09-30" }))
      .then([noticeGiven("2027-09-30", "2027-12-31", { given_by: "LESSOR", reason: "SALE" })]);
  });

  it("a notice for repossession names the beneficiary, their address and the tie", () => {
    spec
      .given(active)
      .when(lessorNotice({ reason: "REPOSSESSION" }))
      .thenRefuses(422, /beneficiary, their address and their tie/, [
        "repossession.beneficiary_name",
        "repossession.beneficiary_address",
        "repossession.tie",
      ]);
    const repossession = {
      beneficiary_name: "Léa Martin",
      beneficiary_address: "3 rue des Lilas, 69003 Lyon",
      tie: "DESCENDANT",
    };
    spec
      .given(active)
      .when(lessorNotice({ reason: "REPOSSESSION", repossession }))
      .then([noticeGiven("2027-06-30", "2027-12-31", { given_by: "LESSOR", reason: "REPOSSESSION" })]);
  });

  it("bought occupied: no notice for sale for a term less than 3 years after; repossession 2 years after", () => {
    // Term 2027-12-31: bought 2024-12-31 is exactly 3 years before, bought 2025-01-01 is less.
    expect(
      spec
        .given(active)
        .when(lessorNotice({ reason: "SALE", sale, acquired_occupied_on: "2024-12-31" }))
        .thenEvents(),
    ).toHaveLength(1);
    spec
      .given(active)
      .when(lessorNotice({ reason: "SALE", sale, acquired_occupied_on: "2025-01-01" }))
      .thenRefuses(422, /three years later.*loi n° 2014-366/, ["acquired_occupied_on"]);
    const repossession = { beneficiary_name: "Léa Martin", beneficiary_address: "Lyon", tie: "LESSOR" };
    // Bought 2026-03-15: the repossession takes effect on 2028-03-15, not at the term.
    spec
      .given(active)
      .when(lessorNotice({ reason: "REPOSSESSION", repossession, acquired_occupied_on: "2026-03-15" }))
      .then([noticeGiven("2027-06-30", "2028-03-15", { given_by: "LESSOR", reason: "REPOSSESSION" })]);
    spec
      .given(active)
      .when(lessorNotice({ reason: "REPOSSESSION", repossession, acquired_occupied_on: "2025-12-31" }))
      .then([noticeGiven("2027-06-30", "2027-12-31", { given_by: "LESSOR", reason: "REPOSSESSION" })]);
  });
});

describe("the elderly tenant (art. 15 III)", () => {
  const elderly = (lessee_born_on: string, over = {}) => ({
    lessee_born_on,
    lessee_resources_under_ceiling: true,
    rehousing_offered: false,
    lessor_born_on: null,
    lessor_resources_under_ceiling: null,
    ...over,
  });
  const give = (elderly_tenant: ReturnType<typeof elderly>, lessor?: "NATURAL_PERSON" | "LEGAL_PERSON") =>
    spec
      .given(active)
      .when(
        lessorNotice({ reason: "LEGITIMATE_SERIOUS_REASON", elderly_tenant, ...(lessor ? { lessor } : {}) }),
      );
  it("65 on the term with resources under the ceiling: no notice without a rehousing", () => {
    // Term 2027-12-31: born 1962-12-31 is 65 that day; born 1963-01-01 is not.
    give(elderly("1962-12-31")).thenRefuses(422, /over 65 on the term.*art\. 15 III/, [
      "elderly_tenant.rehousing_offered",
    ]);
    expect(give(elderly("1963-01-01")).thenEvents()).toHaveLength(1);
    expect(give(elderly("1962-12-31", { lessee_resources_under_ceiling: false })).thenEvents()).toHaveLength(
      1,
    );
    expect(give(elderly("1962-12-31", { rehousing_offered: true })).thenEvents()).toHaveLength(1);
  });
  it("unless the lessor, a natural person, is 65 on the term or under the ceiling", () => {
    expect(give(elderly("1950-01-01", { lessor_born_on: "1962-12-31" })).thenEvents()).toHaveLength(1);
    give(elderly("1950-01-01", { lessor_born_on: "1963-01-01" })).thenRefuses(422, /15 III/);
    expect(give(elderly("1950-01-01", { lessor_resources_under_ceiling: true })).thenEvents()).toHaveLength(
      1,
    );
    // A company lessor has no exception.
    give(elderly("1950-01-01", { lessor_born_on: "1940-01-01" }), "LEGAL_PERSON").thenRefuses(422, /15 III/);
  });
});
