import { writeFile } from "node:fs/promises";
import pg from "pg";
import { createPostgresSql } from "../../src/platform/db.ts";
import { PERMISSIONS } from "../../src/platform/http/auth.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { runScript } from "../lib/children.ts";
import { atMost, type Context, startServiceOn } from "../lib/context.ts";
import { seedActiveLeases, untilLeasesProjected } from "../lib/leases.ts";
import { lesseeRegisteredData, waitReady } from "../lib/lessees.ts";
import { load } from "../lib/load.ts";
import { sampleRss } from "../lib/rss.ts";
import { mb, round } from "../lib/stats.ts";

/**
 * Issue 44, "A national portfolio" (BENCH_BIG=1, or BENCH_ONLY=national): one database of
 * BENCH_NATIONAL_EVENTS events (default 10,000,000), a tenth of them leases' units, over 10,000
 * tenants, one of which holds BENCH_NATIONAL_TENANT_LEASES leases (default 100,000). Measures the
 * generation, the lessees rebuild (rate and peak RSS) at 100k, 1M and the full size, the events
 * table's size and the plans of the catch-up and stream reads, then every top-level list route's
 * p99 at 32 connections on the big tenant (docs/scaling.md).
 *
 * The log: the big tenant's leases (LeaseCreated, LeaseActivated) and lessees (LesseeRegistered),
 * then units of 10 events for the other tenants: one lease (2 events) and 8 lessees, all written by
 * server-side INSERT ... SELECT generate_series in the stored format, hash chain NULL as for rows
 * from before the chain (nothing verifies the chain on read; `pms audit backfill` would chain them).
 * The service projects the big tenant's events; the other tenants' read-model rows are copies of
 * the big tenant's (tenant_id replaced, 9 copies) and the checkpoints are moved to the log's head,
 * so the read-model tables hold 1,000,000 leases without projecting 10 million events first.
 */
