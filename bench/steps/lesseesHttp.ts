import { atLeast, atMost, type Context, type Tenant } from "../lib/context.ts";
import { type CpuSample, cpuMeter } from "../lib/cpu.ts";
import { lesseeBody, seedLessees, waitReady } from "../lib/lessees.ts";
import { alternate, type LoadResult, load } from "../lib/load.ts";
import { sampleRss } from "../lib/rss.ts";
import { mb, medianSpread, round } from "../lib/stats.ts";

/**
 * Steps 1-3: the lessee routes of the service against the plain baseline, same database, same key,
 * each side run twice in turns (see `alternate`).
 */

const LIST_SEED = 1000;
const RSS_LIMIT = 300 * 1024 * 1024;

const statusNote = (r: LoadResult) => {
  const parts = [];
  if (r.non2xx || r.errors)
    parts.push(`non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}, errors ${r.errors}`);
  // 202: the read model did not catch up within PMS_READ_YOUR_WRITES_TIMEOUT_MS.
  if (r.statusCodes["202"]) parts.push(`${r.statusCodes["202"]} answered 202`);
  return parts.length ? parts.join("; ") : undefined;
};

type Compared = Awaited<ReturnType<typeof alternate>>;

/** The ratio is the median of the interleaved pairs' ratios, with their spread (bench/lib/load.ts). */
function compare(ctx: Context, step: string, both: Compared, ratio: number) {
  const { service, baseline } = both;
  const ratios = medianSpread(both.ratios);
  const p99s = (side: "service" | "baseline") =>
    medianSpread(
      both.runs.map((r) => r[side].p99),
      1,
    ).median;
  ctx.figures.push(
    {
      step,
      metric: "service req/s",
      value: service.rps,
      unit: "req/s",
      target: "",
      pass: null,
      note: statusNote(service),
    },
    {
      step,
      metric: "baseline req/s",
      value: baseline.rps,
      unit: "req/s",
      target: "",
      pass: null,
      note: statusNote(baseline),
    },
    {
      step,
      metric: "service / baseline",
      value: ratios.median,
      unit: "×",
      target: `≥ ${ratio}×`,
      pass: atLeast(ratios.median, ratio) && service.non2xx === 0,
      note: `${ratios.text} interleaved pairs; p50/p99 ms (median of runs): service ${
        medianSpread(
          both.runs.map((r) => r.service.p50),
          1,
        ).median
      }/${p99s("service")}, baseline ${
        medianSpread(
          both.runs.map((r) => r.baseline.p50),
          1,
        ).median
      }/${p99s("baseline")}`,
    },
  );
}

/** CPU per request of each side's node process and of PostgreSQL (docs/performance.md), over `alternate`'s runs. */
export function cpuPerRequest(ctx: Context) {
  // Each run's CPU per request, averaged over the side's runs.
  const runs = { service: [] as CpuSample[], baseline: [] as CpuSample[] };
  const metered = async (side: "service" | "baseline", pid: number, run: () => Promise<LoadResult>) => {
    const meter = cpuMeter(pid);
    const result = await run();
    const used: CpuSample = meter.stop();
    const total = Math.max(1, result.rps * ctx.seconds);
    runs[side].push({ node: used.node / total, postgres: used.postgres / total });
    return result;
  };
  const mean = (side: "service" | "baseline") => {
    const of = (f: (s: CpuSample) => number) =>
      runs[side].reduce((sum, s) => sum + f(s), 0) / Math.max(1, runs[side].length);
    return { node: of((s) => s.node), postgres: of((s) => s.postgres) };
  };
  const cpu = () => ({ service: mean("service"), baseline: mean("baseline") });
  const figure = (step: string) => {
    const { service, baseline } = cpu();
    return {
      step,
      metric: "CPU ms per request",
      value: round(service.node + service.postgres, 2),
      unit: "ms",
      target: "",
      pass: null,
      note: `service node ${round(service.node, 2)} + PostgreSQL ${round(service.postgres, 2)}; baseline node ${round(baseline.node, 2)} + PostgreSQL ${round(baseline.postgres, 2)}`,
    };
  };
  return { cpu, metered, figure };
}

export async function createStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const baseline = await ctx.baseline();
  const { cpu, metered, figure } = cpuPerRequest(ctx);
  const run = async (url: string, tag: string) => {
    let n = 0;
    return load({
      url,
      path: "/api/lessees",
      method: "POST",
      apiKey: service.tenant.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: () => {
        n++;
        return { body: JSON.stringify(lesseeBody(`create-${ctx.runId}-${tag}-${n}@example.test`, n)) };
      },
    });
  };
  // Sampled over the whole step: the peak is the service's, it idles during the baseline runs.
  const rss = sampleRss(service.child.pid);
  const both = await alternate(
    (i) => metered("service", service.child.pid, () => run(service.child.url, `s${i}`)),
    (i) => metered("baseline", baseline.pid, () => run(baseline.url, `b${i}`)),
  );
  const memory = rss.stop();
  ctx.raw.create = { ...both, serviceRss: memory, cpuMsPerRequest: cpu() };
  compare(ctx, "1 create", both, 0.6);
  const p99 = medianSpread(
    both.runs.map((r) => r.service.p99),
    1,
  );
  ctx.figures.push(figure("1 create"));
  ctx.figures.push(
    {
      step: "1 create",
      metric: "service p99",
      value: p99.median,
      unit: "ms",
      target: "≤ 50 ms",
      pass: atMost(p99.median, 50),
      note: `${p99.text} runs; baseline ${
        medianSpread(
          both.runs.map((r) => r.baseline.p99),
          1,
        ).text
      }`,
    },
    {
      step: "1 create",
      metric: "service peak RSS",
      value: mb(memory.peak),
      unit: "MB",
      target: "≤ 300 MB",
      pass: atMost(memory.peak, RSS_LIMIT),
      note: `VmRSS polled every 100 ms: ${mb(memory.first)} MB at start, ${mb(memory.last)} MB at end; VmHWM ${mb(memory.hwm)} MB`,
    },
  );
}

