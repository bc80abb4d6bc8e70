import pg from "pg";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addMonths, legalToday } from "../../src/law/calendar.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { atLeast, atMost, type Context } from "../lib/context.ts";
import { seedActiveLeases, untilLeasesProjected } from "../lib/leases.ts";
import { load } from "../lib/load.ts";
import { round, sleep } from "../lib/stats.ts";

/** Leases the daily job runs over (BENCH_RENT_LEASES for a reduced run). */
const LEASES = Number(process.env.BENCH_RENT_LEASES ?? 100_000);
const PAYMENT_LEASES = 2000;
const ACCOUNT_MONTHS = 120;

async function scalar(url: string, text: string, params: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(text, params)).rows[0].n);
  } finally {
    await client.end();
  }
}

async function untilCount(url: string, text: string, params: unknown[], count: number, ms = 600_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(250))
    if ((await scalar(url, text, params)) >= count) return;
  throw new Error(`not ${count} within ${ms} ms: ${text}`);
}

/**
 * Issue 24 (rent cycle): the daily rent-calls job over LEASES active leases (the month's call each;
 * a second run the same day writes nothing), recording a payment against the lessee-create baseline
 * of the same run, and the account of a lease with 10 years of monthly calls and payments at 32
 * connections. Leases are seeded in bulk as events (bench/lib/leases.ts); the job runs in this
 * process on the service's database, as the worker role would.
 */
export async function rentCycleStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const url = await ctx.mainDatabase();
  const tenant = await service.newTenant(`bench-rent-${ctx.runId}`);
  const today = legalToday();
  const monthStart = `${today.slice(0, 7)}-01`;

  let t = Date.now();
  await seedActiveLeases(url, tenant.id, LEASES, monthStart);
  await untilLeasesProjected(url, tenant.id, LEASES);
  console.log(`  seeded ${LEASES} active leases in ${round((Date.now() - t) / 1000, 1)} s`);

  const sql = createPostgresSql(url, { max: 8 });
  const store = createPostgresEventStore(sql);
  try {
    const events = () => scalar(url, `SELECT count(*)::int AS n FROM events`);
    t = performance.now();
    const first = await issueRentCalls({ sql, store }, { today, tenantId: tenant.id });
    const firstMs = performance.now() - t;
    ctx.figures.push({
      step: "24 rent calls",
      metric: `daily job, ${LEASES} active leases`,
      value: round(firstMs / 1000, 1),
      unit: "s",
      target: "≤ 60 s (100,000 leases)",
      pass: LEASES >= 100_000 ? atMost(firstMs, 60_000) && first.calls === LEASES : null,
      note: `${first.calls} calls issued for ${first.leases} leases`,
    });
    await untilCount(
      url,
      `SELECT count(*)::int AS n FROM lease_accounts WHERE tenant_id = $1`,
      [tenant.id],
      LEASES,
    );
    const before = await events();
    t = performance.now();
    const second = await issueRentCalls({ sql, store }, { today, tenantId: tenant.id });
    const secondMs = performance.now() - t;
    const written = (await events()) - before;
    ctx.figures.push({
      step: "24 rent calls",
      metric: "second run the same day",
      value: round(secondMs / 1000, 2),
      unit: "s",
      target: "writes nothing",
      pass: written === 0 && second.calls === 0,
      note: `${written} events written, ${second.calls} calls`,
    });

    // Payments over distinct leases (one stream each, mostly), read-your-writes answer.
    const leaseIds = (
      await sql.query<{ id: string }>(`SELECT id FROM leases WHERE tenant_id = $1 ORDER BY id LIMIT $2`, [
        tenant.id,
        PAYMENT_LEASES,
      ])
    ).map((r) => r.id);
    let n = 0;
    const payments = await load({
      url: service.child.url,
      path: "/",
      method: "POST",
      apiKey: tenant.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: () => ({
        path: `/api/leases/${leaseIds[n++ % leaseIds.length]}/payments`,
        body: JSON.stringify({ amount: 10, paid_on: today, method: "VIREMENT_BANCAIRE" }),
      }),
    });
    const baseline = (ctx.raw.create as { baseline?: { rps?: number } } | undefined)?.baseline?.rps;
    ctx.figures.push({
      step: "24 payments",
      metric: "payments recorded/s",
      value: payments.rps,
      unit: "req/s",
      target: baseline
        ? `≥ 0.5× lessee-create baseline (${baseline})`
        : "≥ 0.5× lessee-create baseline (run with create)",
      pass: baseline ? atLeast(payments.rps / baseline, 0.5) && payments.non2xx === 0 : null,
      note: `${baseline ? `${round(payments.rps / baseline, 2)}× baseline; ` : ""}p99 ${payments.p99} ms; ${payments.non2xx} non-2xx, ${payments.errors} errors`,
    });

    // One lease with 10 years of monthly calls and a payment for each.
    const tenYears = addMonths(monthStart, -(ACCOUNT_MONTHS - 1));
    await seedActiveLeases(url, tenant.id, 1, tenYears);
    await untilLeasesProjected(url, tenant.id, LEASES + 1);
    const [{ id: longId }] = await sql.query<{ id: string }>(
      `SELECT id FROM leases WHERE tenant_id = $1 AND start_date = $2::date`,
      [tenant.id, tenYears],
    );
    await issueRentCalls({ sql, store }, { today, tenantId: tenant.id });
    for (let i = 0; i < ACCOUNT_MONTHS; i++) {
      const res = await fetch(`${service.child.url}/api/leases/${longId}/payments`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: 850, paid_on: today, method: "VIREMENT_BANCAIRE" }),
      });
      if (res.status !== 201) throw new Error(`payment ${i}: ${res.status} ${await res.text()}`);
    }
    const account = await load({
      url: service.child.url,
      path: `/api/leases/${longId}/account`,
      apiKey: tenant.key,
      next: () => ({}),
      connections: ctx.connections,
      seconds: ctx.seconds,
    });
    const check = await (
      await fetch(`${service.child.url}/api/leases/${longId}/account`, {
        headers: { authorization: `Bearer ${tenant.key}` },
      })
    ).json();
    ctx.figures.push({
      step: "24 account",
      metric: `account p99 (${ACCOUNT_MONTHS} calls + ${ACCOUNT_MONTHS} payments)`,
      value: account.p99,
      unit: "ms",
      target: "≤ 20 ms",
      pass: atMost(account.p99, 20) && account.non2xx === 0 && check.entries?.length === 2 * ACCOUNT_MONTHS,
      note: `p50 ${account.p50} ms, ${account.rps} req/s; balance ${check.balance}, ${check.entries?.length} entries`,
    });
    ctx.raw.rentCycle = { leases: LEASES, first, firstMs, second, secondMs, written, payments, account };
  } finally {
    await sql.close();
  }
}
