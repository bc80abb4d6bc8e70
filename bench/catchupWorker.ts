import { PERSONAL_DATA } from "../src/events/personalData.ts";
import { createPostgresSql } from "../src/platform/db.ts";
import { createPostgresEventStore } from "../src/platform/eventstore/postgres/postgresEventStore.ts";
import { withPersonalData } from "../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../src/platform/personalData/codecOf.ts";
import { rebuildProjection } from "../src/platform/projections/rebuildProjection.ts";
import { lesseesProjection } from "../src/projections/lessees.ts";
import { procMemory } from "./lib/rss.ts";

/**
 * Step 5's measured part, alone in its process so its memory is the rebuild's: rebuilds the
 * lessees projection over DATABASE_URL's log and prints BENCH_RESULT {events, ms, ...}.
 */
const sql = createPostgresSql(process.env.DATABASE_URL!);
// DECRYPT=1: personal fields decrypted on the way, as the service's projector reads them.
const store = process.env.DECRYPT
  ? withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA))
  : createPostgresEventStore(sql);
try {
  const before = procMemory(process.pid);
  const started = performance.now();
  const result = await rebuildProjection(sql, store, lesseesProjection);
  const ms = performance.now() - started;
  const [{ rows }] = await sql.query("SELECT count(*)::int AS rows FROM lessees");
  const after = procMemory(process.pid);
  console.log(
    `BENCH_RESULT ${JSON.stringify({ events: result.events, ms, rows, rssBefore: before?.rss, rssAfter: after?.rss, hwm: after?.hwm })}`,
  );
} finally {
  await store.close();
  await sql.close();
}
