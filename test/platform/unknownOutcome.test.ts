import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lesseeStream } from "../../src/events/lessees.ts";
import { loadConfig } from "../../src/platform/config.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import { ALL_PERMISSIONS, createApiKey, createTenant } from "../../src/platform/tenants/tenants.ts";
import { type Service, startService } from "../../src/service.ts";
import { fakeClient } from "../support/fakeEventStoreDb.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/**
 * The whole service on EventStoreDB (the fake client: no server runs here) under the faults of
 * issue 22: a write that timed out after its commit and could not be read back, a foreign event
 * in `$all`, a bulk delete racing an edit.
 */
describe("the service on EventStoreDB under unknown outcomes (issue 22)", () => {
  const fake = fakeClient();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: Service;
  let key: string;
  /** Runs once before the next append to a stream matching `stream` (then forgets itself). */
  let beforeAppend: { stream: RegExp; run: (store: EventStore) => Promise<void> } | null = null;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const inner = createEventStoreDbEventStore(fake.client, {
      categories: ["place", "lessee", "lessee_email"],
    });
    const store: EventStore = {
      ...inner,
      async appendToStream(stream, events, options) {
        const hook = beforeAppend;
        if (hook?.stream.test(stream) && events[0]?.type === "LesseeDeleted") {
          beforeAppend = null;
          await hook.run(inner);
        }
        return inner.appendToStream(stream, events, options);
      },
    };
    service = await startService(loadConfig({ LOG_LEVEL: "silent", PMS_RATE_LIMIT_PER_MINUTE: "0" }), {
      sql: db.sql,
      store,
    });
    const tenant = await createTenant(db.sql, "esdb");
    key = (await createApiKey(db.sql, tenant.id, "test", ALL_PERMISSIONS)).key;
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await db?.drop();
  });

  const send = (method: "POST" | "DELETE" | "GET", url: string, body?: unknown, idempotencyKey?: string) =>
    service.app!.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${key}`,
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  /** The server stays away after the commit: the write cannot be settled (a 503). */
  const unreachableAfterCommit = (stream?: RegExp) =>
    fake.faults.push({ op: "append", kind: "timeout-after-commit", stream, thenDown: true });
  const streamsOf = (category: string) =>
    new Set(fake.log.filter((e) => e.streamId.startsWith(`${category}-`)).map((e) => e.streamId));

  it("a create retried with its Idempotency-Key after a 503 finds its write: one place, the same id", async () => {
    const idem = randomUUID();
    unreachableAfterCommit();
    const first = await send("POST", "/api/places", { name: "Les Tilleuls" }, idem);
    expect(first.statusCode, first.body).toBe(503);
    expect(first.json().error).toBe("ServiceUnavailable");
    fake.up();
    // The key is bound to its request: another body under it is refused.
    expect((await send("POST", "/api/places", { name: "Autre" }, idem)).statusCode).toBe(409);
    const again = await send("POST", "/api/places", { name: "Les Tilleuls" }, idem);
    expect(again.statusCode, again.body).toBe(201);
    expect(streamsOf("place")).toEqual(new Set([`place-${again.json().id}`]));
    expect(fake.log.filter((e) => e.streamId === `place-${again.json().id}`)).toHaveLength(1);
  });

  it("a lessee retried after a 503 is one lessee, and its email stays taken for others", async () => {
    const idem = randomUUID();
    const lessee = {
      category: "individual",
      first_name: "Jeanne",
      last_name: "Martin",
      email: "jm@example.org",
    };
    // The lessee's own append (after its email's reservation) commits, unconfirmed.
    unreachableAfterCommit(/^lessee-/);
    expect((await send("POST", "/api/lessees", lessee, idem)).statusCode).toBe(503);
    fake.up();
    // Another client's registration of the email meanwhile: refused, the first may have committed.
    const other = await send("POST", "/api/lessees", { ...lessee, email: "JM@example.org" }, randomUUID());
    expect(other.statusCode, other.body).toBe(409);
    const again = await send("POST", "/api/lessees", lessee, idem);
    expect(again.statusCode, again.body).toBe(201);
    expect(streamsOf("lessee")).toEqual(new Set([lesseeStream(again.json().id)]));
  });

  it("an event of another application in $all is skipped: the projections go on", async () => {
    fake.appendForeign({
      streamId: "lessee-not-ours",
      type: "LesseeRegistered",
      data: new Uint8Array([0xff, 0xfe, 0x00]),
      metadata: new Uint8Array([0xff]),
      isJson: false,
    });
    fake.appendForeign({ streamId: "orders-1", type: "PlaceCreated", data: {}, metadata: {}, isJson: true });
    const created = await send("POST", "/api/places", { name: "Les Acacias" });
    expect(created.statusCode, created.body).toBe(201);
    expect((await service.app!.inject({ method: "GET", url: "/api/health/ready" })).statusCode).toBe(200);
  });

  it("a bulk delete racing an edit of one lessee completes instead of leaving the others deleted", async () => {
    const items = [1, 2, 3].map((n) => ({
      category: "individual",
      first_name: "Paul",
      last_name: `Durand ${n}`,
      email: `pd${n}@example.org`,
    }));
    const created = await send("POST", "/api/lessees/bulk", items);
    expect(created.statusCode, created.body).toBe(201);
    const ids: string[] = created.json().map((l: { id: string }) => l.id);
    // Another client edits the second lessee just before its deletion is appended.
    beforeAppend = {
      stream: new RegExp(`^${lesseeStream(ids[1])}$`),
      run: async (store) => {
        const [last] = (await store.readStream(lesseeStream(ids[1]))).slice(-1);
        await store.appendToStream(
          lesseeStream(ids[1]),
          [
            {
              event_id: randomUUID(),
              type: "LesseeUpdated",
              data: { lessee_id: ids[1], changes: { profession: "Architecte" } },
              metadata: last.metadata,
            },
          ],
          { expected_revision: last.stream_revision },
        );
      },
    };
    const deleted = await send("DELETE", "/api/lessees/bulk", ids);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(beforeAppend).toBeNull();
    for (const id of ids) expect((await send("GET", `/api/lessees/${id}`)).statusCode).toBe(404);
    // The same request again (a client's retry) answers as done, not 404.
    expect((await send("DELETE", "/api/lessees/bulk", ids)).statusCode).toBe(204);
  });
});
