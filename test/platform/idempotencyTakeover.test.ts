import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * A request under an Idempotency-Key whose process died mid-request (src/platform/http/idempotency.ts):
 * its key is tied to a session advisory lock of that process, so the retry takes it over as soon as
 * the process is gone, not after a minute.
 */
describe.each(databaseKinds)("Idempotency-Key of a crashed process on %s", (kind) => {
  let t: TestApp;
  const crashed: pg.Client[] = [];
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    for (const c of crashed) await c.end().catch(() => {});
    await t?.close();
  });

  /** A process of its own on the database, holding its owner lock as the service does. */
  async function otherProcess(owner: string): Promise<pg.Client> {
    const url = (t.service.platform.config as { DATABASE_URL?: string }).DATABASE_URL!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [owner]);
    crashed.push(client);
    return client;
  }

  /** The key's row as a first attempt left it mid-request: no answer yet, run by `owner`. */
  const inProgress = (key: string, owner: string) =>
    t.sql.query(
      `UPDATE idempotency_keys SET status_code = NULL, headers = NULL, body = NULL, owner = $3
       WHERE tenant_id = $1 AND key = $2`,
      [t.tenant.id, key, owner],
    );

  it("waits while the owner lives, and is taken over at once when it is gone; the write is not doubled", async () => {
    const key = `crash-${Date.now()}`;
    const send = () =>
      t.request("POST", "/api/places", {
        body: { name: "Résidence du Parc" },
        headers: { "idempotency-key": key },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    const id = first.json().id;

    // Another process took the request and is still running it: a retry is told so (409).
    const owner = `idempotency-owner:test-${key}`;
    const process = await otherProcess(owner);
    await inProgress(key, owner);
    const busy = await send();
    expect(busy.statusCode, busy.body).toBe(409);
    expect(busy.json().message).toMatch(/still in progress/);

    // That process crashes (its session ends): the retry runs at once and finds its write.
    await process.end();
    const started = Date.now();
    const retried = await send();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(retried.json().id).toBe(id);
    const events = await t.sql.query("SELECT count(*)::int AS n FROM events WHERE stream_name = $1", [
      `place-${id}`,
    ]);
    expect(events[0].n).toBe(1);
    // Answered now, the key replays that answer.
    const replay = await send();
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json().id).toBe(id);
  });

  it("a key this live process owns is not taken over", async () => {
    const key = `live-${Date.now()}`;
    const send = () =>
      t.request("POST", "/api/places", { body: { name: "Le Clos" }, headers: { "idempotency-key": key } });
    expect((await send()).statusCode).toBe(201);
    const [row] = await t.sql.query("SELECT owner FROM idempotency_keys WHERE tenant_id = $1 AND key = $2", [
      t.tenant.id,
      key,
    ]);
    expect(row.owner).toMatch(/^idempotency-owner:/);
    await inProgress(key, row.owner);
    expect((await send()).statusCode).toBe(409);
  });
});
