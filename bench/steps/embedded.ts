import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { type Child, startChild } from "../lib/children.ts";
import { atLeast, type Context, tenantsOf } from "../lib/context.ts";
import { lesseeBody, seedLessees, waitReady } from "../lib/lessees.ts";
import { alternate, load } from "../lib/load.ts";
import { sampleRss } from "../lib/rss.ts";
import { mb, medianSpread, round } from "../lib/stats.ts";

/**
 * The embedded mode (no DATABASE_URL: the service starts its own PostgreSQL under PMS_DATA_DIR)
 * against the same service on the external server of BENCH_DATABASE_URL: lessee create and get,
 * in turns. BENCH_EMBEDDED_ROOT runs another checkout's `src/main.ts` as the embedded side (with its
 * own node_modules), e.g. an older tree whose embedded store was PGlite.
 */
const SEED = 300;

export async function embeddedStep(ctx: Context): Promise<void> {
  const external = await ctx.service();
  const dataDir = await mkdtemp(join(tmpdir(), "pms-bench-embedded-"));
  const adminKey = `bench_admin_${ctx.runId}_0123456789abcdef0123456789`;
  let child: Child | null = null;
  try {
    const started = Date.now();
    child = await startChild(
      "embedded",
      "src/main.ts",
      {
        DATABASE_URL: "",
        PMS_DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        PMS_ADMIN_API_KEY: adminKey,
        PMS_RATE_LIMIT_PER_MINUTE: "0",
      },
      { cwd: process.env.BENCH_EMBEDDED_ROOT },
    );
    const firstStart = Date.now() - started;
    const embedded = { child, ...(await tenantsOf(child, adminKey, ctx.runId)) };
    const rss = sampleRss(child.pid);

    const create = (url: string, key: string, tag: string) => {
      let n = 0;
      return load({
        url,
        path: "/api/lessees",
        method: "POST",
        apiKey: key,
        connections: ctx.connections,
        seconds: ctx.seconds,
        next: () => ({ body: JSON.stringify(lesseeBody(`emb-${ctx.runId}-${tag}-${++n}@example.test`, n)) }),
      });
    };
    const created = await alternate(
      (i) => create(child!.url, embedded.tenant.key, `e${i}`),
      (i) => create(external.child.url, external.tenant.key, `x${i}`),
    );
    // Recorded at once: a store that cannot keep up may fail the get half.
    compare(ctx, "7 embedded create", created);
    ctx.raw.embedded = { create: created, firstStartMs: firstStart };

    const readers = await Promise.all(
      [embedded, external].map(async (side) => {
        const tenant = await side.newTenant("bench-embedded-get");
        const ids = await seedLessees(side.child.url, tenant.key, SEED, (n) => `emb-get-${n}@example.test`);
        await waitReady(side.child.url);
        return { url: side.child.url, key: tenant.key, ids };
      }),
    );
    const get = (r: (typeof readers)[number]) =>
      load({
        url: r.url,
        path: `/api/lessees/${r.ids[0]}`,
        apiKey: r.key,
        connections: ctx.connections,
        seconds: ctx.seconds,
        next: () => ({ path: `/api/lessees/${r.ids[Math.floor(Math.random() * r.ids.length)]}` }),
      });
    const got = await alternate(
      () => get(readers[0]),
      () => get(readers[1]),
    );
    const memory = rss.stop();
    ctx.raw.embedded = { create: created, get: got, rss: memory, firstStartMs: firstStart };
    compare(ctx, "7 embedded get", got);
    ctx.figures.push(
      {
        step: "7 embedded",
        metric: "first start (initdb, migrations, ready)",
        value: round(firstStart / 1000, 1),
        unit: "s",
        target: "",
        pass: null,
      },
      {
        step: "7 embedded",
        metric: "service peak RSS (node process)",
        value: mb(memory.peak),
        unit: "MB",
        target: "",
        pass: null,
      },
    );
  } finally {
    await child?.stop();
    await removeDataDirectory(dataDir);
  }
}

function compare(ctx: Context, step: string, both: Awaited<ReturnType<typeof alternate>>) {
  const { service: embedded, baseline: external } = both;
  const ratios = medianSpread(both.ratios);
  ctx.figures.push({
    step,
    metric: "embedded / external req/s",
    value: ratios.median,
    unit: "×",
    target: "≥ 0.9×",
    pass: atLeast(ratios.median, 0.9) && embedded.non2xx === 0,
    note: `${ratios.text} interleaved pairs; embedded ${embedded.rps} req/s p99 ${embedded.p99} ms; external ${external.rps} req/s p99 ${external.p99} ms`,
  });
}
