/**
 * A projector process for the crash test (test/platform/projections.test.ts): runs the counter
 * projection over DATABASE_URL with a pg_sleep inside every batch, printing `applying <n>` once a
 * batch's rows are written, so the test can SIGKILL it in the middle of a batch.
 * Run as `node test/support/slowProjector.ts` (one process, so the kill is real).
 */
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { runProjections } from "../../src/platform/projections/runProjections.ts";
import { counterProjection } from "./counterProjection.ts";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const sql = createPostgresSql(url, { max: 4 });
const store = createPostgresEventStore(sql);
const projection = counterProjection({
  name: process.env.PROJECTION_NAME ?? "kill_counter",
  slowSeconds: Number(process.env.SLOW_SECONDS ?? "2"),
  onBatch: (events) => console.log(`applying ${events.length}`),
});
runProjections({
  sql,
  store,
  projections: [projection],
  log: { info: (m) => console.log(m), error: (e, m) => console.error(m, e) },
});
console.log("started");
