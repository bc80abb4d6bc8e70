import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { paymentReferenceOf, rentCallId } from "../../src/events/rentCycle.ts";
import { addDays, addMonths, legalToday } from "../../src/law/calendar.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { isCreditorReference } from "../../src/platform/sepaIdentifiers.ts";
import { type ALL_PERMISSIONS, createApiKey, createWorkerKey } from "../../src/platform/tenants/tenants.ts";
import { rentCycleProjection } from "../../src/projections/rentCycle.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** The rent cycle over HTTP (docs/design.md §7.1, docs/rent-cycle.md): calls, payments, account, Finance permissions. */
describe.each(databaseKinds)("rent cycle on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const deps = () => ({ sql: t.sql, store: t.service.platform.store });
  const calls = (leaseId: string, query = "", as?: TestTenant) =>
    t.request("GET", `/api/leases/${leaseId}/rent-calls${query}`, { as });
  const callsOf = (leaseId: string, n: number) =>
    eventually(
      async () => (await calls(leaseId)).json(),
      (body) => Array.isArray(body) && body.length === n,
    );
  const pay = (leaseId: string, body: object, headers: Record<string, string> = {}, as?: TestTenant) =>
    t.request("POST", `/api/leases/${leaseId}/payments`, {
      body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-02-10", ...body },
      headers,
      as,
    });
  /** An ACTIVE lease from 2025-01-01, 800 + 50 a month due on the 5th, its calls issued to 2025-03-15. */
  const activeLease = async (extra: object = {}, as?: TestTenant) => {
    const lease = await newLease({ payment_day: 5, ...extra }, as);
    expect((await setStatus(lease.id, "ACTIVE", {}, as)).statusCode).toBe(200);
    return lease;
  };

  it("issues a call per started period, once, even with two runs at once; a second run writes nothing", async () => {
    const { id } = await activeLease();
    const [a, b] = await Promise.all([
      issueRentCalls(deps(), { today: "2025-03-15", tenantId: t.tenant.id }),
      issueRentCalls(deps(), { today: "2025-03-15", tenantId: t.tenant.id }),
    ]);
    expect(a.calls + b.calls).toBeGreaterThanOrEqual(3);
    const list = await callsOf(id, 3);
    expect(list[0]).toEqual({
      id: rentCallId(id, "2025-01-01"),
      lease_id: id,
      period_start: "2025-01-01",
      period_end: "2025-01-31",
      due_date: "2025-01-05",
      rent_amount: 800,
      charges_amount: 50,
      total_amount: 850,
      paid_amount: 0,
      status: "OVERDUE",
      prorated: null,
      payment_reference: paymentReferenceOf(rentCallId(id, "2025-01-01")),
    });
    expect(isCreditorReference(list[0].payment_reference)).toBe(true);
    expect(new Set(list.map((c: { payment_reference: string }) => c.payment_reference)).size).toBe(3);
    const history = await t.sql.query(`SELECT count(*)::int AS n FROM events WHERE stream_name = $1`, [
      `lease_account-${id}`,
    ]);
    expect(history[0].n).toBe(3);
    await writesNothing(async () => {
      expect(await issueRentCalls(deps(), { today: "2025-03-15", tenantId: t.tenant.id })).toMatchObject({
        calls: 0,
      });
    });
    // The next month's period once it has started.
    await issueRentCalls(deps(), { today: "2025-04-01", tenantId: t.tenant.id });
    expect((await callsOf(id, 4))[3]).toMatchObject({ period_start: "2025-04-01", due_date: "2025-04-05" });
  });

  it("prorates the first period of a lease starting mid-month; draft leases get no call", async () => {
    const { id } = await activeLease({ start_date: "2025-01-16" });
    const draft = await newLease({ start_date: "2025-01-01" });
    await issueRentCalls(deps(), { today: "2025-01-20", tenantId: t.tenant.id });
    const [first] = await callsOf(id, 1);
    // 800 × 16/31 = 412.90; 50 × 16/31 = 25.81
    expect(first).toMatchObject({
      period_start: "2025-01-16",
      due_date: "2025-01-16",
      rent_amount: 412.9,
      charges_amount: 25.81,
      total_amount: 438.71,
      prorated: { days: 16, of_days: 31 },
    });
    expect((await calls(draft.id)).json()).toEqual([]);
  });

  it("calls the rent in force on each day: a change effective mid-period splits it by days", async () => {
    const { id } = await activeLease();
    const changed = await t.request("PUT", `/api/leases/${id}/rent`, {
      body: { rent_amount: 900, charges_amount: 50, effective_date: "2025-02-15", reason: "CORRECTION" },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await issueRentCalls(deps(), { today: "2025-03-01", tenantId: t.tenant.id });
    const [jan, feb, mar] = await callsOf(id, 3);
    expect(jan).toMatchObject({ rent_amount: 800, total_amount: 850 });
    // 800 × 14/28 + 900 × 14/28
    expect(feb).toMatchObject({ rent_amount: 850, charges_amount: 50, total_amount: 900, prorated: null });
    expect(mar).toMatchObject({ rent_amount: 900, total_amount: 950 });
  });

  it("records payments oldest call first with a read-your-writes answer; overpayment is credit; the account balances", async () => {
    const { id, primary_lessee_id } = await activeLease();
    await issueRentCalls(deps(), { today: "2025-02-15", tenantId: t.tenant.id });
    const [jan, feb] = await callsOf(id, 2);
    const res = await pay(id, { amount: 1000, reference: "VIR 123", payer_lessee_id: primary_lessee_id });
    expect(res.statusCode, res.body).toBe(201);
    const payment = res.json();
    expect(res.headers.location).toBe(`/api/leases/${id}/payments/${payment.id}`);
    expect(payment).toMatchObject({
      lease_id: id,
      amount: 1000,
      paid_on: "2025-02-10",
      method: "VIREMENT_BANCAIRE",
      reference: "VIR 123",
      payer_lessee_id: primary_lessee_id,
      allocations: [
        { call_id: jan.id, amount: 850 },
        { call_id: feb.id, amount: 150 },
      ],
      credit: 0,
      status: "RECORDED",
      cancel_reason: null,
    });
    // Read your writes: the calls and the account show it at once.
    const after = (await calls(id)).json();
    expect(after.map((c: { paid_amount: number; status: string }) => [c.paid_amount, c.status])).toEqual([
      [850, "PAID"],
      [150, "OVERDUE"],
    ]);
    expect((await t.request("GET", `/api/leases/${id}/payments/${payment.id}`)).json()).toEqual(payment);
    const over = await pay(id, { amount: 800.01, paid_on: "2025-02-11" });
    expect(over.json()).toMatchObject({ allocations: [{ call_id: feb.id, amount: 700 }], credit: 100.01 });
    const account = (await t.request("GET", `/api/leases/${id}/account`)).json();
    expect(account).toMatchObject({ lease_id: id, balance: -100.01, credit: 100.01 });
    expect(
      account.entries.map((e: { kind: string; amount: number; balance: number }) => [
        e.kind,
        e.amount,
        e.balance,
      ]),
    ).toEqual([
      ["RENT_CALL", 850, 850],
      ["RENT_CALL", 850, 1700],
      ["PAYMENT", -1000, 700],
      ["PAYMENT", -800.01, -100.01],
    ]);
    // The next call eats the credit when issued.
    await issueRentCalls(deps(), { today: "2025-03-01", tenantId: t.tenant.id });
    const march = (await callsOf(id, 3))[2];
    expect(march).toMatchObject({ paid_amount: 100.01, status: "OVERDUE" });
    const list = await t.request("GET", `/api/leases/${id}/payments`);
    expect(list.headers["x-total-count"]).toBe("2");
    // Rebuilt from the log, the read models answer the same to the cent.
    const readModels = await Promise.all(
      [`/api/leases/${id}/account`, `/api/leases/${id}/rent-calls`, `/api/leases/${id}/payments`].map(
        async (url) => (await t.request("GET", url)).json(),
      ),
    );
    await rebuildProjection(t.sql, t.service.platform.store, rentCycleProjection);
    const rebuilt = await Promise.all(
      [`/api/leases/${id}/account`, `/api/leases/${id}/rent-calls`, `/api/leases/${id}/payments`].map(
        async (url) => (await t.request("GET", url)).json(),
      ),
    );
    expect(rebuilt).toEqual(readModels);
  });

  it("cancels a payment by a reversing entry: listed as CANCELLED, its calls reopened, a second cancel 409", async () => {
    const { id } = await activeLease();
    await issueRentCalls(deps(), { today: "2025-01-15", tenantId: t.tenant.id });
    await callsOf(id, 1);
    const payment = (await pay(id, { amount: 850 })).json();
    const cancel = () =>
      t.request("POST", `/api/leases/${id}/payments/${payment.id}/cancel`, {
        body: { reason: "cheque returned" },
      });
    const res = await cancel();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: payment.id,
      status: "CANCELLED",
      cancel_reason: "cheque returned",
    });
    expect((await calls(id)).json()[0]).toMatchObject({ paid_amount: 0, status: "OVERDUE" });
    const account = (await t.request("GET", `/api/leases/${id}/account`)).json();
    expect(account.balance).toBe(850);
    expect(account.entries.map((e: { kind: string }) => e.kind)).toEqual([
      "RENT_CALL",
      "PAYMENT",
      "PAYMENT_CANCELLED",
    ]);
    expect((await cancel()).statusCode).toBe(409);
    const unknown = await t.request("POST", `/api/leases/${id}/payments/${crypto.randomUUID()}/cancel`, {
      body: { reason: "x" },
    });
    expect(unknown.statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${id}/payments`)).json()).toHaveLength(1);
  });

  it("honours Idempotency-Key: the same key and body replay the first answer, one payment", async () => {
    const { id } = await activeLease();
    const headers = { "idempotency-key": `pay-${id}` };
    const first = await pay(id, { amount: 10 }, headers);
    const again = await pay(id, { amount: 10 }, headers);
    expect(first.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect((await t.request("GET", `/api/leases/${id}/payments`)).json()).toHaveLength(1);
    expect((await pay(id, { amount: 11 }, headers)).statusCode).toBe(409);
  });

  it("filters the portfolio's calls by status (OVERDUE derived from today), due date and lease, with paging", async () => {
    const tenant = await t.newTenant();
    const today = legalToday();
    const monthStart = `${today.slice(0, 7)}-01`;
    // Due at the end of the current month: not overdue today.
    const current = await activeLease({ start_date: monthStart, payment_terms: "TERME_ECHU" }, tenant);
    const old = await activeLease(
      { start_date: addMonths(monthStart, -2), payment_terms: "TERME_ECHU" },
      tenant,
    );
    await issueRentCalls(deps(), { today, tenantId: tenant.id });
    await eventually(
      async () => (await t.request("GET", "/api/rent-calls", { as: tenant })).json(),
      (body) => Array.isArray(body) && body.length === 4,
    );
    const ids = async (query: string) => {
      const res = await t.request("GET", `/api/rent-calls${query}`, { as: tenant });
      expect(res.statusCode, res.body).toBe(200);
      return res
        .json()
        .map(
          (c: { lease_id: string; period_start: string }) =>
            `${c.lease_id === old.id ? "old" : "new"} ${c.period_start}`,
        );
    };
    expect((await ids("?status=OPEN")).sort()).toEqual([`new ${monthStart}`, `old ${monthStart}`]);
    expect(await ids("?status=OVERDUE")).toEqual([
      `old ${addMonths(monthStart, -2)}`,
      `old ${addMonths(monthStart, -1)}`,
    ]);
    expect(await ids(`?lease_id=${current.id}`)).toEqual([`new ${monthStart}`]);
    expect(await ids(`?due_before=${addMonths(monthStart, -1)}`)).toEqual([
      `old ${addMonths(monthStart, -2)}`,
    ]);
    const page = await t.request("GET", "/api/rent-calls?limit=1&page=2", { as: tenant });
    expect(page.headers["x-total-count"]).toBe("4");
    expect(page.json()).toHaveLength(1);
    expect((await pay(current.id, { amount: 850, paid_on: today }, {}, tenant)).statusCode).toBe(201);
    expect(await ids("?status=PAID")).toEqual([`new ${monthStart}`]);
    expect(await ids("?status=PARTIALLY_PAID")).toEqual([]);
    expect((await t.request("GET", "/api/rent-calls?status=LATE", { as: tenant })).statusCode).toBe(400);
    expect((await t.request("GET", "/api/rent-calls?due_before=2025-02-30", { as: tenant })).statusCode).toBe(
      400,
    );
  });

  it("refuses bad input with a 4xx that changes nothing", async () => {
    const { id } = await activeLease();
    const other = await newLease();
    const stranger = await activeLease({}, t.other);
    const tomorrow = addDays(legalToday(), 1);
    await writesNothing(async () => {
      for (const [body, field] of [
        [{ amount: 0 }, "amount"],
        [{ amount: -5 }, "amount"],
        [{ amount: 10.001 }, "amount"],
        [{ amount: 10, paid_on: tomorrow }, "paid_on"],
        [{ amount: 10, paid_on: "2025-02-30" }, "paid_on"],
        // Year 0 once passed, was appended and stopped the rent_cycle projection for every tenant.
        [{ amount: 10, paid_on: "0000-01-01" }, "paid_on"],
        [{ amount: 10, paid_on: "9999-12-31" }, "paid_on"],
        [{ amount: 1e-9 }, "amount"],
        [{ amount: 1_000_000_000.01 }, "amount"],
        [{ amount: 10, method: "BITCOIN" }, "method"],
        [{ amount: 10, payer_lessee_id: other.primary_lessee_id }, "payer_lessee_id"],
        [{ amount: 10, tip: 1 }, ""],
      ] as const) {
        const res = await pay(id, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error).toBe("ValidationError");
        if (field)
          expect(
            res.json().details?.map((d: { field: string }) => d.field),
            res.body,
          ).toContain(field);
      }
      // The lease starts on 2025-01-01: a payment of the day before is the decider's 422.
      const early = await pay(id, { amount: 10, paid_on: "2024-12-31" });
      expect(early.statusCode, early.body).toBe(422);
      expect(early.json()).toMatchObject({
        error: "UnprocessableEntity",
        message: "A payment cannot be dated before the lease starts (2025-01-01)",
        details: [{ field: "paid_on" }],
      });
      expect((await pay(other.id, { amount: 10 })).statusCode).toBe(409);
      expect((await pay(stranger.id, { amount: 10 })).statusCode).toBe(404);
      expect((await pay(crypto.randomUUID(), { amount: 10 })).statusCode).toBe(404);
      expect(
        (await t.request("POST", `/api/leases/${id}/payments/${crypto.randomUUID()}/cancel`, { body: {} }))
          .statusCode,
      ).toBe(400);
    });
    expect((await calls(stranger.id)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${stranger.id}/account`)).statusCode).toBe(404);
  });

  it("needs the Finance permissions, also under /api/leases", async () => {
    const { id } = await activeLease();
    const keyOf = async (permissions: string[]) => ({
      id: t.tenant.id,
      key: (await createApiKey(t.sql, t.tenant.id, "limited", permissions as typeof ALL_PERMISSIONS)).key,
    });
    const leases = await keyOf(["LeasesRead", "LeasesWrite", "LeasesDelete"]);
    const financeRead = await keyOf(["FinanceRead"]);
    const lease = { id };
    const res = await t.request("GET", `/api/leases/${lease.id}/rent-calls`, { as: leases });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toContain("FinanceRead");
    expect((await pay(lease.id, { amount: 1 }, {}, leases)).json().message).toContain("FinanceWrite");
    expect((await t.request("GET", "/api/rent-calls", { as: financeRead })).statusCode).toBe(200);
    expect((await pay(id, { amount: 1 }, {}, financeRead)).statusCode).toBe(403);
  });

  it("the rent-calls job runs on demand through the Workers routes, for the worker key's tenant", async () => {
    const tenant = await t.newTenant();
    const lease = await activeLease({}, tenant);
    const key = (await createWorkerKey(t.sql, tenant.id, "rent worker")).key;
    const res = await t.request("POST", "/api/workers/jobs/rent-calls", {
      as: null,
      headers: { "x-api-key": key },
      body: { date: "2025-02-01" },
    });
    expect(res.statusCode, res.body).toBe(202);
    const job = await eventually(
      async () =>
        (
          await t.request("GET", res.headers.location as string, { as: null, headers: { "x-api-key": key } })
        ).json(),
      (j) => j.state === "completed",
    );
    expect(job.output).toMatchObject({ leases: 1, calls: 2, date: "2025-02-01" });
    await eventually(
      async () => (await calls(lease.id, "", tenant)).json(),
      (body) => Array.isArray(body) && body.length === 2,
    );
  });

  it("keeps the balance after the lease ends", async () => {
    const { id } = await activeLease();
    await issueRentCalls(deps(), { today: "2025-01-10", tenantId: t.tenant.id });
    await callsOf(id, 1);
    expect((await setStatus(id, "NOTICE", { effective_date: "2025-02-01" })).statusCode).toBe(200);
    expect((await setStatus(id, "FINALISATION")).statusCode).toBe(200);
    expect((await setStatus(id, "TERMINATED", { effective_date: "2025-03-01" })).statusCode).toBe(200);
    expect((await t.request("GET", `/api/leases/${id}/account`)).json().balance).toBe(850);
    expect((await pay(id, { amount: 850, paid_on: "2025-04-01" })).statusCode).toBe(201);
    expect((await t.request("GET", `/api/leases/${id}/account`)).json().balance).toBe(0);
  });
});
