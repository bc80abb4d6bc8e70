import { randomUUID } from "node:crypto";
import pg from "pg";
import { createPostgresSql } from "../../src/platform/db.ts";
import { appendToStream } from "../../src/platform/eventstore/postgres/appendToStream.ts";
import { migrate } from "../../src/platform/migrate.ts";

const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
const name = "pms_bench_exp_" + Date.now();
await admin.query(`CREATE DATABASE ${name}`);
const sql = createPostgresSql(`postgres://postgres@127.0.0.1:5432/${name}`);
await migrate(sql);
let inFlight = false,
  again = false,
  sent = 0;
const run = () => {
  inFlight = true;
  again = false;
  sent++;
  sql
    .query("SELECT pg_notify('pms_events', '')")
    .catch(() => {})
    .finally(() => {
      inFlight = false;
      if (again) run();
    });
};
const trigger = () => {
  if (inFlight) again = true;
  else run();
};
const data = JSON.parse(process.env.DATA ?? '{"a":1}');
for (const mode of ["none", "coalesced", "none", "coalesced"]) {
  let n = 0;
  sent = 0;
  const end = Date.now() + 4000;
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (Date.now() < end) {
        const id = randomUUID();
        await appendToStream(
          sql,
          `s-${id}`,
          [{ event_id: randomUUID(), type: "X", data, metadata: { tenant_id: id } as any }],
          "no_stream",
          { notify: false },
        );
        if (mode === "coalesced") trigger();
        n++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  console.log(mode, n / 4, "/s", "notifies", sent, "node cpu %", Math.round((cpu.user + cpu.system) / 40000));
}
await sql.close();
await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();
