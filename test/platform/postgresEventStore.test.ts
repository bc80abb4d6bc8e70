import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Sql } from "../../src/platform/db.ts";
import {
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  START,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { DuplicateEventIdError } from "../../src/platform/eventstore/postgres/appendToStream.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import {
  EVENTS_PAST,
  eventsPast,
  readAll,
  readAllLean,
} from "../../src/platform/eventstore/postgres/readAll.ts";
import { subscribeToAll } from "../../src/platform/eventstore/postgres/subscribeToAll.ts";
import { untilReadable } from "../support/counterProjection.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/** Defects of the PostgreSQL event store found by review (docs/performance.md), one test each. */
const newEvent = (): NewEvent => ({
  event_id: randomUUID(),
  type: "Tested",
  data: { n: 1 },
  metadata: { tenant_id: randomUUID() } as NewEvent["metadata"],
});

describe.runIf(process.env.TEST_DATABASE_URL)("PostgreSQL event store defects", () => {
  let sql: Sql;
  let drop: () => Promise<void>;
  let store: EventStore;
  beforeAll(async () => {
    const db = await createTestDatabase("postgres");
    sql = db.sql;
    drop = db.drop;
    store = createPostgresEventStore(sql);
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it("readStreams reads several whole streams in one go, in the order asked, [] for an absent one", async () => {
    const [a, b, absent] = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
    await store.appendToStreams!([
      { stream_name: a, events: [newEvent(), newEvent(), newEvent()], expected_revision: "no_stream" },
      { stream_name: b, events: [newEvent()], expected_revision: "no_stream" },
    ]);
    const [first, none, second] = await store.readStreams!([b, absent, a]);
    expect(first.map((e) => [e.stream_name, e.stream_revision])).toEqual([[b, 0n]]);
    expect(none).toEqual([]);
    expect(second.map((e) => [e.stream_name, e.stream_revision])).toEqual([
      [a, 0n],
      [a, 1n],
      [a, 2n],
    ]);
    expect(second).toEqual(await store.readStream(a));
  });

  it("the projector's 'events past' check reads the log index even as a generic prepared plan", async () => {
    const stream = `past-${randomUUID()}`;
    const { position } = await store.appendToStream(stream, [newEvent()], { expected_revision: "no_stream" });
    expect(await eventsPast(sql, position)).toBe(false);
    expect(await eventsPast(sql, { commit: position.commit, prepare: position.prepare - 1n })).toBe(true);
    // The plan every connection ends on after five runs: it once scanned the whole table.
    const plan = await sql.transaction(async (tx) => {
      await tx.exec("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.exec(`PREPARE events_past_plan(text, bigint) AS ${EVENTS_PAST}`);
      const rows = await tx.query("EXPLAIN EXECUTE events_past_plan('1', 1)");
      await tx.exec("DEALLOCATE events_past_plan");
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("events_global_order");
    expect(plan).not.toContain("Seq Scan");
  });

  it("the rebuild's lean read gives the same events as readAll, page by page", async () => {
    const stream = `lean-${randomUUID()}`;
    const events = [newEvent(), newEvent(), newEvent(), newEvent(), newEvent()];
    events[1].data = { nested: { a: [1, "x\ty"], b: null }, n: 1.5 };
    events[2].metadata.actor_key_id = null;
    const { position } = await store.appendToStream(stream, events, { expected_revision: "no_stream" });
    // Both reads stop below the server's oldest open transaction (another test file's, on a shared
    // server): wait until these events are readable, which they then stay.
    await untilReadable(store, position);
    // Microseconds a Date cannot hold, and a time before 1970: both as toRecordedEvent shows them.
    await sql.query(
      `UPDATE events SET created_at = CASE stream_revision WHEN 0 THEN '2024-02-29 23:59:59.999999+00'
         WHEN 1 THEN '1969-12-31 23:59:59.000500+00' ELSE created_at END WHERE stream_name = $1`,
      [stream],
    );
    let after = START;
    for (;;) {
      const [plain, lean] = await Promise.all([
        readAll(sql, { after, max_count: 2 }),
        readAllLean(sql, { after, max_count: 2 }),
      ]);
      expect(lean).toEqual(plain);
      if (plain.length < 2) break;
      after = plain[plain.length - 1].position;
    }
    const mine = (await readAllLean(sql, { max_count: 100_000 })).filter((e) => e.stream_name === stream);
    expect(mine.map((e) => e.created_at).slice(0, 2)).toEqual([
      "2024-02-29T23:59:59.999Z",
      "1969-12-31T23:59:59.000Z",
    ]);
  });

  it("appendToStreams answers each stream's own revision and position when writing many", async () => {
    const writes = Array.from({ length: 50 }, (_, i) => ({
      stream_name: `m-${i}-${randomUUID()}`,
      events: Array.from({ length: 1 + (i % 3) }, newEvent),
      expected_revision: "no_stream" as const,
    }));
    const results = await store.appendToStreams!(writes);
    const read = await store.readStreams!(writes.map((w) => w.stream_name));
    results.forEach((r, i) => {
      const last = read[i].at(-1)!;
      expect(r.next_revision).toBe(BigInt(writes[i].events.length - 1));
      expect(r.position).toEqual(last.position);
    });
  });

  it("a throwing onAppended listener does not fail a committed append", async () => {
    const stop = store.onAppended(() => {
      throw new Error("listener broke");
    });
    const woken: number[] = [];
    const other = store.onAppended(() => woken.push(1));
    try {
      const name = `s-${randomUUID()}`;
      const result = await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
      expect(result.next_revision).toBe(0n);
      expect(await store.readStream(name)).toHaveLength(1);
      expect(woken.length).toBeGreaterThan(0);
    } finally {
      stop();
      other();
    }
  });

  it("an event id already in another stream is refused with an exact error, not a revision conflict", async () => {
    const [a, b] = [`a-${randomUUID()}`, `b-${randomUUID()}`];
    const events = [newEvent()];
    await store.appendToStream(a, events, { expected_revision: "no_stream" });
    const error = await store.appendToStream(b, events, { expected_revision: "no_stream" }).catch((e) => e);
    expect(error).toBeInstanceOf(DuplicateEventIdError);
    expect(error).not.toBeInstanceOf(WrongExpectedRevisionError);
    expect(error.message).toContain(a);
    expect(error.message).toContain(events[0].event_id);
    expect(await store.readStream(b)).toEqual([]);
    // The same through a multi-stream append: nothing written.
    const c = `c-${randomUUID()}`;
    const many = await store.appendToStreams!([
      { stream_name: c, events: [newEvent()], expected_revision: "no_stream" },
      { stream_name: b, events, expected_revision: "no_stream" },
    ]).catch((e) => e);
    expect(many).toBeInstanceOf(DuplicateEventIdError);
    expect(await store.readStream(c)).toEqual([]);
    // A retry of the first append is still its idempotent replay.
    expect((await store.appendToStream(a, events, { expected_revision: "no_stream" })).next_revision).toBe(
      0n,
    );
  });

  it("readStream returns a stream longer than 1,000,000 events to its end", {
    timeout: 300_000,
  }, async () => {
    const name = `long-${randomUUID()}`;
    const total = 1_000_003;
    // In short transactions: an open one hides every later commit of the whole server from
    // readAll (the no-skip rule), which would stall the other suites' read-your-writes.
    for (let from = 0; from < total; from += 50_000) {
      await sql.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata)
         SELECT gen_random_uuid(), $1, r, 'T', '{}', '{}' FROM generate_series($2::bigint, $3::bigint) r`,
        [name, from, Math.min(total, from + 50_000) - 1],
      );
    }
    // Autovacuum would have analyzed a log this size; without statistics each page is a full scan.
    await sql.exec("ANALYZE events");
    const events = await store.readStream(name);
    expect(events.length).toBe(total);
    expect(events[total - 1].stream_revision).toBe(BigInt(total - 1));
    const tail = await store.readStream(name, { from_revision: 999_999n, max_count: 3 });
    expect(tail.map((e) => e.stream_revision)).toEqual([999_999n, 1_000_000n, 1_000_001n]);
  });

  it("close() stops the subscriptions still running", async () => {
    const db = await createTestDatabase("postgres");
    try {
      const own = createPostgresEventStore(db.sql);
      const seen: RecordedEvent[] = [];
      own.subscribeToAll({ after: START }, (e) => {
        seen.push(e);
      });
      await own.appendToStream(`x-${randomUUID()}`, [newEvent()], { expected_revision: "no_stream" });
      const deadline = Date.now() + 10_000;
      while (seen.length === 0 && Date.now() < deadline) await sleep(20);
      expect(seen).toHaveLength(1);
      await own.close();
      // Written by someone else after the close: a live subscription would poll it within 1 s.
      await db.sql.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata)
         VALUES (gen_random_uuid(), 'after-close', 0, 'T', '{}', '{}')`,
      );
      await sleep(2500);
      expect(seen).toHaveLength(1);
    } finally {
      await db.drop();
    }
  });

  it("an append between a caught-up read and the wait is read at once, not after the 1 s poll", async () => {
    // Fake timers: the 1 s poll never fires here, so a second read can only come from the wake-up
    // count. (With the real log, another transaction open on the server could hide the event.)
    vi.useFakeTimers();
    try {
      const listeners = new Set<() => void>();
      const onAppended = (listener: () => void) => {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      };
      let reads = 0;
      const read = async () => {
        reads++;
        // An append lands after this read looked and before the subscription waits.
        if (reads === 1) for (const listener of listeners) listener();
        return [];
      };
      const subscription = subscribeToAll(read, onAppended, { after: START }, () => {});
      for (let i = 0; i < 100; i++) await Promise.resolve();
      expect(reads).toBe(2);
      await subscription.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("stop() during the pause after a failed read returns without waiting the pause out", async () => {
    // Fake timers: the 1 s pause never ends by itself, so stop() resolves only if it ends it.
    vi.useFakeTimers();
    try {
      let failed = false;
      const read = async () => {
        failed = true;
        throw new Error("read failed");
      };
      const subscription = subscribeToAll(read, store.onAppended, { after: START }, () => {});
      for (let i = 0; i < 100 && !failed; i++) await Promise.resolve();
      expect(failed).toBe(true);
      // Let the loop reach its pause after the failure.
      for (let i = 0; i < 100; i++) await Promise.resolve();
      let stopped = false;
      void subscription.stop().then(() => {
        stopped = true;
      });
      for (let i = 0; i < 100 && !stopped; i++) await Promise.resolve();
      expect(stopped).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
