import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { areas } from "../../src/areas.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long chains of sequential requests: the 30 s default is too short on a loaded shared machine. */
const LONG = 180_000;

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

  it("replays a lease through 50 changes: as_of at each step equals the read model then", {
    timeout: LONG,
  }, async () => {
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
      const {
        lessees: _,
        amendments: __,
        ...then
      } = await get(`/api/leases/${id}?as_of=${encodeURIComponent(step.at)}`);
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
    const {
      lessees: _,
      amendments: __,
      ...replayed
    } = await get(`/api/leases/${id}?as_of=${new Date().toISOString()}`);
    expect(replayed).toEqual(lease);
    const history = await get(`/api/leases/${id}/history?limit=1000`);
    expect(history.map((e: { revision: number }) => e.revision)).toEqual(
      history.map((_: unknown, i: number) => i),
    );
    expect(history.length).toBe((await revisionOf(id)) + 1);
  });

  it("rebuilding every projection from the log gives the same rows", { timeout: LONG }, async () => {
    const a = await newLease();
    const b = await newLease({ lease_type: "FURNISHED", deposit_amount: 1600 });
    await t.request("POST", `/api/leases/${a.id}/lessees`, {
      body: { lessee_id: await newLessee("guarantor"), role: "Guarantor" },
    });
    await setStatus(a.id, "ACTIVE");
    await t.request("PUT", `/api/leases/${a.id}/rent`, {
      body: { rent_amount: 790, effective_date: "2025-05-01", reason: "CORRECTION" },
    });
    const amendment = await t.request("POST", `/api/leases/${a.id}/amendments`, {
      body: {
        title: "Avenant",
        effective_date: "2025-09-01",
        changes: { rent_amount: 820, end_date: "2028-12-31" },
      },
    });
    const url = `/api/leases/${a.id}/amendments/${amendment.json().id}/status`;
    expect(amendment.statusCode, amendment.body).toBe(201);
    const submitted = await t.request("PUT", url, { body: { status: "PENDING_VALIDATION" } });
    expect(submitted.statusCode, submitted.body).toBe(200);
    const validated = await t.request("PUT", url, { body: { status: "VALIDATED" } });
    expect(validated.statusCode, validated.body).toBe(200);
    await setStatus(b.id, "ACTIVE");
    expect((await setStatus(b.id, "NOTICE", { effective_date: "2025-03-01" })).json().notice_end_date).toBe(
      "2025-04-01",
    );
    const c = await newLease();
    await t.request("DELETE", `/api/leases/${c.id}`);
    const projections = areas.flatMap((area) => area.projections);
    const tables = projections.flatMap((p) => p.tables);
    expect(tables).toEqual(
      expect.arrayContaining(["leases", "lease_amendments", "estate_lease_status", "lessee_active_leases"]),
    );
    const snapshot = async () => {
      const out: Record<string, unknown> = {};
      for (const table of tables) {
        const rows = await t.sql.query(`SELECT * FROM ${table}`);
        out[table] = rows.map((r) => JSON.stringify(r)).sort();
      }
      return out;
    };
    const before = await snapshot();
    expect((before.leases as string[]).length).toBeGreaterThan(0);
    for (const projection of projections)
      await rebuildProjection(t.sql, t.service.platform.store, projection);
    expect(await snapshot()).toEqual(before);
  });

  it("as_of from snapshots every 100 revisions equals the full replay (a lease through 230 changes)", {
    timeout: LONG,
  }, async () => {
    const { id } = await newLease();
    const steps: { at: string; lease: Record<string, unknown> }[] = [];
    for (let i = 0; i < 230; i++) {
      const res = await t.request("PUT", `/api/leases/${id}`, {
        body: { special_conditions: `Clause ${i}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      if (i === 120) {
        const draft = await t.request("POST", `/api/leases/${id}/amendments`, {
          body: { title: "Avenant", effective_date: "2025-09-01", changes: { rent_amount: 810 } },
        });
        expect(draft.statusCode, draft.body).toBe(201);
      }
      if (i % 20 === 0 || (i >= 96 && i <= 99) || (i >= 196 && i <= 199)) {
        const lease = await get(`/api/leases/${id}`);
        steps.push({ at: lease.updated_at, lease });
        await sleep(2);
      }
    }
    const snapshots = await t.sql.query<{ revision: number }>(
      "SELECT revision FROM lease_snapshots WHERE lease_id = $1 ORDER BY revision",
      [id],
    );
    expect(snapshots.map((r) => Number(r.revision))).toEqual([99, 199]);
    const asOf = async (at: string) => get(`/api/leases/${id}?as_of=${encodeURIComponent(at)}`);
    const fromSnapshots = [];
    for (const step of steps) {
      const { lessees, amendments, ...then } = await asOf(step.at);
      expect(then).toEqual(step.lease);
      expect(lessees).toHaveLength(1);
      fromSnapshots.push({ ...then, lessees, amendments });
    }
    expect(fromSnapshots[fromSnapshots.length - 1].amendments).toMatchObject([
      { title: "Avenant", status: "DRAFT", changes: { rent_amount: 810 } },
    ]);
    // without the snapshots, the full replay gives the same answers
    await t.sql.query("DELETE FROM lease_snapshots WHERE lease_id = $1", [id]);
    for (const [i, step] of steps.entries()) expect(await asOf(step.at)).toEqual(fromSnapshots[i]);
  });
});
