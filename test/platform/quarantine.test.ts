import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const estate = {
  name: "Apt",
  estate_type_id: globalTypeIds.estate.apartment,
  area: 40,
  fiscal_identifier: "FR-1",
};

/** The service whole: a real projection (estates) meets an event it cannot apply (docs/operations.md, "Quarantine"). */
describe.each(databaseKinds)("quarantine of a poison event on %s", (kind) => {
  let t: TestApp;
  const admin = (method: string, url: string) =>
    t.app.inject({ method: method as "GET", url, headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
  const createEstate = async (as = t.tenant) => {
    const place = (await t.request("POST", "/api/places", { body: { name: "P" }, as })).json().id;
    const started = Date.now();
    const res = await t.request("POST", `/api/places/${place}/estates`, { body: estate, as });
    return { res, ms: Date.now() - started };
  };
  const estatesRow = async () =>
    (await admin("GET", "/api/admin/projections")).json().find((p: { name: string }) => p.name === "estates");

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("sets aside tenant A's event for A alone: B's writes answer 201 at once, health stays ready, an operator retries and skips it", async () => {
    const { res: first } = await createEstate(t.tenant);
    expect(first.statusCode, first.body).toBe(201);
    const { store } = t.service.platform;

    // Tenant A's estate again under another id, dated year 0, which PostgreSQL has not: appended
    // straight to the log, as a command that let it through would.
    const [created] = await store.readStream(`estate-${first.json().id}`);
    const poisonId = randomUUID();
    await store.appendToStream(
      `estate-${poisonId}`,
      [
        {
          event_id: randomUUID(),
          type: created.type,
          data: { ...created.data, estate_id: poisonId, construction_date: "0000-01-01" },
          metadata: { ...created.metadata, occurred_at: new Date().toISOString() },
        },
      ],
      { expected_revision: "no_stream" },
    );

    // Tenant B's writes answer 201 within their usual time (the bound for a 202 is 10 s).
    for (let i = 0; i < 3; i++) {
      const { res, ms } = await createEstate(t.other);
      expect(res.statusCode, res.body).toBe(201);
      expect(ms).toBeLessThan(2000);
    }
    const ready = await t.app.inject({ method: "GET", url: "/api/health/ready" });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json().checks.quarantine.detail).toContain("1 tenant(s)");

    // Listed for the operator, with its tenant and error.
    const row = await estatesRow();
    expect(row.quarantined).toBe(1);
    expect(row.last_error).toBeNull();
    expect(row.lag).toBe(0);
    const [aside] = row.quarantine;
    expect(aside).toMatchObject({
      stream_name: `estate-${poisonId}`,
      tenant_id: t.tenant.id,
      event_type: "EstateCreated",
      held_by: null,
      attempts: 1,
    });
    expect(aside.error).toMatch(/out of range/);

    // Only A's answers say its read model is stale; A's other writes go on.
    await new Promise((r) => setTimeout(r, 1100));
    const listA = await t.request("GET", "/api/estates");
    expect(listA.headers["stale-read-models"]).toBe("estates");
    expect(listA.json().map((e: { id: string }) => e.id)).not.toContain(poisonId);
    expect(
      (await t.request("GET", "/api/estates", { as: t.other })).headers["stale-read-models"],
    ).toBeUndefined();
    expect((await createEstate(t.tenant)).res.statusCode).toBe(201);

    // Counted in the metrics.
    const metrics = (await admin("GET", "/api/admin/metrics")).body;
    expect(metrics).toMatch(/pms_projection_events_quarantined_total\{projection="estates"\} 1\b/);
    expect(metrics).toMatch(/pms_projection_quarantined_events\{projection="estates"\} 1\b/);

    // A retry without a fix fails again: still quarantined, one attempt more.
    const url = `/api/admin/projections/estates/quarantine/${aside.event_id}`;
    const retried = await admin("POST", `${url}/retry`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ status: "quarantined", event_id: aside.event_id });
    expect((await estatesRow()).quarantine[0].attempts).toBe(2);

    // Skipped: gone from the quarantine, the choice an event of A's in the log.
    const skipped = await admin("POST", `${url}/skip`);
    expect(skipped.statusCode, skipped.body).toBe(200);
    expect(skipped.json()).toMatchObject({ status: "skipped" });
    expect((await estatesRow()).quarantined).toBe(0);
    const choices = await t.sql.query(
      "SELECT type, metadata->>'tenant_id' AS tenant FROM events WHERE stream_name LIKE 'projection_quarantine-%' ORDER BY position",
    );
    expect(choices).toEqual([
      { type: "QuarantinedEventRetried", tenant: t.tenant.id },
      { type: "QuarantinedEventSkipped", tenant: t.tenant.id },
    ]);
    // Nothing left to choose: 404; the stale mark goes with it.
    expect((await admin("POST", `${url}/skip`)).statusCode).toBe(404);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await t.request("GET", "/api/estates")).headers["stale-read-models"]).toBeUndefined();
  }, 60_000);
});
