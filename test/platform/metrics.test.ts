import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** A sample's value in Prometheus text: the line with this name and these labels. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return null;
}

describe.each(databaseKinds)("metrics on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => t?.close());

  const scrape = () =>
    t.request("GET", "/api/admin/metrics", {
      as: null,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });

  it("is for the platform admin only, not for tenant keys or anonymous callers", async () => {
    expect((await t.request("GET", "/api/admin/metrics")).statusCode).toBe(401);
    expect((await t.request("GET", "/api/admin/metrics", { as: null })).statusCode).toBe(401);
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("counts requests by route pattern, appends, read-your-writes waits, lag, pool and queues", async () => {
    // The registry is per process (both database kinds run here): compare before and after.
    const before = (await scrape()).body;
    const count = (text: string, name: string, labels: Record<string, string>) =>
      sample(text, name, labels) ?? 0;
    const gets = { route: "/api/places", method: "GET", status: "200" };
    const posts = { route: "/api/places", method: "POST", status: "201" };
    const created = await t.request("POST", "/api/places", { body: { name: "Résidence des Lilas" } });
    expect(created.statusCode).toBe(201);
    expect((await t.request("GET", "/api/places")).statusCode).toBe(200);
    const text = (await scrape()).body;
    const duration = "pms_http_request_duration_seconds_count";
    expect(count(text, duration, gets) - count(before, duration, gets)).toBe(1);
    expect(count(text, duration, posts) - count(before, duration, posts)).toBe(1);
    const ok = { kind: "stream", outcome: "ok" };
    expect(count(text, "pms_event_appends_total", ok)).toBeGreaterThan(
      count(before, "pms_event_appends_total", ok),
    );
    expect(text).not.toContain(created.json().id);
    expect(sample(text, "pms_event_append_duration_seconds_count", { kind: "stream" })).toBeGreaterThan(0);
    expect(sample(text, "pms_read_your_writes_wait_seconds_count", { outcome: "seen" })).toBeGreaterThan(0);
    expect(sample(text, "pms_projection_lag_events", { projection: "places" })).not.toBeNull();
    expect(sample(text, "pms_projection_lag_seconds", { projection: "places" })).toBeGreaterThanOrEqual(0);
    expect(sample(text, "pms_job_queue_size", { queue: "projection-rebuild" })).toBe(0);
    if (kind === "postgres")
      expect(sample(text, "pms_pg_pool_clients", { pool: "writer", state: "in_use" })).not.toBeNull();
  });
});
