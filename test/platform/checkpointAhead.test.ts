import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { areas } from "../../src/areas.ts";
import { loadConfig } from "../../src/platform/config.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { CheckpointAheadError } from "../../src/platform/projections/runProjections.ts";
import { ALL_PERMISSIONS, createApiKey, createTenant } from "../../src/platform/tenants/tenants.ts";
import { type Service, startService } from "../../src/service.ts";
import { fakeClient } from "../support/fakeEventStoreDb.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/**
 * A log restored from a backup older than the read models (issue 22, item 8): every checkpoint
 * is past the log's end. The projector refuses to start and names the fix, on both stores, and
 * starts again once the projections are rebuilt from the log.
 */
describe.each(["postgres", "eventstoredb (fake client)"])("checkpoints ahead of the log, on %s", (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it("refuses to start, naming the rebuild, then starts after it", async () => {
    const db = await createTestDatabase("postgres");
    cleanup.push(() => db.drop());
    const config = loadConfig({ LOG_LEVEL: "silent", PMS_RATE_LIMIT_PER_MINUTE: "0" });
    const esdb = engine === "postgres" ? null : fakeClient();
    const storeOf = (client = esdb): EventStore | undefined =>
      client ? createEventStoreDbEventStore(client.client) : undefined;
    const start = (store = storeOf()) => startService(config, { sql: db.sql, store });

    let service: Service | null = await start();
    const tenant = await createTenant(db.sql, "restored");
    const key = (await createApiKey(db.sql, tenant.id, "test", ALL_PERMISSIONS)).key;
    const createPlace = (s: Service, name: string) =>
      s.app!.inject({
        method: "POST",
        url: "/api/places",
        headers: { authorization: `Bearer ${key}` },
        payload: { name },
      });
    for (const name of ["Les Tilleuls", "Les Acacias"])
      expect((await createPlace(service, name)).statusCode).toBe(201);
    await service.close();

    // The restore: the log as a backup taken before the second place (the read models kept).
    let restored = esdb;
    if (esdb) {
      restored = fakeClient();
      restored.log.push(esdb.log[0]);
    } else {
      await db.sql.query("DELETE FROM events WHERE position = (SELECT max(position) FROM events)");
    }
    const refused = await start(storeOf(restored)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CheckpointAheadError);
    expect((refused as Error).message).toContain("pms projections rebuild places");
    expect((refused as CheckpointAheadError).projections.map((p) => p.name)).toContain("places");

    // The fix it names: each projection rebuilt from the log as it is.
    const store = storeOf(restored) ?? (await import("../../src/service.ts")).openEventStore(config, db.sql);
    const opened = await store;
    for (const p of (refused as CheckpointAheadError).projections) {
      const projection = areas.flatMap((a) => a.projections).find((x) => x.name === p.name)!;
      await rebuildProjection(db.sql, opened, projection, () => {});
    }
    await opened.close();
    service = await start(storeOf(restored));
    cleanup.push(() => service!.close());
    const list = await service.app!.inject({
      method: "GET",
      url: "/api/places",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(list.json().map((p: { name: string }) => p.name)).toEqual(["Les Tilleuls"]);
    expect((await createPlace(service, `Les Charmes ${randomUUID().slice(0, 4)}`)).statusCode).toBe(201);
  });
});
