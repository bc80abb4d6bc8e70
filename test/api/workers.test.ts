import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, legalToday } from "../../src/law/calendar.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createTenant, createWorkerKey, revokeWorkerKey } from "../../src/platform/tenants/tenants.ts";
import { startService } from "../../src/service.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The jobs judge dates by the legal day (Europe/Paris), which is not the UTC day near midnight.
const today = () => legalToday();
const tomorrow = () => addDays(legalToday(), 1);

/** The Workers area (docs/operations.md, "Workers routes"): the test app runs the worker role. */
describe.each(databaseKinds)("Workers area on %s", (kind) => {
  let t: TestApp;
  let workerKey: string;
  let otherWorkerKey: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    workerKey = (await createWorkerKey(t.sql, t.tenant.id, "test worker")).key;
    otherWorkerKey = (await createWorkerKey(t.sql, t.other.id, "other worker")).key;
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  const work = (method: string, url: string, options: { body?: unknown; key?: string } = {}) =>
    t.request(method, url, {
      as: null,
      body: options.body,
      headers: { "x-api-key": options.key ?? workerKey },
    });

  /** Follows a job until it ends (the worker polls every second). */
  const finished = async (queue: string, id: string) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const res = await work("GET", `/api/workers/jobs/${queue}/${id}`);
      expect(res.statusCode, res.body).toBe(200);
      const job = res.json();
      if (["completed", "failed", "cancelled"].includes(job.state)) return job;
      if (Date.now() > end) throw new Error(`job ${queue}/${id} still ${job.state}`);
      await sleep(200);
    }
  };
  const queued = async (queue: string) =>
    Number(
      (await t.sql.query<{ n: string }>("SELECT count(*) AS n FROM pgboss.job WHERE name = $1", [queue]))[0]
        .n,
    );

  it("lists the job kinds it knows, with their schedule and the body each takes", async () => {
    const res = await work("GET", "/api/workers/jobs");
    expect(res.statusCode, res.body).toBe(200);
    const kinds = Object.fromEntries(res.json().map((k: { queue: string }) => [k.queue, k]));
    expect(kinds["projection-rebuild"]).toMatchObject({ schedule: null });
    expect(kinds["projection-rebuild"].input.required).toEqual(["projection"]);
    expect(kinds["lease-expiry"]).toMatchObject({ schedule: "5 0 * * *" });
    expect(Object.keys(kinds["lease-expiry"].input.properties)).toEqual(["date"]);
    expect(kinds["blob-parts-sweep"]).toMatchObject({ schedule: "17 * * * *" });
  });

  it("rebuilds a projection as a job and reads its status back, completed with its output", async () => {
    const lease = await newLease();
    const res = await work("POST", "/api/workers/jobs/projection-rebuild", {
      body: { projection: "leases" },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { job_id, queue, state } = res.json();
    expect({ queue, state }).toEqual({ queue: "projection-rebuild", state: "created" });
    expect(res.headers.location).toBe(`/api/workers/jobs/projection-rebuild/${job_id}`);
    const job = await finished(queue, job_id);
    expect(job).toMatchObject({ job_id, queue, state: "completed", error: null });
    expect(job.output.projection).toBe("leases");
    expect(job.output.events).toBeGreaterThan(0);
    expect(Date.parse(job.completed_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at));
    // The rebuilt read model still serves the lease.
    expect((await t.request("GET", `/api/leases/${lease.id}`)).statusCode).toBe(200);
  }, 60_000);

  it("expires due leases as a job, once even when asked twice at the same time", async () => {
    // A bail mobilité ends at its term (loi 89-462 art. 25-14); an unfurnished lease would be renewed.
    const due = await newLease({
      lease_type: "MOBILITY",
      mobility_motive: "Stage",
      deposit_amount: null,
      start_date: "2021-03-01",
      end_date: "2021-12-31",
    });
    expect((await setStatus(due.id, "ACTIVE")).statusCode).toBe(200);
    const [a, b] = await Promise.all([
      work("POST", "/api/workers/jobs/lease-expiry", { body: { date: today() } }),
      work("POST", "/api/workers/jobs/lease-expiry", { body: {} }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    const jobs = [
      await finished("lease-expiry", a.json().job_id),
      await finished("lease-expiry", b.json().job_id),
    ];
    for (const job of jobs) expect(job.state, JSON.stringify(job)).toBe("completed");
    expect(jobs.map((j) => j.output.expired).reduce((x, y) => x + y)).toBeGreaterThanOrEqual(1);
    const lease = await eventually(
      async () => (await t.request("GET", `/api/leases/${due.id}`)).json(),
      (l) => l.status === "EXPIRED",
    );
    expect(lease.status).toBe("EXPIRED");
    const history = (await t.request("GET", `/api/leases/${due.id}/history`)).json();
    expect(history.filter((e: { type: string }) => e.type === "LeaseExpired")).toHaveLength(1);
    // No body at all is an empty input.
    const bare = await t.app.inject({
      method: "POST",
      url: "/api/workers/jobs/lease-expiry",
      headers: { "x-api-key": workerKey },
    });
    expect(bare.statusCode, bare.body).toBe(202);
    expect((await finished("lease-expiry", bare.json().job_id)).output).toEqual({ expired: 0, renewed: 0 });
  }, 60_000);

  it("generates a batch of contract PDFs for the worker key's tenant only", async () => {
    const [a, b] = [await newLease(), await newLease()];
    const foreign = await newLease({}, t.other);
    const res = await work("POST", "/api/workers/jobs/lease-pdf-batch", {
      body: { lease_ids: [a.id, b.id, foreign.id] },
    });
    expect(res.statusCode, res.body).toBe(202);
    const job = await finished("lease-pdf-batch", res.json().job_id);
    expect(job.state, JSON.stringify(job)).toBe("completed");
    expect(job.output.generated.map((g: { lease_id: string }) => g.lease_id)).toEqual([a.id, b.id]);
    expect(job.output.failed.map((f: { lease_id: string }) => f.lease_id)).toEqual([foreign.id]);
    for (const { pdf_id } of job.output.generated) {
      const file = await eventually(
        () => t.request("GET", `/api/leases/pdf/${pdf_id}`),
        (res) => res.statusCode !== 404,
      );
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
      expect((await t.request("GET", `/api/leases/pdf/${pdf_id}`, { as: t.other })).statusCode).toBe(404);
    }
    // Nothing was written on the other tenant's lease.
    expect((await t.request("GET", `/api/leases/${foreign.id}/pdfs`, { as: t.other })).json()).toEqual([]);
    // The other tenant's worker does not see the job.
    const theirs = await work("GET", `/api/workers/jobs/lease-pdf-batch/${job.job_id}`, {
      key: otherWorkerKey,
    });
    expect(theirs.statusCode).toBe(404);
  }, 60_000);

  it("honours an Idempotency-Key: a retried POST answers the same job and queues one", async () => {
    const before = await queued("lease-expiry");
    const post = () =>
      t.request("POST", "/api/workers/jobs/lease-expiry", {
        as: null,
        body: {},
        headers: { "x-api-key": workerKey, "idempotency-key": `expiry-${crypto.randomUUID()}` },
      });
    const key = `expiry-${crypto.randomUUID()}`;
    const again = () =>
      t.request("POST", "/api/workers/jobs/lease-expiry", {
        as: null,
        body: {},
        headers: { "x-api-key": workerKey, "idempotency-key": key },
      });
    const [first, second] = [await again(), await again()];
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    expect(second.json().job_id).toBe(first.json().job_id);
    expect(await queued("lease-expiry")).toBe(before + 1);
    expect((await post()).json().job_id).not.toBe(first.json().job_id);
  });

  it("refuses bad bodies with 400 and an unknown projection with 404, queueing nothing", async () => {
    const before = {
      rebuild: await queued("projection-rebuild"),
      expiry: await queued("lease-expiry"),
      pdfs: await queued("lease-pdf-batch"),
    };
    const bad: [string, unknown, string][] = [
      ["projection-rebuild", {}, "projection"],
      ["projection-rebuild", { projection: 7 }, "projection"],
      ["projection-rebuild", { projection: "leases", extra: 1 }, "extra"],
      ["lease-expiry", { date: "2025-02-30" }, "date"],
      ["lease-expiry", { date: tomorrow() }, "date"],
      ["lease-expiry", [], "body"],
      ["lease-pdf-batch", { lease_ids: [] }, "lease_ids"],
      ["lease-pdf-batch", { lease_ids: ["not-a-uuid"] }, "lease_ids[0]"],
      ["lease-pdf-batch", { lease_ids: Array.from({ length: 501 }, () => crypto.randomUUID()) }, "lease_ids"],
      ["lease-pdf-batch", { tenant_id: t.other.id, lease_ids: [crypto.randomUUID()] }, "tenant_id"],
    ];
    for (const [queue, body, field] of bad) {
      const res = await work("POST", `/api/workers/jobs/${queue}`, { body });
      expect(res.statusCode, `${queue} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe("ValidationError");
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const unknown = await work("POST", "/api/workers/jobs/projection-rebuild", {
      body: { projection: "nope" },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "NotFound", message: "Projection nope not found" });
    expect(await queued("projection-rebuild")).toBe(before.rebuild);
    expect(await queued("lease-expiry")).toBe(before.expiry);
    expect(await queued("lease-pdf-batch")).toBe(before.pdfs);
  });

  it("answers 404 for an unknown job kind or job, and another tenant's job", async () => {
    expect((await work("POST", "/api/workers/jobs/no-such-job", { body: {} })).statusCode).toBe(404);
    const missing = await work("GET", `/api/workers/jobs/lease-expiry/${crypto.randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe("NotFound");
    expect((await work("GET", `/api/workers/jobs/no-such-job/${crypto.randomUUID()}`)).statusCode).toBe(404);
    expect((await work("GET", "/api/workers/jobs/lease-expiry/not-a-uuid")).statusCode).toBe(400);
    const mine = (await work("POST", "/api/workers/jobs/lease-expiry", { body: {} })).json().job_id;
    expect((await work("GET", `/api/workers/jobs/lease-expiry/${mine}`)).statusCode).toBe(200);
    const theirs = await work("GET", `/api/workers/jobs/lease-expiry/${mine}`, { key: otherWorkerKey });
    expect(theirs.statusCode).toBe(404);
    // A job of another queue under this one's name is unknown too.
    expect((await work("GET", `/api/workers/jobs/projection-rebuild/${mine}`)).statusCode).toBe(404);
  });

  it("takes only a live worker key in X-API-Key; tenant keys get 403 here, worker keys 403 elsewhere", async () => {
    const url = "/api/workers/jobs";
    const as = (headers: Record<string, string>) => t.request("GET", url, { as: null, headers });
    const expectError = async (headers: Record<string, string>, status: number, error: string) => {
      const res = await as(headers);
      expect(res.statusCode, `${JSON.stringify(headers)}: ${res.body}`).toBe(status);
      expect(res.json().error).toBe(error);
    };
    await expectError({}, 401, "Unauthorized");
    await expectError({ authorization: `Bearer ${t.tenant.key}` }, 403, "Forbidden");
    await expectError({ "x-api-key": t.tenant.key }, 403, "Forbidden");
    await expectError({ authorization: `Bearer ${workerKey}` }, 401, "Unauthorized");
    await expectError({ authorization: `Bearer ${TEST_ADMIN_KEY}` }, 401, "Unauthorized");
    await expectError({ "x-api-key": `pmw_${"a".repeat(32)}` }, 401, "Unauthorized");
    // A refused POST queues nothing.
    const before = await queued("lease-expiry");
    const posted = await t.request("POST", "/api/workers/jobs/lease-expiry", { body: {} });
    expect(posted.statusCode).toBe(403);
    expect(await queued("lease-expiry")).toBe(before);
    // A worker key on tenant and admin routes.
    for (const headers of [{ "x-api-key": workerKey }, { authorization: `Bearer ${workerKey}` }] as Record<
      string,
      string
    >[]) {
      const res = await t.request("GET", "/api/lessees", { as: null, headers });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error).toBe("Forbidden");
      expect((await t.request("GET", "/api/admin/tenants", { as: null, headers })).statusCode).toBe(401);
    }
    // Revoked: refused within the 1 s key cache.
    const revoked = await createWorkerKey(t.sql, t.tenant.id, "to revoke");
    expect((await as({ "x-api-key": revoked.key })).statusCode).toBe(200);
    await revokeWorkerKey(t.sql, revoked.id);
    await sleep(1100);
    await expectError({ "x-api-key": revoked.key }, 401, "Unauthorized");
  });
});

describe.each(databaseKinds)("roles split over processes on %s", (kind) => {
  it("an api-only service queues, a worker-only service (pms serve --role worker) runs the job", async () => {
    const db = await createTestDatabase(kind);
    const config = loadConfig({ LOG_LEVEL: "silent", PMS_RATE_LIMIT_PER_MINUTE: "0", DATABASE_URL: db.url });
    const api = await startService(config, { roles: ["api", "projector"], sql: db.sql });
    const workerSql = createPostgresSql(db.url ?? "");
    const worker = await startService(config, { roles: ["worker"], sql: workerSql });
    try {
      expect(worker.app).toBeNull();
      const tenant = await createTenant(db.sql, "split");
      const key = (await createWorkerKey(db.sql, tenant.id, "split")).key;
      const headers = { "x-api-key": key, "content-type": "application/json" };
      const res = await api.app!.inject({
        method: "POST",
        url: "/api/workers/jobs/projection-rebuild",
        headers,
        payload: JSON.stringify({ projection: "lessees" }),
      });
      expect(res.statusCode, res.body).toBe(202);
      const url = `/api/workers/jobs/projection-rebuild/${res.json().job_id}`;
      const end = Date.now() + 30_000;
      let state = "created";
      while (state !== "completed" && state !== "failed" && Date.now() < end) {
        await sleep(200);
        state = (await api.app!.inject({ url, headers })).json().state;
      }
      // The api-only service works no jobs: the worker-only one ran it.
      expect(state).toBe("completed");
    } finally {
      await worker.close();
      await workerSql.close();
      await api.close();
      await db.drop();
    }
  }, 60_000);
});