const EVENTS = Number(process.env.BENCH_NATIONAL_EVENTS ?? 10_000_000);
const TENANT_LEASES = Number(process.env.BENCH_NATIONAL_TENANT_LEASES ?? 100_000);
const LIST_SECONDS = Number(process.env.BENCH_NATIONAL_LIST_SECONDS ?? 5);
const OTHER_TENANTS = 9_999;
const UNIT_CHUNK = 10_000; // 100,000 events per statement
const P99_TARGET = 50;
const RSS_LIMIT = 300 * 1024 * 1024;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The big tenant's lessees: `count` LesseeRegistered events, one stream each. */
async function seedTenantLessees(url: string, tenantId: string, count: number) {
  const template = lesseeRegisteredData("00000000-0000-0000-0000-000000000000", "x@example.test", 0);
  const metadata = { tenant_id: tenantId, actor_key_id: null, causation_id: null };
  await withClient(url, async (c) => {
    for (let start = 0; start < count; start += 100_000) {
      await c.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
         SELECT g.id, 'lessee-' || g.id, 0, 'LesseeRegistered', 1,
           $1::jsonb || jsonb_build_object('lessee_id', g.id, 'email', 'big-' || g.i || '@example.test',
                                           'last_name', 'Martin ' || g.i),
           $2::jsonb || jsonb_build_object('correlation_id', gen_random_uuid(), 'occurred_at',
             to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series($3::int, $4::int) AS i) g`,
        [JSON.stringify(template), JSON.stringify(metadata), start, Math.min(count, start + 100_000) - 1],
      );
    }
  });
}

/**
 * Units [from, to) of the other tenants: per unit a lease stream (LeaseCreated, LeaseActivated)
 * and 8 lessee streams, tenant `md5('national-' || unit % 9999)`.
 */
async function seedUnits(url: string, from: number, to: number) {
  const lessee = lesseeRegisteredData("00000000-0000-0000-0000-000000000000", "x@example.test", 0);
  const terms = {
    lease_type: "UNFURNISHED",
    usage_type: null,
    start_date: "2025-01-01",
    end_date: null,
    duration_months: null,
    rent_amount: 800,
    charges_amount: 50,
    charge_settlement_mode: null,
    deposit_amount: null,
    rent_frequency: "MONTHLY",
    payment_terms: "TERME_A_ECHOIR",
    payment_method: null,
    payment_day: 5,
    revision_index_type: null,
    revision_reference_quarter: null,
    revision_reference_value: null,
    special_conditions: null,
    custom_fields: null,
  };
  await withClient(url, async (c) => {
    for (let start = from; start < to; start += UNIT_CHUNK) {
      const end = Math.min(to, start + UNIT_CHUNK) - 1;
      await c.query(
        `WITH u AS (
           SELECT i, gen_random_uuid() AS lease, gen_random_uuid() AS estate,
             md5('national-' || (i % ${OTHER_TENANTS}))::uuid::text AS tenant,
             jsonb_build_object('occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'actor_key_id', null, 'causation_id', null, 'correlation_id', gen_random_uuid()) AS meta
           FROM generate_series($3::int, $4::int) AS i)
         INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
         SELECT gen_random_uuid(), e.stream, e.rev, e.type, 1, e.data, u.meta || jsonb_build_object('tenant_id', u.tenant)
         FROM u CROSS JOIN LATERAL (
           SELECT 'lease-' || u.lease AS stream, 0 AS rev, 'LeaseCreated' AS type,
             $1::jsonb || jsonb_build_object('lease_id', u.lease, 'estate_id', u.estate) AS data, 0 AS k
           UNION ALL SELECT 'lease-' || u.lease, 1, 'LeaseActivated',
             jsonb_build_object('lease_id', u.lease, 'effective_date', '2025-01-01', 'reason', null), 1
           UNION ALL SELECT 'lessee-' || l.id, 0, 'LesseeRegistered',
             $2::jsonb || jsonb_build_object('lessee_id', l.id, 'email', 'n' || u.i || '-' || l.k || '@example.test',
                                             'last_name', 'Durand ' || u.i), 1 + l.k
           FROM (SELECT gen_random_uuid() AS id, k FROM generate_series(1, 8) AS k) l
         ) AS e
         ORDER BY u.i, e.k`,
        [JSON.stringify(terms), JSON.stringify(lessee), start, end],
      );
    }
  });
}

async function countEvents(url: string): Promise<number> {
  return withClient(url, async (c) =>
    Number((await c.query("SELECT count(*)::bigint AS n FROM events")).rows[0].n),
  );
}

async function rebuildAt(ctx: Context, url: string, label: string) {
  const total = await countEvents(url);
  let rss: ReturnType<typeof sampleRss> | null = null;
  const result = await runScript(
    "catch-up",
    "bench/catchupWorker.ts",
    { DATABASE_URL: url },
    60 * 60_000,
    (pid) => {
      rss = sampleRss(pid, 100);
    },
  );
  const memory = (rss as ReturnType<typeof sampleRss> | null)?.stop();
  const perSecond = round(result.events / (result.ms / 1000), 0);
  const peak = Math.max(memory?.peak ?? 0, result.hwm ?? 0);
  ctx.raw[`national_rebuild_${label}`] = { ...result, perSecond, total, sampledRss: memory };
  ctx.figures.push(
    {
      step: `national rebuild ${label}`,
      metric: "rebuildProjection(lessees) events/s",
      value: perSecond,
      unit: "/s",
      target: "",
      pass: result.events === total ? null : false,
      note: `${result.events} of ${total} events, ${result.rows} rows in ${round(result.ms / 1000)} s`,
    },
    {
      step: `national rebuild ${label}`,
      metric: "rebuild process peak RSS",
      value: mb(peak),
      unit: "MB",
      target: "≤ 300 MB, flat",
      pass: atMost(peak, RSS_LIMIT),
    },
  );
}

/** EXPLAIN (ANALYZE, BUFFERS) of the catch-up page read mid-log and of one stream's read. */
async function plans(ctx: Context, url: string) {
  await withClient(url, async (c) => {
    const size = (
      await c.query(
        `SELECT pg_total_relation_size('events') AS total, pg_relation_size('events') AS heap,
           pg_indexes_size('events') AS indexes,
           (SELECT json_object_agg(indexrelname, pg_relation_size(indexrelid)) FROM pg_stat_user_indexes
            WHERE relname = 'events') AS per_index`,
      )
    ).rows[0];
    const mid = (
      await c.query(
        "SELECT transaction_id::text AS t, position::text AS p FROM events ORDER BY position OFFSET (SELECT count(*) / 2 FROM events) LIMIT 1",
      )
    ).rows[0];
    const stream = (await c.query("SELECT stream_name FROM events ORDER BY position DESC LIMIT 1")).rows[0]
      .stream_name;
    const explain = async (text: string, params: unknown[]) =>
      (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
    const catchup = await explain(
      `SELECT * FROM events WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
         AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY events.transaction_id, events.position LIMIT 1000`,
      [mid.t, mid.p],
    );
    const streamRead = await explain(
      "SELECT * FROM events WHERE stream_name = $1 AND stream_revision >= 0 ORDER BY stream_revision LIMIT 10000",
      [stream],
    );
    ctx.raw.national_events_table = { ...size, plans: { catchup, stream: streamRead } };
    console.log(
      `  events table ${mb(Number(size.total))} MB (heap ${mb(Number(size.heap))}, indexes ${mb(Number(size.indexes))})`,
    );
    console.log(
      `  catch-up page plan:\n${catchup.replace(/^/gm, "    ")}\n  stream read plan:\n${streamRead.replace(/^/gm, "    ")}`,
    );
    ctx.figures.push({
      step: "national events table",
      metric: "total size (heap + indexes)",
      value: mb(Number(size.total)),
      unit: "MB",
      target: "",
      pass: null,
      note: `heap ${mb(Number(size.heap))} MB, indexes ${JSON.stringify(
        Object.fromEntries(
          Object.entries(size.per_index as Record<string, number>).map(([k, v]) => [k, mb(v)]),
        ),
      )} MB`,
    });
  });
}

/** 9 copies of the big tenant's read-model rows under other tenants (see the header). */
async function copyReadModels(url: string, tenantId: string) {
  await withClient(url, async (c) => {
    const tables = (
      await c.query(
        `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id' AND c.data_type = 'uuid' AND t.table_type = 'BASE TABLE'
           AND c.table_name NOT IN ('api_keys', 'tenants', 'idempotency_keys') ORDER BY 1`,
      )
    ).rows.map((r) => r.table_name as string);
    for (const table of tables) {
      const t = pg.escapeIdentifier(table);
      const has = (await c.query(`SELECT 1 FROM ${t} WHERE tenant_id = $1 LIMIT 1`, [tenantId])).rowCount;
      if (!has) continue;
      for (let k = 0; k < 9; k++) {
        await c.query(
          `INSERT INTO ${t} SELECT (jsonb_populate_record(NULL::${t},
             to_jsonb(x) || jsonb_build_object('tenant_id', md5('national-' || $2::int)::uuid))).*
           FROM ${t} x WHERE tenant_id = $1 ON CONFLICT DO NOTHING`,
          [tenantId, k],
        );
      }
    }
    await c.query(
      `UPDATE projection_checkpoints SET (commit_position, prepare_position) =
         (SELECT transaction_id::text::bigint, position FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1)`,
    );
    await c.query("VACUUM (ANALYZE)");
  });
}

/** GET paths of the contract without path parameters whose 200 answer is an array. */
async function listPaths(serviceUrl: string): Promise<string[]> {
  const doc = (await (await fetch(`${serviceUrl}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, any>>;
  };
  return Object.entries(doc.paths)
    .filter(([path, ops]) => !path.includes("{") && !path.startsWith("/api/admin") && ops.get)
    .filter(([, ops]) => {
      const schema = ops.get.responses?.["200"]?.content?.["application/json"]?.schema;
      return schema?.type === "array";
    })
    .map(([path]) => path)
    .sort();
}

export async function nationalStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("national");
  const sql = createPostgresSql(url, { max: 2 });
  try {
    await migrate(sql);
  } finally {
    await sql.close();
  }
  const otherUnits = Math.max(0, Math.floor((EVENTS - 3 * TENANT_LEASES) / 10));
  // The service's tenant is the big one; the service projects its events, then stops while the rest is written.
  let service = await startServiceOn(url, ctx.runId);
  const tenant = service.tenant;
  let t = Date.now();
  await seedTenantLessees(url, tenant.id, TENANT_LEASES);
  const lesseesMs = Date.now() - t;
  await rebuildAt(ctx, url, `${Math.round(TENANT_LEASES / 1000)}k`);
  t = Date.now();
  await seedActiveLeases(url, tenant.id, TENANT_LEASES);
  const leasesMs = Date.now() - t;
  await untilLeasesProjected(url, tenant.id, TENANT_LEASES, 30 * 60_000);
  await waitReady(service.child.url);
  await service.child.stop();
  const generation: Record<string, number> = { lesseesMs, leasesMs };
  const firstStop = Math.max(0, Math.min(otherUnits, Math.floor((1_000_000 - 3 * TENANT_LEASES) / 10)));
  t = Date.now();
  await seedUnits(url, 0, firstStop);
  generation.to1MMs = Date.now() - t;
  await withClient(url, (c) => c.query("VACUUM (ANALYZE) events"));
  await rebuildAt(ctx, url, "1M");
  t = Date.now();
  await seedUnits(url, firstStop, otherUnits);
  generation.restMs = Date.now() - t;
  t = Date.now();
  await withClient(url, (c) => c.query("VACUUM (ANALYZE) events"));
  generation.vacuumMs = Date.now() - t;
  const total = await countEvents(url);
  const seedMs = lesseesMs + leasesMs + generation.to1MMs + generation.restMs;
  ctx.raw.national_generation = { ...generation, total, units: otherUnits };
  ctx.figures.push({
    step: "national generation",
    metric: "events written (server-side SQL)",
    value: round(total / (seedMs / 1000), 0),
    unit: "/s",
    target: "",
    pass: null,
    note: `${total} events, ${otherUnits + TENANT_LEASES} leases, ${OTHER_TENANTS + 1} tenants in ${round(seedMs / 1000)} s (+ ${round(generation.vacuumMs / 1000)} s VACUUM ANALYZE)`,
  });
  console.log(`  generated ${total} events in ${round(seedMs / 1000)} s`);
  await plans(ctx, url);
  if (total > 1_500_000) await rebuildAt(ctx, url, `${round(total / 1e6, 1)}M`);

  t = Date.now();
  await copyReadModels(url, tenant.id);
  ctx.raw.national_copyMs = Date.now() - t;
  service = await startServiceOn(url, `${ctx.runId}-lists`);
  const key = await fetch(`${service.child.url}/api/admin/tenants/${tenant.id}/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "national", permissions: PERMISSIONS }),
  }).then(async (r) => ((await r.json()) as { key: string }).key);
  const routes: Record<string, unknown> = {};
  for (const path of await listPaths(service.child.url)) {
    const first = await fetch(`${service.child.url}${path}?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const totalRows = Number(first.headers.get("x-total-count") ?? 0);
    await first.arrayBuffer();
    if (first.status !== 200) {
      routes[path] = { status: first.status };
      continue;
    }
    const pages = Math.max(1, Math.ceil(totalRows / 100));
    let n = 0;
    const r = await load({
      url: service.child.url,
      path: `${path}?limit=100`,
      apiKey: key,
      connections: ctx.connections,
      seconds: LIST_SECONDS,
      // Pages at random over the whole list (a stride prime to most page counts).
      next: () => ({ path: `${path}?page=${((n++ * 7919) % pages) + 1}&limit=100` }),
    });
    routes[path] = { total: totalRows, ...r };
    const ok = r.non2xx === 0 && r.errors === 0 && r.timeouts === 0;
    ctx.figures.push({
      step: "national list",
      metric: `GET ${path} p99`,
      value: r.p99,
      unit: "ms",
      target: `≤ ${P99_TARGET} ms`,
      pass: ok && atMost(r.p99, P99_TARGET),
      note: `${totalRows} rows, ${r.rps} req/s, p50 ${r.p50} ms${ok ? "" : `, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}`}`,
    });
  }
  ctx.raw.national_lists = routes;
  await service.child.stop();
  await writeFile(
    new URL("../results/national-latest.json", import.meta.url),
    `${JSON.stringify(ctx.raw, null, 2)}\n`,
  );
}
