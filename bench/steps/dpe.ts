import { existsSync } from "node:fs";
import pg from "pg";
import { ROOT } from "../lib/children.ts";
import { atMost, type Context, type Tenant } from "../lib/context.ts";
import { cpuMeter, databaseCpuMeter } from "../lib/cpu.ts";
import { load } from "../lib/load.ts";
import { sleep } from "../lib/stats.ts";

const PER_TENANT = 100_000;
const CHUNK = 10_000;
const LABELS = ["A", "B", "C", "D", "E", "F", "G"];
const CATCH_UP_LIMIT_MS = 10 * 60_000;

/**
 * EnergyDiagnosisRecorded events (the shape of src/events/energyDiagnoses.ts), appended in bulk
 * with SQL into the service's log: one new stream each, labels A-G in turn, 1,000 places.
 */
async function seedDiagnoses(client: pg.Client, tenant: string, salt: number): Promise<void> {
  for (let start = 0; start < PER_TENANT; start += CHUNK) {
    await client.query(
      `INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
       SELECT g.id, 'energy_diagnosis-' || g.id, 0, 'EnergyDiagnosisRecorded', 1,
         jsonb_build_object(
           'diagnosis_id', g.id,
           'place_id', ('00000000-0000-4000-8000-' || lpad(to_hex($4::int * 1000 + g.i % 1000), 12, '0'))::uuid,
           'estate_id', NULL,
           'reference_number', 'DPE-' || $4::int || '-' || g.i,
           'diagnosis_date', (date '2022-01-01' + (g.i % 1000))::text,
           'valid_until', (date '2032-01-01' + (g.i % 1000))::text,
           'energy_label', ($5::text[])[1 + g.i % 7],
           'ges_label', ($5::text[])[1 + (g.i / 7) % 7],
           'construction_year', 1950 + g.i % 70,
           'energy_consumption', 80 + g.i % 400,
           'ges_emission', 5 + g.i % 90,
           'heated_area', 20 + g.i % 180,
           'notes', NULL,
           'media_id', NULL),
         jsonb_build_object('tenant_id', $1::uuid, 'actor_key_id', NULL, 'causation_id', NULL,
           'correlation_id', gen_random_uuid(),
           'occurred_at', to_char((timestamptz '2024-01-01 00:00:00+00' + g.i * interval '1 second')
                                  AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       FROM (SELECT gen_random_uuid() AS id, i FROM generate_series($2::int, $3::int) AS i) g`,
      [tenant, start, Math.min(PER_TENANT, start + CHUNK) - 1, salt, LABELS],
    );
  }
}

/**
 * The list route's two statements, built by the query module's own builder (so the bench
 * explains exactly what the route runs) and run as the service runs them: as the reader role,
 * with the tenant bound.
 */
async function explain(
  client: pg.Client,
  tenant: string,
  pageNo: number,
  after: string,
): Promise<{ list: string; count: string; keyset: string }> {
  const { listEnergyDiagnosesSql } = await import("../../src/queries/energyDiagnoses.ts");
  const statements = listEnergyDiagnosesSql(tenant, { energy_label: "D", page: pageNo, limit: 100 });
  const keyset = listEnergyDiagnosesSql(tenant, { energy_label: "D", page: 1, limit: 100, after });
  await client.query("SET ROLE pms_reader");
  await client.query("SELECT set_config('pms.tenant_id', $1, false)", [tenant]);
  const plan = async (statement: { text: string; params: unknown[] }) =>
    (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.params)).rows
      .map((r: Record<string, string>) => r["QUERY PLAN"])
      .join("\n");
  try {
    // Once unmeasured: the first statement on a connection also loads the catalog caches.
    await plan(statements.page);
    return {
      list: await plan(statements.page),
      count: await plan(statements.count),
      keyset: await plan(keyset.page),
    };
  } finally {
    await client.query("RESET ROLE");
  }
}

