import { randomUUID } from "node:crypto";
import pg from "pg";
import { createPostgresSql } from "/work/main/src/platform/db.ts";
import { appendToStream } from "/work/main/src/platform/eventstore/postgres/appendToStream.ts";
import { migrate } from "/work/main/src/platform/migrate.ts";

const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
const name = "pms_bench_exp_" + Date.now();
await admin.query(`CREATE DATABASE ${name}`);
const sql = createPostgresSql(`postgres://postgres@127.0.0.1:5432/${name}`);
await migrate(sql);
for (const notify of [true, false, true, false]) {
  let n = 0;
  const end = Date.now() + 3000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (Date.now() < end) {
        const id = randomUUID();
        await appendToStream(
          sql,
          `s-${id}`,
          [{ event_id: randomUUID(), type: "X", data: { a: 1 }, metadata: { tenant_id: id } as any }],
          "no_stream",
          { notify },
        );
        n++;
      }
    }),
  );
  console.log("notify", notify, n / 3, "/s");
}
await sql.close();
await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();
