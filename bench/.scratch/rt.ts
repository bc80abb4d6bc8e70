import pg from "pg";

const c = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
await c.connect();
const ts: number[] = [];
for (let i = 0; i < 500; i++) {
  const t = performance.now();
  await c.query("SELECT 1");
  ts.push(performance.now() - t);
}
ts.sort((a, b) => a - b);
console.log("RT p50", ts[250].toFixed(3), "p99", ts[495].toFixed(3));
await c.end();
