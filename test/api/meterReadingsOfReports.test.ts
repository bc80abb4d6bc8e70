import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Readings taken in condition reports (docs/charges.md, "Readings of condition reports"): a signed
 * report's reading of a named meter is recorded on the meter by the worker, judged like any other.
 */

const rooms = [{ name: "Séjour", elements: [{ element: "floor", condition: "GOOD" }] }];

describe.each(databaseKinds)("readings of condition reports on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {}, { loops: true });
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease } = leaseFixtures(() => t);
  const signedReport = async (leaseId: string, type: "ENTRY" | "EXIT", date: string, readings: object[]) => {
    const created = await t.request("POST", `/api/leases/${leaseId}/condition-reports`, {
      body: { type, date, rooms, meter_readings: readings, keys: [] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const signed = await t.request("PUT", `/api/leases/${leaseId}/condition-reports/${id}/status`, {
      body: { status: "SIGNED" },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    return id;
  };
  const readingsOf = async (meterId: string) =>
    (await t.request("GET", `/api/meters/${meterId}/readings`)).json() as {
      value: number;
      read_on: string;
      source: string;
      consumption: number | null;
    }[];

  it("records a signed report's reading on its meter; a lower index without rollover is refused", async () => {
    const lease = await newLease({ start_date: "2025-09-01" });
    const installed = await t.request("POST", `/api/estates/${lease.estate_id}/meters`, {
      body: { type: "ELECTRICITY", billing: "INDIVIDUAL", serial: "E-1" },
    });
    expect(installed.statusCode, installed.body).toBe(201);
    const meter = installed.json().id as string;

    await signedReport(lease.id, "ENTRY", "2025-09-01", [
      { meter_id: meter, kind: "ELECTRICITY", value: 1200 },
      { kind: "WATER_COLD", value: 35 },
    ]);
    const recorded = await eventually(
      () => readingsOf(meter),
      (list) => list.length > 0,
    );
    expect(recorded).toEqual([
      expect.objectContaining({ value: 1200, read_on: "2025-09-01", source: "MANUAL", consumption: null }),
    ]);

    // The exit's index is lower, the meter has no rollover: refused, nothing recorded, the outcome kept.
    const exit = await signedReport(lease.id, "EXIT", "2026-08-01", [
      { meter_id: meter, kind: "ELECTRICITY", value: 1100 },
    ]);
    const [row] = await eventually(
      () =>
        t.sql.query<{ outcomes: { status: string; error: string | null }[] | null }>(
          "SELECT outcomes FROM condition_report_meter_readings WHERE id = $1",
          [exit],
        ),
      (rows) => rows[0]?.outcomes !== null && rows[0]?.outcomes !== undefined,
    );
    expect(row.outcomes).toEqual([expect.objectContaining({ meter_id: meter, status: "rejected" })]);
    expect(await readingsOf(meter)).toHaveLength(1);
    expect((await readingsOf(meter)).map((r) => r.value)).toEqual([1200]);
  });
});
