import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { estatesProjection } from "../../src/projections/estates.ts";
import { leasesProjection, lesseeLeaseLinksProjection } from "../../src/projections/leases.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(databaseKinds)("lease audit, replay and rebuild on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLessee, newLease, setStatus } = leaseFixtures(() => t);
  const get = async (url: string) => {
    const res = await t.request("GET", url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  const revisionOf = async (id: string) =>
    Number(/"(\d+)"/.exec(String((await t.request("GET", `/api/leases/${id}`)).headers.etag))?.[1]);

  it("replays a lease through 50 changes: as_of at each step equals the read model then", async () => {
    const { id } = await newLease();
    const steps: { at: string; lease: Record<string, unknown> }[] = [];
    const record = async () => {
      const lease = await get(`/api/leases/${id}`);
      steps.push({ at: lease.updated_at, lease });
      await sleep(3); // distinct occurred_at per step
    };
    await record();
    const co = await newLessee();
    for (let i = 0; i < 10; i++) {
      const res = await t.request("PUT", `/api/leases/${id}`, {
        body: { special_conditions: `Clause ${i}`, rent_amount: 800 + i, payment_day: 1 + i },
      });
      expect(res.statusCode, res.body).toBe(200);
      await record();
    }
    expect(
      (await t.request("POST", `/api/leases/${id}/lessees`, { body: { lessee_id: co, role: "CoTenant" } }))
        .statusCode,
    ).toBe(201);
    await record();
    expect((await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" })).statusCode).toBe(200);
    await record();
    for (let i = 0; i < 19; i++) {
      const res = await t.request("PUT", `/api/leases/${id}/rent`, {
        body: { rent_amount: 700 - i, effective_date: "2025-02-01", reason: "CORRECTION" },
      });
      expect(res.statusCode, res.body).toBe(200);
      await record();
    }
    for (let i = 0; i < 9; i++) {
      expect((await setStatus(id, "NOTICE", { effective_date: `2025-03-0${i + 1}` })).statusCode).toBe(200);
      await record();
      expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
      await record();
    }
    expect(steps.length).toBeGreaterThanOrEqual(50);
    for (const step of steps) {
      const { lessees: _, ...then } = await get(`/api/leases/${id}?as_of=${encodeURIComponent(step.at)}`);
      expect(then).toEqual(step.lease);
    }
    const atCreation = await get(`/api/leases/${id}?as_of=${encodeURIComponent(steps[0].at)}`);
    expect(atCreation.lessees).toHaveLength(1);
    const last = await get(`/api/leases/${id}?as_of=${encodeURIComponent(steps[steps.length - 1].at)}`);
    expect(last.lessees).toHaveLength(2);
    const history = await t.request("GET", `/api/leases/${id}/history?limit=10&page=2`);
    expect(history.headers["x-total-count"]).toBe(String((await revisionOf(id)) + 1));
    expect(history.json()).toHaveLength(10);
    expect(history.json()[0]).toMatchObject({
      revision: 10,
      actor_key_id: expect.any(String),
      correlation_id: expect.any(String),
    });
  });

  it("answers 400 for an as_of that is not a timestamp and 404 before the lease existed", async () => {
    const { id, lease } = await newLease();
    expect((await t.request("GET", `/api/leases/${id}?as_of=yesterday`)).statusCode).toBe(400);
    expect((await t.request("GET", `/api/leases/${id}?as_of=2025-02-30T00:00:00Z`)).statusCode).toBe(400);
    const before = new Date(Date.parse(lease.created_at) - 1000).toISOString();
    expect((await t.request("GET", `/api/leases/${id}?as_of=${before}`)).statusCode).toBe(404);
    expect(
      (await t.request("GET", `/api/leases/${id}?as_of=${lease.created_at}`, { as: t.other })).statusCode,
    ).toBe(404);
    expect((await t.request("GET", `/api/leases/${id}/history`, { as: t.other })).statusCode).toBe(404);
  });

  it("20 concurrent status changes on one lease leave a history that replays to the read model", async () => {
    const { id } = await newLease();
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => setStatus(id, i % 2 === 0 ? "NOTICE" : "ACTIVE")),
    );
    for (const r of results) expect([200, 409], r.body).toContain(r.statusCode);
    const lease = await get(`/api/leases/${id}`);
    const { lessees: _, ...replayed } = await get(`/api/leases/${id}?as_of=${new Date().toISOString()}`);
    expect(replayed).toEqual(lease);
    const history = await get(`/api/leases/${id}/history?limit=1000`);
    expect(history.map((e: { revision: number }) => e.revision)).toEqual(
      history.map((_: unknown, i: number) => i),
    );
    expect(history.length).toBe((await revisionOf(id)) + 1);
  });

  it("rebuilding every lease-fed projection from the log gives the same rows", async () => {
    const a = await newLease();
    const b = await newLease({ lease_type: "FURNISHED", deposit_amount: 1600 });
    await t.request("POST", `/api/leases/${a.id}/lessees`, {
      body: { lessee_id: await newLessee("guarantor"), role: "Guarantor" },
    });
    await setStatus(a.id, "ACTIVE");
    await t.request("PUT", `/api/leases/${a.id}/rent`, {
      body: { rent_amount: 790, effective_date: "2025-05-01", reason: "CORRECTION" },
    });
    await setStatus(b.id, "ACTIVE");
    await setStatus(b.id, "NOTICE");
    const c = await newLease();
    await t.request("DELETE", `/api/leases/${c.id}`);
    const tables = [
      "leases",
      "lease_lessees",
      "lease_rent_history",
      "estate_lease_status",
      "estates",
      "lessee_active_leases",
    ];
    const snapshot = async () => {
      const out: Record<string, unknown> = {};
      for (const table of tables) out[table] = await t.sql.query(`SELECT * FROM ${table} ORDER BY id`);
      return out;
    };
    const before = await snapshot();
    expect((before.estates as { rental_status: string }[]).map((e) => e.rental_status).sort()).toContain(
      "NOTICE",
    );
    for (const projection of [leasesProjection, estatesProjection, lesseeLeaseLinksProjection]) {
      await rebuildProjection(t.sql, t.service.platform.store, projection);
    }
    expect(await snapshot()).toEqual(before);
  });
});
