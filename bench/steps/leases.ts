import { atLeast, atMost, type Context } from "../lib/context.ts";
import { cpuMeter } from "../lib/cpu.ts";
import { settle } from "../lib/databases.ts";
import { round, runWorkers, summarize } from "../lib/stats.ts";

const LEASES = 1000;
const AS_OF_EVENTS = 1000;
const LAG_SAMPLES = 200;
const AS_OF_SAMPLES = 200;

/**
 * Step 8 (issue #9): lease status changes per second over 1,000 distinct leases (against the
 * lessee-create baseline of step 1 when it ran), the lag from a status change's response to the
 * estate read model showing it, and `as_of` on a lease with 1,000 events. Through HTTP on the
 * service, like steps 1-3.
 */
export async function leasesStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const tenant = await service.newTenant(`bench-leases-${ctx.runId}`);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.child.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  const created = async (method: string, path: string, body: unknown) => {
    const res = await call(method, path, body);
    if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.id as string;
  };

  const place = await created("POST", "/api/places", { name: "Bench leases" });
  const { globalTypeIds } = await import("../../src/events/types.ts");
  const leases: { id: string; estate: string; status: "DRAFT" | "ACTIVE" | "NOTICE" }[] = [];
  let seeded = 0;
  const started = Date.now();
  await runWorkers(
    ctx.connections,
    () => seeded < LEASES,
    async () => {
      const n = seeded++;
      const estate = await created("POST", `/api/places/${place}/estates`, {
        name: `Lot ${n}`,
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        fiscal_identifier: `B-${n}`,
      });
      const lessee = await created("POST", "/api/lessees", {
        category: "individual",
        first_name: "Camille",
        last_name: `Bench ${n}`,
        email: `lease-${ctx.runId}-${n}@example.test`,
      });
      const id = await created("POST", "/api/leases", {
        estate_id: estate,
        primary_lessee_id: lessee,
        lease_type: "UNFURNISHED",
        start_date: "2025-01-01",
        rent_amount: 800,
        deposit_amount: 800,
      });
      leases.push({ id, estate, status: "DRAFT" });
    },
  );
  console.log(`  seeded ${leases.length} leases in ${Math.round((Date.now() - started) / 1000)} s`);
  // The seeding's and earlier steps' writes vacuumed now, not by autovacuum during the measurement.
  console.log(`  vacuumed the service's database in ${await settle(await ctx.mainDatabase())} ms`);

  // Status changes: each lease goes DRAFT -> ACTIVE, then NOTICE <-> ACTIVE, one change in flight per lease.
  const next = (s: string) => (s === "ACTIVE" ? "NOTICE" : "ACTIVE");
  // Each worker owns the leases of its residue class, so no two changes race on one lease.
  const turns = Array.from({ length: ctx.connections }, () => 0);
  let ok = 0;
  let refused = 0;
  const until = Date.now() + ctx.seconds * 1000;
  const t0 = performance.now();
  const meter = cpuMeter(service.child.pid);
  await runWorkers(
    ctx.connections,
    () => Date.now() < until,
    async (worker) => {
      const mine = Math.ceil((leases.length - worker) / ctx.connections);
      const lease = leases[worker + (turns[worker]++ % mine) * ctx.connections];
      const target = next(lease.status);
      const res = await call("PUT", `/api/leases/${lease.id}/status`, { status: target });
      if (res.status === 200) {
        ok++;
        lease.status = target;
      } else refused++;
    },
  );
  const rps = Math.round((ok / ((performance.now() - t0) / 1000)) * 10) / 10;
  const cpu = meter.stop();
  const baseline = (ctx.raw.create as { baseline?: { rps?: number } } | undefined)?.baseline?.rps;
  ctx.figures.push({
    step: "8 lease status",
    metric: "status changes/s",
    value: rps,
    unit: "req/s",
    target: baseline
      ? `≥ 0.4× lessee-create baseline (${baseline})`
      : "≥ 0.4× lessee-create baseline (run with create)",
    pass: baseline ? atLeast(rps / baseline, 0.4) && refused === 0 : null,
    note: `${ok} changes over ${leases.length} leases, ${refused} refused; CPU ms per change: service node ${round(cpu.node / Math.max(1, ok), 2)} + PostgreSQL ${round(cpu.postgres / Math.max(1, ok), 2)}`,
  });

  // Estate lag: from the status change's response to the estate read model showing it.
  const lags: number[] = [];
  for (let i = 0; i < LAG_SAMPLES; i++) {
    const lease = leases[i % leases.length];
    const target = next(lease.status);
    const res = await call("PUT", `/api/leases/${lease.id}/status`, { status: target });
    if (res.status !== 200) continue;
    lease.status = target;
    const expected = target === "ACTIVE" ? "RENTED" : "NOTICE";
    const answered = performance.now();
    for (;;) {
      const estate = await call("GET", `/api/estates/${lease.estate}`);
      if (estate.json?.rental_status === expected) break;
      if (performance.now() - answered > 10_000) break;
    }
    lags.push(performance.now() - answered);
  }
  const lag = summarize(lags);
  ctx.figures.push({
    step: "8 lease status",
    metric: "estate-status lag p99",
    value: lag.p99,
    unit: "ms",
    target: "≤ 20 ms",
    pass: atMost(lag.p99, 20),
    note: `p50 ${lag.p50} ms over ${lag.count} changes (includes one GET)`,
  });

  // as_of on a lease with 1,000 events.
  const long = leases[leases.length - 1];
  for (let i = 0; i < AS_OF_EVENTS; i++) {
    const res = await call("PUT", `/api/leases/${long.id}`, { custom_fields: { n: i } });
    if (res.status !== 200) throw new Error(`PUT lease for as_of: ${res.status} ${JSON.stringify(res.json)}`);
  }
  const now = new Date().toISOString();
  const times: number[] = [];
  for (let i = 0; i < AS_OF_SAMPLES; i++) {
    const t = performance.now();
    const res = await call("GET", `/api/leases/${long.id}?as_of=${encodeURIComponent(now)}`);
    if (res.status === 200) times.push(performance.now() - t);
  }
  const asOf = summarize(times);
  ctx.figures.push({
    step: "8 lease as_of",
    metric: "as_of p99 (1,000 events)",
    value: asOf.p99,
    unit: "ms",
    target: "≤ 20 ms",
    pass: atMost(asOf.p99, 20),
    note: `p50 ${asOf.p50} ms over ${asOf.count} reads`,
  });
  ctx.raw.leases = { seeded: leases.length, statusChanges: { ok, refused, rps }, lag, asOf };
}
