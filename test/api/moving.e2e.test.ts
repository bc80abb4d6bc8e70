import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The whole move-in and move-out of one lease (docs/moving.md): entry report signed, keys handed
 * over, notice, exit report compared with the entry one, keys returned, termination, the deposit
 * returned 40 days late with its penalty (loi n° 89-462 art. 15, 22; décret 2016-382).
 */

const rooms = [
  {
    name: "Séjour",
    elements: [
      { element: "floor", condition: "GOOD" },
      { element: "walls", condition: "GOOD" },
    ],
  },
  { name: "Cuisine", elements: [{ element: "ceiling", condition: "NEW" }] },
];
const keys = [{ kind: "front door", count: 2 }];

describe.each(databaseKinds)("moving in and out, end to end, on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);
  const ok = (res: { statusCode: number; body: string }, status: number) =>
    expect(res.statusCode, res.body).toBe(status);
  const report = async (leaseId: string, type: "ENTRY" | "EXIT", date: string, listed = keys) => {
    const created = await t.request("POST", `/api/leases/${leaseId}/condition-reports`, {
      body: { type, date, rooms, meter_readings: [], keys: listed },
    });
    ok(created, 201);
    const id = created.json().id as string;
    ok(
      await t.request("PUT", `/api/leases/${leaseId}/condition-reports/${id}/status`, {
        body: { status: "SIGNED" },
      }),
      200,
    );
    return id;
  };

  it("from the entry report to the deposit returned late", async () => {
    const { id, estate_id } = await newLease({
      start_date: "2025-09-01",
      rent_amount: 800,
      deposit_amount: 800,
    });
    ok(
      await t.request("POST", `/api/estates/${estate_id}/keys`, { body: { kind: "front door", count: 2 } }),
      201,
    );

    // Moving in: the entry report signed, the lease active, the keys handed over.
    await report(id, "ENTRY", "2025-09-01");
    ok(await setStatus(id, "ACTIVE", { effective_date: "2025-09-01" }), 200);
    ok(
      await t.request("POST", `/api/estates/${estate_id}/keys/handovers`, {
        body: { lease_id: id, direction: "HANDED_OVER", on: "2025-09-01", sets: keys },
      }),
      201,
    );
    expect((await t.request("GET", `/api/estates/${estate_id}`)).json().rental_status).toBe("RENTED");

    // The lessee's notice: a transfer, one month (art. 15 I).
    const notice = await t.request("POST", `/api/leases/${id}/notices`, {
      body: { given_by: "LESSEE", received_on: "2026-06-15", reason: "JOB_TRANSFER" },
    });
    ok(notice, 201);
    expect(notice.json().notice_end_date).toBe("2026-07-15");
    expect((await t.request("GET", `/api/estates/${estate_id}`)).json().rental_status).toBe("NOTICE");

    // Moving out: the exit report matches the entry one, the keys come back.
    const exit = await report(id, "EXIT", "2026-08-01");
    const comparison = await t.request("GET", `/api/leases/${id}/condition-reports/${exit}/comparison`);
    ok(comparison, 200);
    ok(
      await t.request("POST", `/api/estates/${estate_id}/keys/handovers`, {
        body: { lease_id: id, direction: "RETURNED", on: "2026-08-01", sets: keys },
      }),
      201,
    );
    const ended = await t.request("POST", `/api/leases/${id}/termination`, {
      body: { keys_returned_on: "2026-08-01", exit_report_id: exit },
    });
    ok(ended, 200);
    expect(ended.json()).toMatchObject({ status: "TERMINATED", terminated_at: "2026-08-01" });
    expect((await t.request("GET", `/api/estates/${estate_id}`)).json().rental_status).toBe("VACANT");

    // The deposit: due one month after the keys (art. 22 al. 4), returned 40 days after that.
    const due = await t.request("GET", `/api/leases/${id}/deposit`);
    ok(due, 200);
    expect(due.json()).toMatchObject({ amount: 800, exit_report_matches: true, due_on: "2026-09-01" });
    const returned = await t.request("POST", `/api/leases/${id}/deposit/return`, {
      body: { returned_on: "2026-10-11", deductions: [] },
    });
    ok(returned, 201);
    expect(returned.json()).toMatchObject({
      status: "RETURNED",
      returned_amount: 800,
      held: 0,
      late_months: 2,
      late_penalty: 160,
    });
  });

  it("the keys listed in the signed exit report date their return when no handover records it", async () => {
    const { id } = await newLease({ start_date: "2025-09-01", rent_amount: 800, deposit_amount: 800 });
    await report(id, "ENTRY", "2025-09-01");
    ok(await setStatus(id, "ACTIVE", { effective_date: "2025-09-01" }), 200);
    ok(
      await t.request("POST", `/api/leases/${id}/notices`, {
        body: { given_by: "LESSEE", received_on: "2026-06-15", reason: "JOB_TRANSFER" },
      }),
      201,
    );
    // An exit report listing no key says nothing of their return: still required.
    const keyless = await report(id, "EXIT", "2026-07-31", []);
    const refused = await t.request("POST", `/api/leases/${id}/termination`, {
      body: { exit_report_id: keyless },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().details[0].field).toBe("keys_returned_on");

    const exit = await report(id, "EXIT", "2026-08-01");
    const ended = await t.request("POST", `/api/leases/${id}/termination`, {
      body: { exit_report_id: exit },
    });
    ok(ended, 200);
    expect(ended.json()).toMatchObject({ status: "TERMINATED", terminated_at: "2026-08-01" });
    expect((await t.request("GET", `/api/leases/${id}/deposit`)).json()).toMatchObject({
      keys_returned_on: "2026-08-01",
      exit_report_matches: true,
      due_on: "2026-09-01",
    });
  });
});
