import { randomUUID } from "node:crypto";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { runProjections } from "../../src/platform/projections/runProjections.ts";
import { count, counterProjection } from "./counterProjection.ts";
import { createTestDatabase } from "./testDatabase.ts";

const db = await createTestDatabase("postgres");
const store = createPostgresEventStore(db.sql);
const tenant = randomUUID();
for (let i = 0; i < 3; i++) await count(store, tenant, randomUUID(), [1, 2]);
const p = counterProjection({ name: "c_once" });
const log = {
  info: (m: string) => console.log("I", m),
  error: (e: unknown, m: string) => console.log("E", m, e),
};
const rt = runProjections({ sql: db.sql, store, projections: [p], log });
console.log(await rt.waitFor((await store.headPosition())!, 10000));
const cp = async () =>
  (
    await db.sql.query("select events_applied, commit_position, prepare_position from projection_checkpoints")
  )[0];
console.log(await cp());
for (let s = 0; s < 25; s++)
  await count(
    store,
    tenant,
    randomUUID(),
    Array.from({ length: 100 }, (_, i) => i),
  );
console.log(
  await rt.waitFor((await store.headPosition())!, 20000),
  await cp(),
  JSON.stringify(p.control.batches),
);
await rt.stop();
await store.close();
await db.drop();
