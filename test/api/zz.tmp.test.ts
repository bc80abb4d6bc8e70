import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";

describe.each(["embedded", "postgres"] as const)("perf %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(kind); });
  afterAll(async () => { await t?.close(); });
  it("bulk 1000", async () => {
    const store = t.service.platform.store as any;
    const stats: Record<string, { n: number; ms: number }> = {};
    for (const m of ["readStream", "appendToStream"]) {
      const orig = store[m].bind(store);
      store[m] = async (...a: any[]) => { const s = performance.now(); try { return await orig(...a); } finally { stats[m] ??= { n: 0, ms: 0 }; stats[m].n++; stats[m].ms += performance.now() - s; } };
    }
    const items = Array.from({ length: 1000 }, (_, i) => ({ category: "individual", first_name: "A", last_name: "B", email: `p${i}.${randomUUID()}@x.fr` }));
    const s = performance.now();
    const res = await t.request("POST", "/api/lessees/bulk", { body: items });
    console.log(kind, res.statusCode, Math.round(performance.now() - s), JSON.stringify(stats));
    expect(res.statusCode).toBe(201);
    const s2 = performance.now();
    const one = await t.request("POST", "/api/lessees", { body: { category: "individual", first_name: "A", last_name: "B", email: `single@x.fr` } });
    console.log("single", one.statusCode, Math.round(performance.now() - s2));
  }, 120_000);
});
