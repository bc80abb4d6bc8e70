import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config.ts";
import {
  adoptLog,
  ForeignLogError,
  findForeignLog,
} from "../../src/platform/eventstore/postgres/adoptLog.ts";
import { type Service, startService } from "../../src/service.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * A log restored from another PostgreSQL server keeps that server's transaction ids, ahead of
 * this one's counter (docs/operations.md, "Backup and restore"). Simulated by moving the ids of
 * the events written here 1,000,000 ahead, as a pg_restore onto a younger server leaves them.
 */
describe.each(databaseKinds)("a log restored from another server, on %s", (kind) => {
  let t: TestApp;
  let again: Service | null = null;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await again?.close();
    await t?.close();
  });

  const config = () =>
    loadConfig({ LOG_LEVEL: "silent", PMS_ADMIN_API_KEY: TEST_ADMIN_KEY, PMS_RATE_LIMIT_PER_MINUTE: "0" });
  const snapshot = () =>
    t.sql.query("SELECT position::text, transaction_id::text, event_id::text FROM events ORDER BY position");
  const request = (service: Service, method: "GET" | "POST", url: string, body?: object) =>
    service.app!.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.tenant.key}` },
      ...(body ? { payload: body } : {}),
    });

  it("leaves a log written by this server untouched, twice", async () => {
    for (const name of ["Les Tilleuls", "Les Acacias"]) {
      expect((await t.request("POST", "/api/places", { body: { name } })).statusCode).toBe(201);
    }
    const before = await snapshot();
    // Projections that only skipped the places' events record their checkpoints a little later
    // (at most every 100 ms, docs/performance.md): wait until every checkpoint is at the head.
    const atHead = async () =>
      (
        await t.sql.query(
          `SELECT count(*)::int AS behind FROM projection_checkpoints c,
             (SELECT transaction_id::text::bigint AS commit, position FROM events
              ORDER BY transaction_id DESC, position DESC LIMIT 1) AS head
           WHERE (c.commit_position, c.prepare_position) <> (head.commit, head.position)`,
        )
      )[0].behind === 0;
    for (let i = 0; i < 200 && !(await atHead()); i++) await new Promise((r) => setTimeout(r, 50));
    const checkpoints = await t.sql.query(
      "SELECT name, commit_position FROM projection_checkpoints ORDER BY name",
    );
    expect(await findForeignLog(t.sql)).toBeNull();
    expect(await adoptLog(t.sql)).toEqual({ events: 0, sequence_moved: false, checkpoints_reset: 0 });
    expect(await adoptLog(t.sql)).toEqual({ events: 0, sequence_moved: false, checkpoints_reset: 0 });
    expect(await snapshot()).toEqual(before);
    expect(
      await t.sql.query("SELECT name, commit_position FROM projection_checkpoints ORDER BY name"),
    ).toEqual(checkpoints);
  });

  it("refuses to start on it, and after `pms log adopt` projects every event and the new ones", async () => {
    expect((await t.request("POST", "/api/places", { body: { name: "Les Platanes" } })).statusCode).toBe(201);
    await t.service.close();
    const before = await snapshot();
    await t.sql.query(
      "UPDATE events SET transaction_id = (pg_current_xact_id()::text::numeric + 1000000)::text::xid8",
    );
    // A read model from another moment than the log: the rebuild must not keep it.
    await t.sql.query("DELETE FROM places");

    const found = await findForeignLog(t.sql);
    expect(found).toEqual({ events_from_the_future: before.length, sequence_behind: false });
    const refused = await startService(config(), { sql: t.sql }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForeignLogError);
    expect((refused as Error).message).toContain("pms log adopt");

    const adopted = await adoptLog(t.sql);
    expect(adopted.events).toBe(before.length);
    expect(adopted.checkpoints_reset).toBeGreaterThan(0);
    expect(await findForeignLog(t.sql)).toBeNull();
    // The same events in the same (position) order, now all readable here.
    const after = await snapshot();
    expect(after.map((e) => [e.position, e.event_id])).toEqual(before.map((e) => [e.position, e.event_id]));
    expect(new Set(after.map((e) => e.transaction_id))).toEqual(new Set(["1"]));
    // Idempotent: a second run changes nothing.
    expect(await adoptLog(t.sql)).toEqual({ events: 0, sequence_moved: false, checkpoints_reset: 0 });
    expect(await snapshot()).toEqual(after);

    again = await startService(config(), { sql: t.sql });
    // Read-your-writes: answered 201 only once the projector has rebuilt up to this new event.
    const created = await request(again, "POST", "/api/places", { name: "Les Marronniers" });
    expect(created.statusCode, created.body).toBe(201);
    const list = await request(again, "GET", "/api/places?limit=100");
    expect(list.statusCode).toBe(200);
    expect(
      list
        .json()
        .map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(["Les Acacias", "Les Marronniers", "Les Platanes", "Les Tilleuls"].sort());
    // The new event sorts after the adopted ones.
    const [last] = await t.sql.query(
      "SELECT transaction_id::text AS xid FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1",
    );
    expect(BigInt(last.xid)).toBeGreaterThan(1n);
  });

  it("moves a position sequence restored behind the log", async () => {
    await again?.close();
    await t.sql.query("SELECT setval('events_position_seq', 1, false)");
    expect(await findForeignLog(t.sql)).toEqual({ events_from_the_future: 0, sequence_behind: true });
    expect(await startService(config(), { sql: t.sql }).catch((e: unknown) => e)).toBeInstanceOf(
      ForeignLogError,
    );
    expect((await adoptLog(t.sql)).sequence_moved).toBe(true);
    expect(await findForeignLog(t.sql)).toBeNull();
    again = await startService(config(), { sql: t.sql });
    const created = await request(again, "POST", "/api/places", { name: "Les Charmes" });
    expect(created.statusCode, created.body).toBe(201);
  });
});
