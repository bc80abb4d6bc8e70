import { createPostgresSql } from "../../src/platform/db.ts";
import { START } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { databases } from "../lib/databases.ts";
import { seedLesseeEventsForProfile } from "./seed.ts";

const dbs = databases("postgres://postgres@127.0.0.1:5432/postgres");
try {
  const url = await dbs.create("prof");
  const sql = createPostgresSql(url);
  await migrate(sql);
  await seedLesseeEventsForProfile(url, 0, Number(process.env.N ?? 30000));
  const store = createPostgresEventStore(sql);
  await sql.exec(`CREATE SCHEMA shadow; SET search_path TO shadow, public;`);
  await sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL search_path TO shadow, public; ${lesseesProjection.schema}`);
  });
  let position = START;
  let count = 0;
  const t = { read: 0, apply: 0 };
  const t0 = performance.now();
  for (;;) {
    let a = performance.now();
    const events = await store.readAll({ after: position, max_count: 1000 });
    t.read += performance.now() - a;
    if (!events.length) break;
    a = performance.now();
    await sql.transaction(async (tx) => {
      await tx.exec("SET LOCAL search_path TO shadow, public");
      await lesseesProjection.applyBatch(tx, events);
    });
    t.apply += performance.now() - a;
    position = events[events.length - 1].position;
    count += events.length;
  }
  const total = performance.now() - t0;
  console.log({
    count,
    total: Math.round(total),
    perSec: Math.round((count / total) * 1000),
    read: Math.round(t.read),
    apply: Math.round(t.apply),
  });
  const c = await sql.query(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT event_id::text, type, schema_version, data, metadata, stream_name, stream_revision, position, transaction_id::text AS transaction_id, created_at FROM events WHERE (transaction_id, position) > ('0'::text::xid8, '15000'::bigint) AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY transaction_id, position LIMIT 1000`,
  );
  console.log(c.map((r: any) => r["QUERY PLAN"]).join("\n"));
  await store.close();
  await sql.close();
} finally {
  await dbs.dropAll();
}