/** Step 7: GET /api/energy-diagnoses?energy_label=D, 100,000 diagnoses in each of two tenants. */
export async function dpeStep(ctx: Context): Promise<void> {
  if (!existsSync(`${ROOT}src/queries/energyDiagnoses.ts`)) {
    console.log("  skipped: src/queries/energyDiagnoses.ts is not there yet");
    ctx.figures.push({
      step: "7 DPE list",
      metric: "skipped",
      value: "area missing",
      unit: "",
      target: "",
      pass: null,
    });
    return;
  }
  const service = await ctx.service();
  const mine: Tenant = await service.newTenant("bench-dpe-a");
  const other: Tenant = await service.newTenant("bench-dpe-b");
  const client = new pg.Client({ connectionString: await ctx.mainDatabase() });
  await client.connect();
  try {
    let t = Date.now();
    await seedDiagnoses(client, mine.id, 1);
    await seedDiagnoses(client, other.id, 2);
    await client.query("SELECT pg_notify('pms_events', '')");
    const seeded = Date.now() - t;
    // The service's own projectors build the read model from those events.
    t = Date.now();
    for (;;) {
      const res = await fetch(`${service.child.url}/api/health/ready`).catch(() => null);
      if (res?.status === 200) break;
      if (Date.now() - t > CATCH_UP_LIMIT_MS)
        throw new Error("projections did not catch up with the seeded diagnoses");
      await sleep(500);
    }
    const caughtUp = Date.now() - t;
    const [{ rows: projected }] = (
      await client.query("SELECT count(*)::int AS rows FROM energy_diagnoses WHERE tenant_id = $1", [mine.id])
    ).rows;
    if (projected !== PER_TENANT) throw new Error(`energy_diagnoses holds ${projected} rows of the tenant`);
    // What autovacuum does shortly after a bulk load; without it counts cannot use index-only scans.
    await client.query("VACUUM (ANALYZE) energy_diagnoses");
    const [{ d }] = (
      await client.query(
        "SELECT count(*)::int AS d FROM energy_diagnoses WHERE tenant_id = $1 AND energy_label = 'D'",
        [mine.id],
      )
    ).rows;
    const pages = Math.ceil(d / 100);
    console.log(
      `  seeded ${2 * PER_TENANT} diagnosis events in ${seeded} ms; projected in ${caughtUp} ms; ${d} with label D (${pages} pages)`,
    );

    // CPU per request of the service's node process and of PostgreSQL (every backend of the
    // machine: other work on a shared machine counts too), over the 32-connection run.
    const meter = cpuMeter(service.child.pid);
    const dbMeter = await databaseCpuMeter(client);
    const r = await load({
      url: service.child.url,
      path: "/api/energy-diagnoses?energy_label=D&page=1&limit=100",
      apiKey: mine.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: () => ({
        path: `/api/energy-diagnoses?energy_label=D&page=${1 + Math.floor(Math.random() * pages)}&limit=100`,
      }),
    });
    const used = meter.stop();
    const served = Math.max(1, r.rps * r.seconds);
    const cpu = {
      node: used.node / served,
      postgres: used.postgres / served,
      database: (await dbMeter.stop()) / served,
    };
    // Closed-loop load: latency = connections / throughput (Little's law). One connection shows
    // what a request costs without queueing behind 31 others.
    const single = await load({
      url: service.child.url,
      path: "/api/energy-diagnoses?energy_label=D&page=1&limit=100",
      apiKey: mine.key,
      connections: 1,
      seconds: Math.min(5, ctx.seconds),
      next: () => ({
        path: `/api/energy-diagnoses?energy_label=D&page=${1 + Math.floor(Math.random() * pages)}&limit=100`,
      }),
    });
    // The same pages by keyset cursor (`after`, the Link header's rel="next"): the cursor of
    // every 100th row, precomputed, one at random per request ("" is the first page).
    const cursors = [
      "",
      ...(
        await client.query(
          `SELECT c FROM (SELECT (extract(epoch FROM created_at) * 1000000)::bigint || '_' || id AS c,
                  row_number() OVER (ORDER BY created_at, id) AS n
             FROM energy_diagnoses WHERE tenant_id = $1 AND energy_label = 'D') r
           WHERE n % 100 = 0 ORDER BY n`,
          [mine.id],
        )
      ).rows.map((row: { c: string }) => row.c),
    ];
    const byCursor = () => ({
      path: `/api/energy-diagnoses?energy_label=D&limit=100&after=${cursors[Math.floor(Math.random() * cursors.length)]}`,
    });
    const keysetMeter = cpuMeter(service.child.pid);
    const keysetDbMeter = await databaseCpuMeter(client);
    const keyset = await load({
      url: service.child.url,
      path: "/api/energy-diagnoses?energy_label=D&limit=100&after=",
      apiKey: mine.key,
      connections: ctx.connections,
      seconds: ctx.seconds,
      next: byCursor,
    });
    const keysetUsed = keysetMeter.stop();
    const keysetServed = Math.max(1, keyset.rps * keyset.seconds);
    const keysetCpu = {
      node: keysetUsed.node / keysetServed,
      postgres: keysetUsed.postgres / keysetServed,
      database: (await keysetDbMeter.stop()) / keysetServed,
    };
    // The middle page: the deepest an offset goes (later pages are read from the end).
    const middle = Math.ceil(pages / 2);
    const plans = await explain(client, mine.id, middle, cursors[middle - 1]);
    console.log(
      `\n  EXPLAIN (ANALYZE, BUFFERS) list, page ${Math.ceil(pages / 2)} of ${pages}:\n${indent(plans.list)}`,
    );
    console.log(
      `\n  EXPLAIN (ANALYZE, BUFFERS) count (run inside the list's statement):\n${indent(plans.count)}\n`,
    );
    console.log(`\n  EXPLAIN (ANALYZE, BUFFERS) the same page by cursor:\n${indent(plans.keyset)}\n`);
    ctx.raw.dpe = {
      load: r,
      rowsPerTenant: PER_TENANT,
      labelD: d,
      seededMs: seeded,
      projectedMs: caughtUp,
      cpuMsPerRequest: cpu,
      keyset: { load: keyset, cpuMsPerRequest: keysetCpu },
      plans,
    };
    ctx.figures.push(
      {
        step: "7 DPE list",
        metric: "req/s",
        value: r.rps,
        unit: "req/s",
        target: "",
        pass: null,
        note: `pages 1-${pages} at random; seeded as events, projected by the service in ${(caughtUp / 1000).toFixed(1)} s; CPU per request: service node ${cpu.node.toFixed(2)} ms + the database's backends ${cpu.database.toFixed(2)} ms (all PostgreSQL ${cpu.postgres.toFixed(2)} ms)`,
      },
      {
        step: "7 DPE list",
        metric: "p99",
        value: r.p99,
        unit: "ms",
        target: "≤ 20 ms",
        pass: atMost(r.p99, 20) && r.non2xx === 0,
        note: `p50 ${r.p50} ms${r.non2xx ? `; non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}` : ""}`,
      },
      {
        step: "7 DPE list",
        metric: "keyset req/s",
        value: keyset.rps,
        unit: "req/s",
        target: "",
        pass: null,
        note: `the same pages by cursor (after=), at random; CPU per request: service node ${keysetCpu.node.toFixed(2)} ms + the database's backends ${keysetCpu.database.toFixed(2)} ms (all PostgreSQL ${keysetCpu.postgres.toFixed(2)} ms)`,
      },
      {
        step: "7 DPE list",
        metric: "keyset p99",
        value: keyset.p99,
        unit: "ms",
        target: "≤ 20 ms",
        pass: atMost(keyset.p99, 20) && keyset.non2xx === 0,
        note: `p50 ${keyset.p50} ms${keyset.non2xx ? `; non-2xx ${keyset.non2xx} ${JSON.stringify(keyset.statusCodes)}` : ""}`,
      },
      {
        step: "7 DPE list",
        metric: "p99, 1 connection",
        value: single.p99,
        unit: "ms",
        target: "",
        pass: null,
        note: `p50 ${single.p50} ms, ${single.rps} req/s: the cost of one request without queueing`,
      },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
