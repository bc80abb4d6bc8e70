import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { openingBalanceId } from "../../src/events/rentCycle.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/**
 * A tenancy taken over from before the service (docs/rent-cycle.md, "Taking over a tenancy"): calls
 * from the period holding the takeover date, the opening balance owed that day, paid first.
 */
describe("taking over an existing tenancy", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, newEstate, newLessee, setStatus } = leaseFixtures(() => t);
  const draft = async (extra: object) => ({
    estate_id: await newEstate(),
    primary_lessee_id: await newLessee(),
    lease_type: "UNFURNISHED",
    start_date: "2025-01-01",
    rent_amount: 800,
    ...extra,
  });
  const deps = () => ({ sql: t.sql, store: t.service.platform.store });

  it("calls from the takeover's period only, records the opening balance once and lets payments settle it first", async () => {
    const lease = await newLease({
      start_date: "2023-01-01",
      payment_day: 5,
      takeover_date: "2025-02-15",
      opening_balance: 1700,
    });
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(deps(), { today: "2025-03-15", tenantId: t.tenant.id });
    await issueRentCalls(deps(), { today: "2025-03-15", tenantId: t.tenant.id });
    const calls = await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}/rent-calls`)).json(),
      (body) => Array.isArray(body) && body.length >= 2,
    );
    // February in full (the period holding 2025-02-15), then March: nothing from 2023 or 2024.
    expect(
      calls.map((c: { period_start: string; total_amount: number }) => [c.period_start, c.total_amount]),
    ).toEqual([
      ["2025-02-01", 850],
      ["2025-03-01", 850],
    ]);
    const account = (await t.request("GET", `/api/leases/${lease.id}/account`)).json();
    expect(account.balance).toBe(3400);
    expect(account.entries[0]).toMatchObject({
      kind: "OPENING_BALANCE",
      date: "2025-02-15",
      amount: 1700,
      call_id: openingBalanceId(lease.id),
    });
    expect(account.entries.filter((e: { kind: string }) => e.kind === "OPENING_BALANCE")).toHaveLength(1);

    const owed = (await t.request("GET", `/api/leases/${lease.id}/arrears`)).json();
    expect(owed.periods[0]).toMatchObject({
      kind: "OPENING_BALANCE",
      call_id: openingBalanceId(lease.id),
      due_date: "2025-02-15",
      remaining_amount: 1700,
    });
    const owedPdf = await t.request("GET", `/api/leases/${lease.id}/arrears`, {
      headers: { accept: "application/pdf" },
    });
    expect(owedPdf.statusCode).toBe(200);
    expect((await pdfText(owedPdf.rawPayload)).replace(/\s+/g, " ")).toContain("Solde à la reprise du bail");

    const paid = await t.request("POST", `/api/leases/${lease.id}/payments`, {
      body: { amount: 2000, paid_on: "2025-03-10", method: "VIREMENT_BANCAIRE" },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().allocations).toEqual([
      { call_id: openingBalanceId(lease.id), amount: 1700 },
      { call_id: calls[0].id, amount: 300 },
    ]);
    const after = await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}/account`)).json(),
      (body) => body.balance === 1400,
    );
    expect(after.balance).toBe(1400);
    const february = (await t.request("GET", `/api/leases/${lease.id}/rent-calls/${calls[0].id}`)).json();
    expect(february).toMatchObject({ paid_amount: 300, status: "OVERDUE" });

    // The arrears statement lists what is left of the opening balance before the calls.
    const arrears = (await t.request("GET", `/api/leases/${lease.id}/arrears`)).json();
    expect(arrears.periods[0]).toMatchObject({
      kind: "RENT_CALL",
      period_start: "2025-02-01",
      remaining_amount: 550,
    });
    const pdf = await t.request("GET", `/api/leases/${lease.id}/arrears`, {
      headers: { accept: "application/pdf" },
    });
    expect(pdf.statusCode).toBe(200);

    // The books: the opening balance is an à-nouveau on the tenant's account.
    const opening = await eventually(
      () =>
        t.sql.query<{ journal: string; label: string }>(
          "SELECT journal, label FROM ledger_entries WHERE tenant_id = $1 AND lease_id = $2 AND journal = 'AN'",
          [t.tenant.id, lease.id],
        ),
      (rows) => rows.length > 0,
    );
    expect(opening).toEqual([{ journal: "AN", label: "Solde du locataire à la reprise du bail" }]);
  });

  it("refuses a takeover before the start, and an opening balance without its date (400, as a bad end date)", async () => {
    const before = await t.request("POST", "/api/leases", {
      body: await draft({ takeover_date: "2024-12-31" }),
    });
    expect(before.statusCode, before.body).toBe(400);
    expect(before.json().details).toContainEqual({
      field: "takeover_date",
      message: "Must not be before start_date (2025-01-01)",
    });
    const orphan = await t.request("POST", "/api/leases", {
      body: await draft({ opening_balance: 100 }),
    });
    expect(orphan.statusCode, orphan.body).toBe(400);
    expect(orphan.json().details[0].field).toBe("opening_balance");
    // On the start day itself a takeover is allowed (the lease's first period, prorated as usual).
    const sameDay = await newLease({ start_date: "2025-01-10", takeover_date: "2025-01-10" });
    expect(sameDay.id).toBeTruthy();
  });
});
