import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import pg from "pg";
import { lesseeRegisteredData } from "../bench/lib/lessees.ts";
import { createPostgresSql, type Sql } from "../src/platform/db.ts";
import { createPostgresEventStore } from "../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../src/platform/migrate.ts";

const base = "postgres://postgres@127.0.0.1:5432/postgres";
const name = `pms_prep_${randomUUID().slice(0, 8)}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = base.replace(/\/postgres$/, `/${name}`);
const sql = createPostgresSql(url, { max: 32 });
await migrate(sql);
const unprepared: Sql = { ...sql, query: (t, p) => sql.query(t, p) };
const stores = { prepared: createPostgresEventStore(sql), unprepared: createPostgresEventStore(unprepared) };
const tenant = randomUUID();
const one = async (store: typeof stores.prepared) => {
  const id = randomUUID();
  await store.appendToStream(
    `lessee-${id}`,
    [
      {
        event_id: randomUUID(),
        type: "LesseeRegistered",
        data: lesseeRegisteredData(id, `${id}@x.test`, 0),
        metadata: {
          tenant_id: tenant,
          actor_key_id: null,
          correlation_id: randomUUID(),
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      },
    ],
    { expected_revision: "no_stream" },
  );
};
const run = async (kind: keyof typeof stores, writers: number, ms: number) => {
  const lat: number[] = [];
  const end = Date.now() + ms;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (Date.now() < end) {
        const t = performance.now();
        await one(stores[kind]);
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  const s = (performance.now() - t0) / 1000;
  return {
    perSec: Math.round(lat.length / s),
    p50: +lat[Math.floor(lat.length / 2)].toFixed(2),
    p99: +lat[Math.floor(lat.length * 0.99)].toFixed(2),
  };
};
for (const k of ["prepared", "unprepared"] as const) await run(k, 32, 500);
const writers = Number(process.env.W ?? 1);
for (let i = 0; i < 3; i++) {
  const order = i % 2 ? (["unprepared", "prepared"] as const) : (["prepared", "unprepared"] as const);
  const r: Record<string, unknown> = {};
  for (const k of order) r[k] = await run(k, writers, 3000);
  console.log(`pair ${i + 1} writers=${writers}`, JSON.stringify(r), "load", loadavg()[0].toFixed(1));
}
await sql.close();
await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();