interface ListTenant {
  tenant: Tenant;
  serviceIds: string[];
  baselineIds: string[];
}

/** A tenant with exactly LIST_SEED lessees on each side, so both lists count the same rows. */
async function listTenant(ctx: Context): Promise<ListTenant> {
  const cached = ctx.shared.get("listTenant") as Promise<ListTenant> | undefined;
  if (cached) return cached;
  const seeded = (async () => {
    const service = await ctx.service();
    const baseline = await ctx.baseline();
    const tenant = await service.newTenant("bench-list");
    const started = Date.now();
    const serviceIds = await seedLessees(
      service.child.url,
      tenant.key,
      LIST_SEED,
      (n) => `list-s-${n}@example.test`,
    );
    await waitReady(service.child.url);
    const seededIn = Date.now() - started;
    const baselineIds = await seedLessees(
      baseline.url,
      tenant.key,
      LIST_SEED,
      (n) => `list-b-${n}@example.test`,
    );
    console.log(`  seeded ${LIST_SEED} lessees per side (service took ${seededIn} ms)`);
    return { tenant, serviceIds, baselineIds };
  })();
  ctx.shared.set("listTenant", seeded);
  return seeded;
}

/** Same fields on both sides (in any order: the service writes them in its schema's order), or the comparison is not fair. */
async function sameShape(ctx: Context, step: string, serviceUrl: string, baselineUrl: string, key: string) {
  const get = async (url: string) =>
    (await fetch(url, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as unknown;
  const [s, b] = await Promise.all([get(serviceUrl), get(baselineUrl)]);
  const keysOf = (v: unknown) =>
    Object.keys((Array.isArray(v) ? v[0] : v) ?? {})
      .sort()
      .join(",");
  if (keysOf(s) !== keysOf(b)) {
    ctx.figures.push({
      step,
      metric: "response shape",
      value: "differs",
      unit: "",
      target: "same",
      pass: false,
      note: `service ${keysOf(s)} / baseline ${keysOf(b)}`,
    });
  }
}

export async function getStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const baseline = await ctx.baseline();
  const { tenant, serviceIds, baselineIds } = await listTenant(ctx);
  await sameShape(
    ctx,
    "2 get",
    `${service.child.url}/api/lessees/${serviceIds[0]}`,
    `${baseline.url}/api/lessees/${baselineIds[0]}`,
    tenant.key,
  );
  const run = (url: string, ids: string[]) =>
    load({
      url,
      path: `/api/lessees/${ids[0]}`,
      apiKey: tenant.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: () => ({ path: `/api/lessees/${ids[Math.floor(Math.random() * ids.length)]}` }),
    });
  const { cpu, metered, figure } = cpuPerRequest(ctx);
  const both = await alternate(
    () => metered("service", service.child.pid, () => run(service.child.url, serviceIds)),
    () => metered("baseline", baseline.pid, () => run(baseline.url, baselineIds)),
  );
  ctx.raw.get = { ...both, cpuMsPerRequest: cpu() };
  compare(ctx, "2 get", both, 1.0);
  ctx.figures.push(figure("2 get"));
}

export async function listStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const baseline = await ctx.baseline();
  const { tenant } = await listTenant(ctx);
  const pages = LIST_SEED / 100;
  await sameShape(
    ctx,
    "3 list",
    `${service.child.url}/api/lessees?page=1&limit=100`,
    `${baseline.url}/api/lessees?page=1&limit=100`,
    tenant.key,
  );
  const run = (url: string) => {
    let n = 0;
    return load({
      url,
      path: "/api/lessees?page=1&limit=100",
      apiKey: tenant.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: () => ({ path: `/api/lessees?page=${(n++ % pages) + 1}&limit=100` }),
    });
  };
  const { cpu, metered, figure } = cpuPerRequest(ctx);
  const both = await alternate(
    () => metered("service", service.child.pid, () => run(service.child.url)),
    () => metered("baseline", baseline.pid, () => run(baseline.url)),
  );
  ctx.raw.list = { ...both, rowsPerTenant: LIST_SEED, cpuMsPerRequest: cpu() };
  compare(ctx, "3 list", both, 0.9);
  ctx.figures.push(figure("3 list"));
}
