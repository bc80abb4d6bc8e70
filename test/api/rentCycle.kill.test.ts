import { afterAll, describe, expect, it } from "vitest";
import { seedActiveLeases, untilLeasesProjected } from "../../bench/lib/leases.ts";
import { legalToday } from "../../src/law/calendar.ts";
import {
  ALL_PERMISSIONS,
  createApiKey,
  createTenant,
  createWorkerKey,
} from "../../src/platform/tenants/tenants.ts";
import { freePort } from "../support/freePort.ts";
import { type ServiceProcess, startProcess, until, untilReady, userEnv } from "../support/serviceProcess.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

const LEASES = 1500;
/**
 * The job's date is today: the service's every-minute first-call job (which runs to today) then
 * issues the same calls. Periods of a monthly lease from 2025-01-01 to today.
 */
const DATE = legalToday();
const PERIODS = (Number(DATE.slice(0, 4)) - 2025) * 12 + Number(DATE.slice(5, 7));

/**
 * kill -9 of the service during a run of the rent-calls job and during payments (issue 24, "Done
 * when"): no acknowledged payment is lost, no period gets a second call, and a run after the restart
 * completes every lease's calls.
 */
describe.runIf(process.env.TEST_DATABASE_URL)("rent cycle under SIGKILL", () => {
  const started: ServiceProcess[] = [];
  let drop: (() => Promise<void>) | null = null;
  afterAll(async () => {
    for (const p of started) if (p.exited() === undefined) p.proc.kill("SIGKILL");
    await drop?.();
  });

  it("loses no acknowledged payment and issues no call twice", async () => {
    const db = await createTestDatabase("postgres");
    drop = db.drop;
    const url = db.url as string;
    const tenant = await createTenant(db.sql, `kill-${process.pid}`);
    const key = (await createApiKey(db.sql, tenant.id, "kill", ALL_PERMISSIONS)).key;
    const worker = (await createWorkerKey(db.sql, tenant.id, "kill")).key;
    await seedActiveLeases(url, tenant.id, LEASES);
    const leaseIds = (
      await db.sql.query<{ id: string }>(
        `SELECT substr(stream_name, 7) AS id FROM events WHERE type = 'LeaseCreated' ORDER BY position`,
      )
    ).map((r) => r.id);

    const serve = async (name: string) => {
      const port = await freePort();
      const p = startProcess(name, [process.execPath, "bin/pms.js", "serve"], {
        env: userEnv({
          DATABASE_URL: url,
          PORT: String(port),
          LOG_LEVEL: "warn",
          PMS_RATE_LIMIT_PER_MINUTE: "0",
        }),
      });
      started.push(p);
      const base = `http://127.0.0.1:${port}`;
      await untilReady(base, [p]);
      return { p, base };
    };
    const first = await serve("service");
    await untilLeasesProjected(url, tenant.id, LEASES);

    const runJob = (base: string) =>
      fetch(`${base}/api/workers/jobs/rent-calls`, {
        method: "POST",
        headers: { "x-api-key": worker, "content-type": "application/json" },
        body: JSON.stringify({ date: DATE }),
      });
    expect((await runJob(first.base)).status).toBe(202);

    // Payments on the first leases, one after the other per lease, until the kill.
    const acknowledged: string[] = [];
    let killed = false;
    const payer = async (offset: number) => {
      for (let i = offset; !killed; i += 8) {
        const res = await fetch(`${first.base}/api/leases/${leaseIds[i % 200]}/payments`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ amount: 100, paid_on: "2025-01-10", method: "CHEQUE" }),
        }).catch(() => null);
        if (res && (res.status === 201 || res.status === 202)) acknowledged.push((await res.json()).id);
      }
    };
    const payers = Array.from({ length: 8 }, (_, i) => payer(i));
    // Kill once the job has written part of its calls, payments still flowing.
    await until("calls being written", [first.p], async () => {
      const [{ n }] = await db.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type = 'RentCallIssued'`,
      );
      return n > 0 && acknowledged.length > 5 ? true : null;
    });
    first.p.proc.kill("SIGKILL");
    await first.p.exit;
    killed = true;
    await Promise.all(payers);
    const [{ n: callsAtKill }] = await db.sql.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'RentCallIssued'`,
    );

    // Restarted, the job run again finishes the calls.
    const second = await serve("service again");
    const res = await runJob(second.base);
    expect(res.status).toBe(202);
    const location = res.headers.get("location") as string;
    await until("the job after restart", [second.p], async () => {
      const job = await (
        await fetch(`${second.base}${location}`, { headers: { "x-api-key": worker } })
      ).json();
      if (job.state === "failed") throw new Error(JSON.stringify(job));
      return job.state === "completed" ? job : null;
    });

    const written = await db.sql.query<{ id: string }>(
      `SELECT data->>'payment_id' AS id FROM events WHERE type = 'PaymentRecorded' AND data->>'payment_id' = ANY($1::text[])`,
      [acknowledged],
    );
    expect(written.length).toBe(acknowledged.length);
    const duplicates = await db.sql.query(
      `SELECT data->>'call_id' AS call_id FROM events WHERE type = 'RentCallIssued' GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(duplicates).toEqual([]);
    const [{ calls, leases }] = await db.sql.query(
      `SELECT count(*)::int AS calls, count(DISTINCT stream_name)::int AS leases FROM events WHERE type = 'RentCallIssued'`,
    );
    // Every period of every lease is called: none missing after the crash, none twice.
    expect(leases).toBe(LEASES);
    expect(calls).toBe(LEASES * PERIODS);
    expect(callsAtKill, "the kill came before the job was done").toBeLessThan(LEASES * PERIODS);
    // The read model shows the acknowledged payments after the restart.
    const sample = acknowledged.slice(0, 5);
    for (const id of sample) {
      const [{ lease_id }] = await db.sql.query(
        `SELECT data->>'lease_id' AS lease_id FROM events WHERE type = 'PaymentRecorded' AND data->>'payment_id' = $1`,
        [id],
      );
      const got = await until("the payment in the read model", [second.p], async () => {
        const r = await fetch(`${second.base}/api/leases/${lease_id}/payments/${id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return r.status === 200 ? r.json() : null;
      });
      expect(got).toMatchObject({ id, amount: 100 });
    }
    await second.p.stop();
  }, 600_000);
});
