import { randomUUID } from "node:crypto";
import { createEmbeddedSql } from "/work/main/src/platform/db.ts";
import { migrate } from "/work/main/src/platform/migrate.ts";
import { createPostgresEventStore } from "/work/main/src/platform/eventstore/postgres/postgresEventStore.ts";
const sql = await createEmbeddedSql(undefined);
await migrate(sql);
const store = createPostgresEventStore(sql);
const md = { tenant_id: randomUUID(), actor_key_id: null, correlation_id: null, causation_id: null, occurred_at: new Date().toISOString() };
const s = performance.now();
let r = 0, a = 0;
for (let i = 0; i < 1000; i++) { const t0 = performance.now();
  await store.readStream(`x-${i}`);
  const t1 = performance.now(); r += t1 - t0;
  await store.appendToStream(`x-${i}`, [{ event_id: randomUUID(), type: "T", data: { a: i, pad: "x".repeat(500) }, metadata: md }], { expected_revision: "no_stream" }); a += performance.now() - t1;
}
console.log({r: Math.round(r), a: Math.round(a)}, "embedded 1000 read+append serial ms", Math.round(performance.now() - s));
await sql.close();
