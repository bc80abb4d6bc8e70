import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { areas } from "../../src/areas.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Keys, notices, termination and the deposit through the API (docs/moving.md): what HTTP adds
 * (statuses, the read models, tenancy); the rules are at their boundaries in test/law.
 */

const movingProjections = areas.find((a) => a.name === "moving")?.projections ?? [];
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

describe.each(databaseKinds)("moving in and out API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const activeLease = async (extra: Record<string, unknown> = {}) => {
    const lease = await newLease(extra);
    const res = await setStatus(lease.id, "ACTIVE", { effective_date: "2025-01-01" });
    expect(res.statusCode, res.body).toBe(200);
    return lease;
  };
  const ok = (res: { statusCode: number; body: string }, status: number) =>
    expect(res.statusCode, res.body).toBe(status);
  const estateStatus = async (id: string) =>
    (await t.request("GET", `/api/estates/${id}`)).json().rental_status;

  it("key sets on the area kit, handovers checked against the estate's sets and leases", async () => {
    const { id, estate_id } = await activeLease();
    const set = await t.request("POST", `/api/estates/${estate_id}/keys`, {
      body: { kind: "front door", count: 2, opens: "Porte palière" },
    });
    expect(set.statusCode, set.body).toBe(201);
    expect(set.json()).toMatchObject({ kind: "front door", count: 2, estate_id });
    const list = await t.request("GET", `/api/estates/${estate_id}/keys`);
    expect(list.json()).toHaveLength(1);
    expect((await t.request("GET", `/api/estates/${UNKNOWN}/keys`)).statusCode).toBe(404);

    const other = await newLease();
    await writesNothing(async () => {
      const bad = await t.request("POST", `/api/estates/${estate_id}/keys/handovers`, {
        body: {
          lease_id: other.id,
          direction: "HANDED_OVER",
          on: "2025-01-01",
          sets: [
            { kind: "cellar", count: 1 },
            { kind: "front door", count: 3 },
          ],
        },
      });
      expect(bad.statusCode, bad.body).toBe(400);
      expect(bad.json().details.map((d: { field: string }) => d.field)).toEqual([
        "lease_id",
        "sets.0.kind",
        "sets.1.count",
      ]);
    });
    const handed = await t.request("POST", `/api/estates/${estate_id}/keys/handovers`, {
      body: {
        lease_id: id,
        direction: "HANDED_OVER",
        on: "2025-01-01",
        sets: [{ kind: "front door", count: 2 }],
      },
    });
    expect(handed.statusCode, handed.body).toBe(201);
    expect(handed.headers.location).toBe(`/api/estates/${estate_id}/keys/handovers/${handed.json().id}`);
    const one = await t.request("GET", handed.headers.location as string);
    expect(one.json()).toMatchObject({ direction: "HANDED_OVER", on: "2025-01-01", lease_id: id });
    const byLease = await t.request("GET", `/api/estates/${estate_id}/keys/handovers?lease_id=${id}`);
    expect(byLease.json()).toHaveLength(1);
    expect((await t.request("GET", `/api/estates/${estate_id}/keys`, { as: t.other })).statusCode).toBe(404);
  });

  it("notices: reasons, motives, the term, NOTICE on the lease and the estate, the list and the letter", async () => {
    const { id, estate_id } = await activeLease({ duration_months: 36 });
    await writesNothing(async () => {
      const noMotive = await t.request("POST", `/api/leases/${id}/notices`, {
        body: { given_by: "LESSOR", received_on: "2026-06-30" },
      });
      expect(noMotive.statusCode, noMotive.body).toBe(422);
      expect(noMotive.json().details[0].field).toBe("reason");
      expect(noMotive.json().message).toContain("art. 15 I");
      const wrongSide = await t.request("POST", `/api/leases/${id}/notices`, {
        body: { given_by: "LESSEE", received_on: "2026-06-30", reason: "SALE" },
      });
      expect(wrongSide.statusCode).toBe(422);
      const unknownReason = await t.request("POST", `/api/leases/${id}/notices`, {
        body: { given_by: "LESSEE", received_on: "2026-06-30", reason: "BORED" },
      });
      expect(unknownReason.statusCode).toBe(400);
    });
    const given = await t.request("POST", `/api/leases/${id}/notices`, {
      body: { given_by: "LESSEE", received_on: "2026-06-30", reason: "JOB_TRANSFER" },
    });
    expect(given.statusCode, given.body).toBe(201);
    expect(given.json()).toMatchObject({
      given_by: "LESSEE",
      received_on: "2026-06-30",
      reason: "JOB_TRANSFER",
      notice_end_date: "2026-07-30",
      status: "IN_FORCE",
    });
    expect(given.headers.location).toBe(`/api/leases/${id}/notices/${given.json().id}`);
    const lease = (await t.request("GET", `/api/leases/${id}`)).json();
    expect(lease).toMatchObject({
      status: "NOTICE",
      notice_date: "2026-06-30",
      notice_end_date: "2026-07-30",
    });
    expect(await estateStatus(estate_id)).toBe("NOTICE");
    const again = await t.request("POST", `/api/leases/${id}/notices`, {
      body: { given_by: "LESSEE", received_on: "2026-07-01" },
    });
    expect(again.statusCode).toBe(409);

    // A withdrawal through the status route withdraws it; one given through PUT .../status is listed too.
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const old = await setStatus(id, "NOTICE", { effective_date: "2026-08-01", given_by: "LESSEE" });
    expect(old.statusCode, old.body).toBe(200);
    const list = await t.request("GET", `/api/leases/${id}/notices`);
    expect(list.statusCode).toBe(200);
    expect(list.headers["x-total-count"]).toBe("2");
    expect(list.json().map((n: { status: string }) => n.status)).toEqual(["WITHDRAWN", "IN_FORCE"]);
    expect(list.json()[1]).toMatchObject({ received_on: "2026-08-01", notice_end_date: "2026-11-01" });

    const letter = await t.request("GET", `/api/leases/${id}/notices/${given.json().id}/letter`);
    expect(letter.statusCode).toBe(200);
    expect(letter.headers["content-type"]).toBe("application/pdf");
    expect(letter.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
    expect((await t.request("GET", `/api/leases/${id}/notices`, { as: t.other })).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${id}/notices/${UNKNOWN}`)).statusCode).toBe(404);
  });

  it("a lessor's notice with its motive ends the lease at the term, received 6 months before it", async () => {
    const { id } = await activeLease({ duration_months: 36 });
    const inTime = await t.request("POST", `/api/leases/${id}/notices`, {
      body: {
        given_by: "LESSOR",
        received_on: "2026-07-01",
        reason: "SALE",
        sale: { price: 240_000, terms: "Paiement comptant" },
      },
    });
    // First term 2027-12-31 (art. 15 I: 6 months before it); an offer to sell for two months (15 II).
    expect(inTime.statusCode, inTime.body).toBe(201);
    expect(inTime.json()).toMatchObject({
      notice_end_date: "2027-12-31",
      sale_offer_until: "2026-09-01",
      solidarity_ends_on: null,
    });
    const short = await activeLease({
      start_date: "2024-04-01",
      end_date: "2027-03-31",
      duration_months: 36,
    });
    await writesNothing(async () => {
      const late = await t.request("POST", `/api/leases/${short.id}/notices`, {
        body: { given_by: "LESSOR", received_on: "2026-10-01", reason: "REPOSSESSION" },
      });
      expect(late.statusCode, late.body).toBe(422);
      expect(late.json().message).toContain("at least 6 months before the term");
    });
  });

  it("termination at the keys' return, the deposit due and returned late with its penalty", async () => {
    const { id, estate_id } = await activeLease({ deposit_amount: 800 });
    const issued = await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-02-15", tenantId: t.tenant.id },
    );
    expect(issued.calls).toBeGreaterThan(0);
    const calls = await eventually(
      async () => (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as { id: string }[],
      (found) => found.length > 0,
    );
    const notice = await t.request("POST", `/api/leases/${id}/notices`, {
      body: { given_by: "LESSEE", received_on: "2025-12-01", reason: "JOB_LOSS" },
    });
    expect(notice.statusCode, notice.body).toBe(201);

    const before = await t.request("GET", `/api/leases/${id}/deposit`);
    expect(before.json()).toMatchObject({
      status: "RUNNING",
      amount: 800,
      due_on: null,
      returned_amount: null,
    });

    await writesNothing(async () => {
      const noKeys = await t.request("POST", `/api/leases/${id}/termination`, { body: {} });
      expect(noKeys.statusCode).toBe(400);
      expect(noKeys.json().details[0].field).toBe("keys_returned_on");
      const noReport = await t.request("POST", `/api/leases/${id}/termination`, {
        body: { keys_returned_on: "2026-01-10", exit_report_id: UNKNOWN },
      });
      expect(noReport.statusCode).toBe(400);
      expect(noReport.json().details[0].field).toBe("exit_report_id");
      const notTerminated = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: { returned_on: "2026-01-10" },
      });
      expect(notTerminated.statusCode).toBe(409);
    });

    const returned = await t.request("POST", `/api/estates/${estate_id}/keys`, {
      body: { kind: "front door", count: 2 },
    });
    expect(returned.statusCode).toBe(201);
    const back = await t.request("POST", `/api/estates/${estate_id}/keys/handovers`, {
      body: {
        lease_id: id,
        direction: "RETURNED",
        on: "2026-01-10",
        sets: [{ kind: "front door", count: 2 }],
      },
    });
    expect(back.statusCode, back.body).toBe(201);
    // The keys' return recorded above dates the termination when the body has none.
    const ended = await t.request("POST", `/api/leases/${id}/termination`, { body: {} });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toMatchObject({ status: "TERMINATED", terminated_at: "2026-01-10" });
    expect(await estateStatus(estate_id)).toBe("VACANT");
    const due = (await t.request("GET", `/api/leases/${id}/deposit`)).json();
    expect(due).toMatchObject({
      status: "DUE",
      keys_returned_on: "2026-01-10",
      exit_report_matches: null,
      due_on: "2026-03-10",
    });
    expect(due.late_months).toBeGreaterThan(0); // unreturned: accruing as of today

    const form = multipartForm({}, { content: PDF, filename: "facture.pdf", type: "application/pdf" });
    const media = await t.app.inject({
      method: "POST",
      url: "/api/media",
      payload: form.payload,
      headers: { "content-type": form.type, authorization: `Bearer ${t.tenant.key}` },
    });
    expect(media.statusCode, media.body).toBe(201);
    const invoice = media.json().id as string;
    const deductions = [
      { kind: "UNPAID_RENT", amount: 300, description: "Loyer de janvier 2025", rent_call_id: calls[0].id },
      { kind: "REPAIR", amount: 100, description: "Peinture", invoice_media_id: invoice },
    ];
    await writesNothing(async () => {
      // Nothing is held outside a building in copropriété (art. 22 al. 5): none recorded yet.
      const notCopro = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: { returned_on: "2026-04-19", deductions, held: 160 },
      });
      expect(notCopro.statusCode, notCopro.body).toBe(422);
      expect(notCopro.json().details).toEqual([
        { field: "held", message: expect.stringMatching(/unless the building is in copropriété/) },
      ]);
    });
    const rules = await t.request("POST", `/api/estates/${estate_id}/diagnostics`, {
      body: { type: "coownership_rules", diagnosis_date: "2010-06-01" },
    });
    expect(rules.statusCode, rules.body).toBe(201);
    await writesNothing(async () => {
      const overHeld = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: { returned_on: "2026-04-19", deductions, held: 160.01 },
      });
      expect(overHeld.statusCode, overHeld.body).toBe(422);
      expect(overHeld.json().details.map((d: { field: string }) => d.field)).toEqual(["held"]);
      const unknownCall = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: {
          returned_on: "2026-04-19",
          deductions: [{ kind: "UNPAID_RENT", amount: 1, description: "x", rent_call_id: UNKNOWN }],
        },
      });
      expect(unknownCall.statusCode).toBe(400);
      const noInvoice = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: { returned_on: "2026-04-19", deductions: [{ kind: "REPAIR", amount: 1, description: "x" }] },
      });
      expect(noInvoice.statusCode).toBe(400);
    });
    // 40 days after the due day: 2 started months, 2 × 10 % of 800.
    const done = await t.request("POST", `/api/leases/${id}/deposit/return`, {
      body: { returned_on: "2026-04-19", deductions, held: 160 },
    });
    expect(done.statusCode, done.body).toBe(201);
    expect(done.headers.location).toBe(`/api/leases/${id}/deposit`);
    const deducted = 400;
    expect(done.json()).toMatchObject({
      status: "RETURNED",
      returned_on: "2026-04-19",
      held: 160,
      returned_amount: 800 - deducted - 160,
      late_months: 2,
      late_penalty: 160,
    });
    expect(done.json().deductions).toHaveLength(deductions.length);
    const twice = await t.request("POST", `/api/leases/${id}/deposit/return`, {
      body: { returned_on: "2026-04-19" },
    });
    expect(twice.statusCode).toBe(409);
    expect((await t.request("GET", `/api/leases/${id}/deposit`, { as: t.other })).statusCode).toBe(404);

    // The held 160 settled once the building's accounts are approved (art. 22 al. 5).
    const balance = (body: Record<string, unknown>) =>
      t.request("POST", `/api/leases/${id}/deposit/balance`, { body });
    await writesNothing(async () => {
      const tooMuch = await balance({
        accounts_approved_on: "2026-06-10",
        charges_deducted: 160.01,
        settled_on: "2026-07-01",
      });
      expect(tooMuch.statusCode, tooMuch.body).toBe(422);
      expect(tooMuch.json().details[0].field).toBe("charges_deducted");
      const beforeReturn = await balance({
        accounts_approved_on: "2026-03-01",
        charges_deducted: 0,
        settled_on: "2026-04-18",
      });
      expect(beforeReturn.statusCode).toBe(422);
      expect(beforeReturn.json().details[0].field).toBe("settled_on");
    });
    // Due a month after the approval (2026-07-10); paid 10 days late: one started month, 10 % of 800.
    const settled = await balance({
      accounts_approved_on: "2026-06-10",
      charges_deducted: 45.5,
      settled_on: "2026-07-20",
    });
    expect(settled.statusCode, settled.body).toBe(200);
    expect(settled.json().balance).toEqual({
      settled_on: "2026-07-20",
      accounts_approved_on: "2026-06-10",
      charges_deducted: 45.5,
      balance_returned: 114.5,
      due_on: "2026-07-10",
      late_months: 1,
      late_penalty: 80,
    });
    expect((await t.request("GET", `/api/leases/${id}/deposit`)).json().balance.balance_returned).toBe(114.5);
    const again = await balance({
      accounts_approved_on: "2026-06-10",
      charges_deducted: 0,
      settled_on: "2026-07-20",
    });
    expect(again.statusCode).toBe(409);
  });

  it("keys back before a notice's end: the lessee's notice is owed to its end, the lessor's to the keys (art. 15 I)", async () => {
    const callsOf = async (id: string, count: number) =>
      eventually(
        async () =>
          (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as {
            period_start: string;
            period_end: string;
            prorated: { days: number; of_days: number } | null;
          }[],
        (found) => found.length === count,
      );
    const deps = { sql: t.sql, store: t.service.platform.store };
    const ended = async (given_by: "LESSEE" | "LESSOR", reason: string | null, relet_on?: string) => {
      // First term 2027-12-31: the lessor's notice runs to it.
      const { id } = await activeLease({ duration_months: 36 });
      await issueRentCalls(deps, { today: "2025-02-15", tenantId: t.tenant.id });
      await callsOf(id, 2);
      ok(
        await t.request("POST", `/api/leases/${id}/notices`, {
          body: {
            given_by,
            received_on: "2025-02-20",
            reason,
            ...(reason === "SALE" ? { sale: { price: 200_000, terms: "Comptant" } } : {}),
          },
        }),
        201,
      );
      const end = await t.request("POST", `/api/leases/${id}/termination`, {
        body: { keys_returned_on: "2025-03-05", relet_on },
      });
      ok(end, 200);
      return { id, terminated_at: end.json().terminated_at as string };
    };
    // The lessee's 3-month notice: rent runs to 2025-05-20 although the keys came back on 03-05.
    const lessees = await ended("LESSEE", null);
    expect(lessees.terminated_at).toBe("2025-05-20");
    await issueRentCalls(deps, { today: "2025-07-15", tenantId: t.tenant.id });
    const calls = await callsOf(lessees.id, 5);
    expect(calls.map((c) => c.period_start).sort()).toEqual([
      "2025-01-01",
      "2025-02-01",
      "2025-03-01",
      "2025-04-01",
      "2025-05-01",
    ]);
    const may = calls.find((c) => c.period_start === "2025-05-01");
    expect(may).toMatchObject({ period_end: "2025-05-20", prorated: { days: 20, of_days: 31 } });
    // The lessor's notice: rent only for the time occupied, to the keys' return.
    const lessors = await ended("LESSOR", "SALE");
    expect(lessors.terminated_at).toBe("2025-03-05");
    await issueRentCalls(deps, { today: "2025-07-15", tenantId: t.tenant.id });
    const march = (await callsOf(lessors.id, 3)).find((c) => c.period_start === "2025-03-01");
    expect(march).toMatchObject({ period_end: "2025-03-05", prorated: { days: 5, of_days: 31 } });
    // Let again from 04-15 with the lessor's agreement: the lessee's rent stops the day before.
    const relet = await ended("LESSEE", null, "2025-04-15");
    expect(relet.terminated_at).toBe("2025-04-14");
  });

  it("a lease ended through the status route: the keys' return comes with the deposit's return", async () => {
    const { id } = await activeLease();
    ok(await setStatus(id, "TERMINATED", { effective_date: "2026-08-31" }), 200);
    const due = (await t.request("GET", `/api/leases/${id}/deposit`)).json();
    expect(due).toMatchObject({ status: "DUE", keys_returned_on: null, due_on: null });
    await writesNothing(async () => {
      const noKeys = await t.request("POST", `/api/leases/${id}/deposit/return`, {
        body: { returned_on: "2026-10-01" },
      });
      expect(noKeys.statusCode).toBe(400);
      expect(noKeys.json().details[0].field).toBe("keys_returned_on");
    });
    const done = await t.request("POST", `/api/leases/${id}/deposit/return`, {
      body: { returned_on: "2026-10-01", keys_returned_on: "2026-09-01" },
    });
    ok(done, 201);
    expect(done.json()).toMatchObject({
      keys_returned_on: "2026-09-01",
      due_on: "2026-11-01",
      returned_amount: 800,
      late_penalty: 0,
    });
  });

  it("permissions: notices and termination are Leases, the deposit Finance, keys Properties", async () => {
    const { id, estate_id } = await activeLease();
    const leasesOnly = await t.newTenant(undefined, ["LeasesRead", "LeasesWrite"]);
    const mine = await t.newTenant(undefined, ["PropertiesRead"]);
    expect((await t.request("GET", `/api/leases/${id}/deposit`, { as: leasesOnly })).statusCode).toBe(403);
    expect((await t.request("GET", `/api/estates/${estate_id}/keys`, { as: leasesOnly })).statusCode).toBe(
      403,
    );
    expect((await t.request("GET", `/api/leases/${id}/notices`, { as: mine })).statusCode).toBe(403);
    const post = await t.request("POST", `/api/estates/${estate_id}/keys`, {
      as: mine,
      body: { kind: "x", count: 1 },
    });
    expect(post.statusCode).toBe(403);
  });

  it("rebuilding the moving projections from the log gives the same rows", async () => {
    const tables = movingProjections.flatMap((p) => p.tables);
    const snapshot = async () => {
      const out: Record<string, string[]> = {};
      for (const table of tables)
        out[table] = (await t.sql.query(`SELECT * FROM ${table}`)).map((r) => JSON.stringify(r)).sort();
      return out;
    };
    const before = await snapshot();
    expect(before.lease_deposits.length).toBeGreaterThan(0);
    expect(before.key_handovers.length).toBeGreaterThan(0);
    for (const projection of movingProjections)
      await rebuildProjection(t.sql, t.service.platform.store, projection);
    expect(await snapshot()).toEqual(before);
  });
});
