import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { metersProjection } from "../../src/projections/meters.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";
const estateBody = {
  name: "Apt 3B",
  estate_type_id: globalTypeIds.estate.apartment,
  area: 52.5,
  fiscal_identifier: "FR-69003-0042",
};

describe.each(databaseKinds)("meters API on %s", (kind) => {
  let t: TestApp;
  let place: string;
  let estate: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    place = (await t.request("POST", "/api/places", { body: { name: "Résidence" } })).json().id;
    estate = (await t.request("POST", `/api/places/${place}/estates`, { body: estateBody })).json().id;
  });
  afterAll(async () => {
    await t?.close();
  });
  const fixtures = leaseFixtures(() => t);
  const install = async (body: object, on = `/api/estates/${estate}/meters`) => {
    const res = await t.request("POST", on, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const read = async (meter: string, body: object) =>
    t.request("POST", `/api/meters/${meter}/readings`, { body });

  it("installs on an estate and on a place, reads, lists, updates and removes", async () => {
    const res = await t.request("POST", `/api/estates/${estate}/meters`, {
      body: { type: "WATER_COLD", billing: "INDIVIDUAL", serial: "W-1", rollover_at: 99999 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const meter = res.json();
    expect(res.headers.location).toBe(`/api/meters/${meter.id}`);
    expect(meter).toMatchObject({
      place_id: place,
      estate_id: estate,
      type: "WATER_COLD",
      unit: "m3",
      rollover_at: 99999,
      lease_ids: [],
      readings_count: 0,
      replacements: [],
    });
    const got = await t.request("GET", `/api/meters/${meter.id}`);
    expect(got.json()).toEqual(meter);
    expect(got.headers.etag).toBe('W/"0"');
    const general = await install(
      { type: "WATER_COLD", billing: "COLLECTIVE" },
      `/api/places/${place}/meters`,
    );
    expect(general.estate_id).toBeNull();
    const sub = await install({ type: "WATER_COLD", billing: "SHARED", parent_meter_id: general.id });
    expect((await t.request("GET", `/api/places/${place}/meters`)).headers["x-total-count"]).toBe("3");
    expect(
      (await t.request("GET", `/api/estates/${estate}/meters`)).json().map((m: { id: string }) => m.id),
    ).toEqual([meter.id, sub.id]);
    expect((await t.request("GET", "/api/meters?type=GAS")).json()).toEqual([]);
    const put = await t.request("PUT", `/api/meters/${meter.id}`, {
      body: { ...meter, label: "Cuisine" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().label).toBe("Cuisine");
    // A sub-meter's parent: same type, no cycle.
    const cycle = await t.request("PUT", `/api/meters/${general.id}`, { body: { parent_meter_id: sub.id } });
    expect(cycle.statusCode).toBe(400);
    const gas = await t.request("POST", `/api/estates/${estate}/meters`, {
      body: { type: "GAS", billing: "INDIVIDUAL", parent_meter_id: general.id },
    });
    expect(gas.statusCode).toBe(400);
    expect(gas.json().details[0].field).toBe("parent_meter_id");
    // A meter with sub-meters stays.
    expect((await t.request("DELETE", `/api/meters/${general.id}`)).statusCode).toBe(409);
    expect((await t.request("DELETE", `/api/meters/${sub.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/meters/${sub.id}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/meters/${general.id}`)).statusCode).toBe(204);
  });

  it("links a meter to leases and lists the meters of a lease", async () => {
    const { id: lease, estate_id } = await fixtures.newLease();
    const res = await t.request("POST", `/api/estates/${estate_id}/meters`, {
      body: { type: "ELECTRICITY", billing: "INDIVIDUAL", lease_ids: [lease] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().lease_ids).toEqual([lease]);
    const listed = await t.request("GET", `/api/meters?lease_id=${lease}`);
    expect(listed.json().map((m: { id: string }) => m.id)).toEqual([res.json().id]);
  });

  it("refuses bad input with 4xx and writes nothing; another tenant's meter is 404", async () => {
    const meter = await install({ type: "ELECTRICITY", billing: "INDIVIDUAL" });
    const before = await eventCount(t);
    const cases: [string, string, object, number][] = [
      ["POST", `/api/estates/${estate}/meters`, { type: "STEAM", billing: "INDIVIDUAL" }, 400],
      [
        "POST",
        `/api/estates/${estate}/meters`,
        { type: "GAS", billing: "INDIVIDUAL", lease_ids: [unknownId] },
        400,
      ],
      ["POST", `/api/estates/${unknownId}/meters`, { type: "GAS", billing: "INDIVIDUAL" }, 404],
      ["POST", `/api/places/${unknownId}/meters`, { type: "GAS", billing: "INDIVIDUAL" }, 404],
      [
        "POST",
        `/api/meters/${meter.id}/readings`,
        { value: -1, read_on: "2025-01-01", source: "MANUAL" },
        400,
      ],
      [
        "POST",
        `/api/meters/${meter.id}/readings`,
        { value: 1.2345, read_on: "2025-01-01", source: "MANUAL" },
        400,
      ],
      [
        "POST",
        `/api/meters/${meter.id}/readings`,
        { value: 1, read_on: "2999-01-01", source: "MANUAL" },
        400,
      ],
      ["POST", `/api/meters/${meter.id}/readings`, { value: 1, read_on: "2025-01-01", source: "GUESS" }, 400],
      [
        "POST",
        `/api/meters/${meter.id}/readings`,
        { value: 1, read_on: "2025-01-01", source: "PHOTO", media_id: unknownId },
        400,
      ],
      [
        "POST",
        `/api/meters/${unknownId}/readings`,
        { value: 1, read_on: "2025-01-01", source: "MANUAL" },
        404,
      ],
    ];
    for (const [method, url, body, status] of cases) {
      const res = await t.request(method, url, { body });
      expect(res.statusCode, `${url} ${JSON.stringify(body)} ${res.body}`).toBe(status);
    }
    expect(await eventCount(t)).toBe(before);
    expect((await t.request("GET", `/api/meters/${meter.id}`, { as: t.other })).statusCode).toBe(404);
    expect((await read(meter.id, { value: 1, read_on: "2025-01-01", source: "MANUAL" })).statusCode).toBe(
      201,
    );
    const theirs = await t.request("POST", `/api/meters/${meter.id}/readings`, {
      as: t.other,
      body: { value: 2, read_on: "2025-02-01", source: "MANUAL" },
    });
    expect(theirs.statusCode).toBe(404);
  });

  it("computes consumption, across a rollover and a replacement, refuses a lower index, flags anomalies", async () => {
    const meter = await install({ type: "WATER_COLD", billing: "INDIVIDUAL", rollover_at: 99999 });
    const first = await read(meter.id, { value: 99700, read_on: "2025-01-01", source: "MANUAL" });
    expect(first.json()).toMatchObject({ consumption: null, anomaly: false });
    expect(
      (await read(meter.id, { value: 99900, read_on: "2025-01-21", source: "MANUAL" })).json(),
    ).toMatchObject({
      consumption: 200,
      days: 20,
      daily_consumption: 10,
      anomaly: false,
    });
    // 99,900 then 50 with rollover_at 99,999 is 150 (docs/design.md §7.4).
    const rolled = await read(meter.id, { value: 50, read_on: "2025-02-05", source: "MANUAL" });
    expect(rolled.statusCode, rolled.body).toBe(201);
    expect(rolled.json()).toMatchObject({ consumption: 150, days: 15, anomaly: false });
    // 10 a day on average; 40 a day is an anomaly: recorded and flagged.
    const spike = await read(meter.id, { value: 450, read_on: "2025-02-15", source: "AUTOMATIC" });
    expect(spike.statusCode).toBe(201);
    expect(spike.json()).toMatchObject({ consumption: 400, anomaly: true });
    const listed = await t.request("GET", `/api/meters/${meter.id}/readings?anomaly=true`);
    expect(listed.json().map((r: { id: string }) => r.id)).toEqual([spike.json().id]);
    // Dated before the last reading: refused.
    const early = await read(meter.id, { value: 500, read_on: "2025-02-10", source: "MANUAL" });
    expect(early.statusCode).toBe(422);

    const plain = await install({ type: "GAS", billing: "INDIVIDUAL" });
    await read(plain.id, { value: 1000, read_on: "2025-01-01", source: "MANUAL" });
    const lower = await read(plain.id, { value: 900, read_on: "2025-02-01", source: "MANUAL" });
    expect(lower.statusCode).toBe(422);
    expect(lower.json().message).toMatch(/lower than the previous index 1000.*never negative/);
    const replaced = await t.request("POST", `/api/meters/${plain.id}/replacement`, {
      body: { on: "2025-02-01", final_index: 1100, new_serial: "G-2", initial_index: 0 },
    });
    expect(replaced.statusCode, replaced.body).toBe(201);
    expect(replaced.json()).toMatchObject({ serial: "G-2", last_index: 0, last_read_on: "2025-02-01" });
    expect(replaced.json().replacements[0]).toMatchObject({
      final_index: 1100,
      consumption: 100,
      initial_index: 0,
    });
    expect(
      (await read(plain.id, { value: 90, read_on: "2025-03-01", source: "MANUAL" })).json(),
    ).toMatchObject({
      consumption: 90,
      days: 28,
    });
  });

  it("records readings in bulk: per item accepted, flagged or rejected", async () => {
    // Alerts go to the addresses the tenant configured (docs/messages.md).
    const configuration = (await t.request("GET", "/api/configurations")).json();
    const saved = await t.request("PUT", "/api/configurations", {
      body: { ...configuration, alert_emails: ["releves@dupont-immo.fr", "syndic@dupont-immo.fr"] },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().alert_emails).toEqual(["releves@dupont-immo.fr", "syndic@dupont-immo.fr"]);
    const hook = await t.request("POST", "/api/webhook-subscriptions", {
      body: { url: "https://example.org/hooks/meters", events: ["meter.anomaly"] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const a = await install({ type: "ELECTRICITY", billing: "INDIVIDUAL" });
    const b = await install({ type: "ELECTRICITY", billing: "INDIVIDUAL" });
    const items = [
      { meter_id: a.id, value: 100, read_on: "2025-01-11", source: "MANUAL" },
      { meter_id: a.id, value: 0, read_on: "2025-01-01", source: "MANUAL" },
      { meter_id: a.id, value: 200, read_on: "2025-01-21", source: "MANUAL" },
      { meter_id: a.id, value: 1000, read_on: "2025-01-31", source: "MANUAL" },
      { meter_id: a.id, value: 10, read_on: "2025-02-10", source: "MANUAL" },
      { meter_id: unknownId, value: 10, read_on: "2025-02-10", source: "MANUAL" },
      { meter_id: b.id, value: 5, read_on: "2025-01-01", source: "ESTIMATED" },
    ];
    const res = await t.request("POST", "/api/meters/readings/bulk", { body: items });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ accepted: 4, flagged: 1, rejected: 2 });
    expect(body.items.map((i: { status: string }) => i.status)).toEqual([
      "accepted",
      "accepted",
      "accepted",
      "flagged",
      "rejected",
      "rejected",
      "accepted",
    ]);
    expect(body.items[4].error.error).toBe("UnprocessableEntity");
    expect(body.items[5].error.message).toBe(`Meter ${unknownId} not found`);
    const readings = (await t.request("GET", `/api/meters/${a.id}/readings`)).json();
    expect(readings.map((r: { value: number }) => r.value)).toEqual([0, 100, 200, 1000]);
    expect((await t.request("GET", `/api/meters/${a.id}`)).json()).toMatchObject({
      readings_count: 4,
      anomalies_count: 1,
      last_index: 1000,
    });
    // The alert: an email through the outbox, and the outbound webhook meter.anomaly.
    const alerts = await t.sql.query("SELECT data FROM events WHERE type = 'MessageQueued'");
    expect(alerts.map((a) => a.data.topic)).toContain("meter.anomaly");
    const [alert] = (await t.request("GET", "/api/messages?topic=meter.anomaly")).json();
    expect(alert.to.map((r: { email: string }) => r.email)).toEqual([
      "releves@dupont-immo.fr",
      "syndic@dupont-immo.fr",
    ]);
    expect(alert.subject).toBe("Consommation anormale : 1 relevé de compteur");
    const hooks = await t.sql.query(
      "SELECT payload FROM webhook_deliveries WHERE subscription_id = $1 AND event_type = 'meter.anomaly'",
      [hook.json().id],
    );
    expect(hooks.map((h) => h.payload.data)).toEqual([
      expect.objectContaining({
        meter_id: a.id,
        read_on: "2025-01-31",
        consumption: 800,
        average_daily_consumption: 10,
      }),
    ]);
    const tooMany = Array.from({ length: 10_001 }, () => items[0]);
    expect((await t.request("POST", "/api/meters/readings/bulk", { body: tooMany })).statusCode).toBe(413);
  });

  it("checks sub-meters against their parent over a period", async () => {
    const parent = await install({ type: "HEATING", billing: "COLLECTIVE" }, `/api/places/${place}/meters`);
    const child = await install({ type: "HEATING", billing: "SHARED", parent_meter_id: parent.id });
    const bulk = [
      { meter_id: parent.id, value: 0, read_on: "2025-01-01", source: "MANUAL" },
      { meter_id: parent.id, value: 100, read_on: "2025-02-01", source: "MANUAL" },
      { meter_id: child.id, value: 0, read_on: "2025-01-01", source: "MANUAL" },
      { meter_id: child.id, value: 120, read_on: "2025-02-01", source: "MANUAL" },
    ];
    expect((await t.request("POST", "/api/meters/readings/bulk", { body: bulk })).statusCode).toBe(200);
    const check = await t.request(
      "GET",
      `/api/meters/${parent.id}/sub-meters/check?from=2025-01-01&to=2025-02-28`,
    );
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json()).toMatchObject({
      rule: "SUB_METERS_WITHIN_PARENT",
      status: "FAIL",
      details: { parent_consumption: 100, children_consumption: 120 },
    });
  });

  it("rebuilding the meters projection from the log gives the same rows", async () => {
    const snapshot = async () => ({
      meters: await t.sql.query("SELECT * FROM meters ORDER BY id"),
      readings: await t.sql.query("SELECT * FROM meter_readings ORDER BY id"),
    });
    const before = await snapshot();
    expect(before.readings.length).toBeGreaterThan(0);
    await rebuildProjection(t.sql, t.service.platform.store, metersProjection);
    expect(await snapshot()).toEqual(before);
  });
});
