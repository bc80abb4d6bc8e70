import { createTestDatabase } from "/work/main/test/support/testDatabase.ts";
import { energyDiagnosesProjection } from "/work/main/src/projections/energyDiagnoses.ts";
import { listEnergyDiagnoses } from "/work/main/src/queries/energyDiagnoses.ts";
import { randomUUID } from "node:crypto";

const db = await createTestDatabase("postgres");
const sql = db.sql;
await sql.exec(energyDiagnosesProjection.schema);
const tenants = [randomUUID(), randomUUID()];
for (const tenant of tenants) {
  await sql.query(`INSERT INTO energy_diagnoses
    SELECT $1::uuid, gen_random_uuid(), gen_random_uuid(), NULL, 'REF-' || i, '2024-01-01', '2034-01-01',
      (ARRAY['A','B','C','D','E','F','G'])[1 + i % 7], (ARRAY['A','B','C','D','E','F','G'])[1 + (i / 7) % 7],
      1970, 100, 10, 50, NULL, NULL, timestamptz '2024-01-01' + (i || ' seconds')::interval, now(), 0
    FROM generate_series(1, 100000) i`, [tenant]);
}
await sql.query(`INSERT INTO energy_diagnosis_counts SELECT tenant_id, gen_random_uuid(), energy_label, ges_label, count(*) FROM energy_diagnoses GROUP BY 1, 3, 4`);
await sql.exec("VACUUM ANALYZE energy_diagnoses");
await sql.exec("VACUUM ANALYZE energy_diagnosis_counts");
const times: number[] = [];
for (let i = 0; i < 600; i++) {
  const t0 = performance.now();
  const r = await listEnergyDiagnoses(sql, tenants[0], { page: 1 + Math.floor(Math.random() * 143), limit: 100, energy_label: "D" as any });
  times.push(performance.now() - t0);
  if (r.items.length !== 100 && r.items.length !== 85) console.log("len", r.items.length, r.total);
}
times.sort((a, b) => a - b);
console.log("p50", times[300].toFixed(2), "p90", times[540].toFixed(2), "p99", times[594].toFixed(2));
const plan = await sql.asTenant(tenants[0], (tx) => tx.query(`EXPLAIN ANALYZE SELECT * FROM energy_diagnoses WHERE tenant_id = $1 AND energy_label = 'D' ORDER BY created_at, id LIMIT 100 OFFSET 14100`, [tenants[0]]));
console.log(plan.map((r: any) => r["QUERY PLAN"]).join("\n"));
await db.drop();
