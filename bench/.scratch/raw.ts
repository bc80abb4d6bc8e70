import pg from "pg";

const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
const name = "pms_bench_exp_" + Date.now();
await admin.query(`CREATE DATABASE ${name}`);
const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}`, max: 20 });
await pool.query("CREATE TABLE t (id bigserial primary key, s text, d jsonb)");
for (const [label, q] of [
  ["insert", "INSERT INTO t (s, d) VALUES ($1, '{}')"],
  [
    "insert+notify",
    "WITH i AS (INSERT INTO t (s, d) VALUES ($1, '{}') RETURNING 1) SELECT pg_notify('x', '') FROM i",
  ],
  ["select", "SELECT $1::text"],
] as const) {
  let n = 0;
  const end = Date.now() + 3000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (Date.now() < end) {
        await pool.query(q, ["x"]);
        n++;
      }
    }),
  );
  console.log(label, n / 3, "/s");
}
await pool.end();
await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();
