import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import { lineHash } from "../../src/platform/eventstore/chain.ts";
import {
  comparePositions,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
  START,
  type Subscription,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import {
  appendToStreams,
  DuplicateEventIdError,
} from "../../src/platform/eventstore/postgres/appendToStream.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { chainLine, verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { fakeClient } from "../support/fakeEventStoreDb.ts";
import { startFaultProxy } from "../support/faultProxy.ts";
import { openTransaction } from "../support/openTransaction.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/**
 * One contract, every adapter: PostgreSQL (TEST_DATABASE_URL, or the embedded server `npm test` starts), EventStoreDB
 * with EVENTSTORE_URL. Tests only look at positions after the head they start from, so they also
 * hold on an EventStoreDB server that already has a log (and system events).
 *
 * On PostgreSQL a committed event becomes readable only once every older write transaction of the
 * whole server has ended (the no-skip rule), and other suites share the server: tests wait for
 * their own appends to be readable (`settled`) instead of expecting it at once.
 */

interface Fixture {
  store: EventStore;
  /** A fresh, empty log (not the case for a shared EventStoreDB server). */
  fresh: boolean;
  /** The PostgreSQL database url, for raw transactions. */
  url?: string;
  /** A second instance over the same log, as another process would have. */
  another?: () => Promise<{ store: EventStore; close(): Promise<void> }>;
  /**
   * A second instance over the same log whose next append meets a fault (issue 22): `lost-reply`,
   * the write commits and its answer is lost; `cut`, the connection fails before the write.
   */
  faulty?: () => Promise<{
    store: EventStore;
    inject(fault: "lost-reply" | "cut"): void;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}

const adapters: { name: string; available: boolean; faultable?: boolean; open(): Promise<Fixture> }[] = [
  {
    name: "postgres",
    available: Boolean(process.env.TEST_DATABASE_URL),
    faultable: true,
    async open() {
      const db = await createTestDatabase("postgres");
      const store = createPostgresEventStore(db.sql);
      return {
        store,
        fresh: true,
        url: db.url,
        async another() {
          const sql: Sql = createPostgresSql(db.url!, { max: 2 });
          const other = createPostgresEventStore(sql);
          return {
            store: other,
            close: () =>
              inOrder(
                () => other.close(),
                () => sql.close(),
              ),
          };
        },
        async faulty() {
          const proxy = await startFaultProxy(db.url!, (text) =>
            text.includes("json_to_recordset($1::json)"),
          );
          const sql: Sql = createPostgresSql(proxy.url, { max: 2 });
          const other = createPostgresEventStore(sql);
          return {
            store: other,
            inject: (fault) => proxy.inject(fault === "lost-reply" ? "drop-reply" : "cut"),
            close: () =>
              inOrder(
                () => other.close(),
                () => sql.close(),
                () => proxy.close(),
              ),
          };
        },
        close: () =>
          inOrder(
            () => store.close(),
            () => db.drop(),
          ),
      };
    },
  },
  {
    // Client 6.2.1's answers without a server (test/support/fakeEventStoreDb.ts): the adapter's
    // side of the contract; the server's runs with EVENTSTORE_URL below.
    name: "eventstoredb (fake client)",
    available: true,
    faultable: true,
    async open() {
      const fake = fakeClient();
      const store = createEventStoreDbEventStore(fake.client);
      return {
        store,
        fresh: true,
        async another() {
          const other = createEventStoreDbEventStore(fake.client);
          return { store: other, close: () => other.close() };
        },
        async faulty() {
          return {
            store,
            inject: (fault) =>
              fake.faults.push({
                op: "append",
                kind: fault === "lost-reply" ? "timeout-after-commit" : "unavailable",
              }),
            close: async () => {},
          };
        },
        close: () => store.close(),
      };
    },
  },
  {
    name: "eventstoredb",
    available: Boolean(process.env.EVENTSTORE_URL),
    async open() {
      const url = process.env.EVENTSTORE_URL!;
      const store = createEventStoreDbEventStore(url);
      return {
        store,
        fresh: false,
        async another() {
          const other = createEventStoreDbEventStore(url);
          return { store: other, close: () => other.close() };
        },
        close: () => store.close(),
      };
    },
  },
];

async function inOrder(...steps: (() => Promise<unknown>)[]): Promise<void> {
  for (const step of steps) await step();
}

const stream = (category = "test") => `${category}-${randomUUID()}`;

/** One event appended on a given connection (an open transaction's), as the store would. */
const insertEvent = async (sql: Sql, stream_name: string, event: NewEvent) =>
  (await appendToStreams(sql, [{ stream_name, events: [event], expected_revision: "no_stream" }]))[0];

function newEvent(type = "Tested", data: Record<string, unknown> = {}, schema_version?: number): NewEvent {
  return {
    event_id: randomUUID(),
    type,
    schema_version,
    data: { n: Math.random(), ...data },
    metadata: {
      tenant_id: randomUUID(),
      actor_key_id: null,
      correlation_id: randomUUID(),
      causation_id: null,
      occurred_at: new Date().toISOString(),
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(20);
  }
}

const ids = (events: { event_id: string }[]) => events.map((e) => e.event_id);

function expectIncreasing(positions: Position[]) {
  for (let i = 1; i < positions.length; i++) {
    expect(comparePositions(positions[i - 1], positions[i])).toBe(-1);
  }
}

/**
 * Idempotency beyond what the port promises every engine (eventStore.ts): a retry with "any" or
 * "stream_exists" is a replay on PostgreSQL, best effort on EventStoreDB (a bounded cache of
 * recent ids); an id already in another stream is refused by PostgreSQL's unique index (DuplicateEventIdError) and
 * written again by EventStoreDB, which checks ids per stream (docs/eventstoredb.md).
 */
const idempotency: Record<
  string,
  { looseRetry: "replay" | "best effort"; otherStream: "refused" | "written" }
> = {
  postgres: { looseRetry: "replay", otherStream: "refused" },
  eventstoredb: { looseRetry: "best effort", otherStream: "written" },
  "eventstoredb (fake client)": { looseRetry: "best effort", otherStream: "written" },
};

for (const adapter of adapters) {
  const guarantees = idempotency[adapter.name];
  describe.skipIf(!adapter.available)(`event store contract: ${adapter.name}`, () => {
    let fixture: Fixture;
    let store: EventStore;
    /** The position of the latest append made by these tests. */
    let last: Position = START;
    const note = (position: Position) => {
      if (comparePositions(position, last) > 0) last = position;
      return position;
    };
    /** Waits until readers see everything up to `position` (by default, every append so far). */
    const settled = (position: Position = last) =>
      waitFor(async () => comparePositions((await store.headPosition()) ?? START, position) >= 0);
    /** Where the log ends when a test begins: it reads only what comes after. */
    const head = async () => {
      await settled();
      return (await store.headPosition()) ?? START;
    };

    beforeAll(async () => {
      fixture = await adapter.open();
      // Every append through the store is noted, so a test can wait for it to become readable.
      store = {
        ...fixture.store,
        appendToStream: async (stream_name, events, options) => {
          const result = await fixture.store.appendToStream(stream_name, events, options);
          note(result.position);
          return result;
        },
        appendToStreams: fixture.store.appendToStreams
          ? async (writes) => {
              const results = await fixture.store.appendToStreams!(writes);
              for (const r of results) note(r.position);
              return results;
            }
          : undefined,
      };
    });
    afterAll(async () => {
      await fixture?.close();
    });

    it("reports its engine", () => {
      expect(store.engine).toBe(adapter.name.replace(" (fake client)", ""));
    });

    it("starts empty when fresh: no head, nothing to read", async () => {
      if (!fixture.fresh) return;
      expect(await store.headPosition()).toBeNull();
      expect(await store.readAll()).toEqual([]);
      expect(await store.readAll({ after: START })).toEqual([]);
    });

    describe("appendToStream with each expected-revision mode", () => {
      it("no_stream: creates a new stream at revision 0, refuses an existing one", async () => {
        const name = stream();
        const first = await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
        expect(first.next_revision).toBe(0n);
        const error = await rejection(
          store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" }),
        );
        expect(error.stream_name).toBe(name);
        expect(error.expected).toBe("no_stream");
        expect(error.actual).toBe(0n);
        expect((await store.readStream(name)).length).toBe(1);
      });

      it("any: appends whether or not the stream exists", async () => {
        const name = stream();
        expect(
          (await store.appendToStream(name, [newEvent()], { expected_revision: "any" })).next_revision,
        ).toBe(0n);
        expect(
          (await store.appendToStream(name, [newEvent()], { expected_revision: "any" })).next_revision,
        ).toBe(1n);
        expect((await store.readStream(name)).map((e) => e.stream_revision)).toEqual([0n, 1n]);
      });

      it("stream_exists: refuses a new stream (actual no_stream), appends to an existing one", async () => {
        const name = stream();
        const error = await rejection(
          store.appendToStream(name, [newEvent()], { expected_revision: "stream_exists" }),
        );
        expect(error.expected).toBe("stream_exists");
        expect(error.actual).toBe("no_stream");
        expect(await store.readStream(name)).toEqual([]);
        await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
        const next = await store.appendToStream(name, [newEvent()], { expected_revision: "stream_exists" });
        expect(next.next_revision).toBe(1n);
      });

      it("exact revision: appends at the current revision, refuses a stale, future or missing one", async () => {
        const name = stream();
        const missing = await rejection(store.appendToStream(name, [newEvent()], { expected_revision: 0n }));
        expect(missing.actual).toBe("no_stream");
        expect(missing.expected).toBe(0n);

        await store.appendToStream(name, [newEvent(), newEvent()], { expected_revision: "no_stream" });
        const next = await store.appendToStream(name, [newEvent()], { expected_revision: 1n });
        expect(next.next_revision).toBe(2n);

        for (const expected of [1n, 0n, 5n] as ExpectedRevision[]) {
          const error = await rejection(
            store.appendToStream(name, [newEvent()], { expected_revision: expected }),
          );
          expect(error.expected).toBe(expected);
          expect(error.actual).toBe(2n);
        }
        expect((await store.readStream(name)).map((e) => e.stream_revision)).toEqual([0n, 1n, 2n]);
      });

      it("several events take consecutive revisions; the result names the last one and its position", async () => {
        const name = stream();
        const from = await head();
        const events = [newEvent("A"), newEvent("B"), newEvent("C")];
        const result = await store.appendToStream(name, events, { expected_revision: "no_stream" });
        expect(result.next_revision).toBe(2n);
        await settled();
        const read = await store.readAll({ after: from });
        expect(ids(read)).toEqual(ids(events));
        // Waiting for projectors to pass result.position must mean the whole write is projected.
        expect(comparePositions(result.position, read[2].position)).toBe(0);
        expect(await store.headPosition()).toEqual(read[2].position);
      });
    });

    describe("concurrency", () => {
      it("concurrent appends at the same expected revision: exactly one wins", async () => {
        const name = stream();
        const attempts = Array.from({ length: 8 }, () => [newEvent(), newEvent()]);
        const results = await Promise.allSettled(
          attempts.map((events) => store.appendToStream(name, events, { expected_revision: "no_stream" })),
        );
        const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
        expect(won.length).toBe(1);
        for (const r of results) {
          if (r.status === "rejected") {
            expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
            expect(r.reason.actual).toBe(1n);
          }
        }
        expect(ids(await store.readStream(name))).toEqual(ids(attempts[won[0]]));

        const again = await Promise.allSettled(
          attempts.map(() => store.appendToStream(name, [newEvent()], { expected_revision: 1n })),
        );
        expect(again.filter((r) => r.status === "fulfilled").length).toBe(1);
        expect((await store.readStream(name)).map((e) => e.stream_revision)).toEqual([0n, 1n, 2n]);
      });
    });

    describe("idempotent append by event id", () => {
      it("the same events at the same expected revision twice: one copy, the same result", async () => {
        const name = stream();
        const events = [newEvent(), newEvent()];
        const first = await store.appendToStream(name, events, { expected_revision: "no_stream" });
        const second = await store.appendToStream(name, events, { expected_revision: "no_stream" });
        expect(second).toEqual(first);
        expect(ids(await store.readStream(name))).toEqual(ids(events));

        const more = [newEvent()];
        const third = await store.appendToStream(name, more, { expected_revision: 1n });
        expect(await store.appendToStream(name, more, { expected_revision: 1n })).toEqual(third);
        expect(ids(await store.readStream(name))).toEqual(ids([...events, ...more]));
      });

      it("a partial match of an earlier append (some ids the same, some new) is a conflict", async () => {
        const name = stream();
        const events = [newEvent(), newEvent()];
        await store.appendToStream(name, events, { expected_revision: "no_stream" });
        for (const retry of [
          [events[0], newEvent()],
          [...events, newEvent()],
        ]) {
          const error = await rejection(
            store.appendToStream(name, retry, { expected_revision: "no_stream" }),
          );
          expect(error.actual).toBe(1n);
        }
        expect(ids(await store.readStream(name))).toEqual(ids(events));
      });

      it("with any or stream_exists: a retry is a replay only where the engine guarantees it", async (test) => {
        if (guarantees.looseRetry !== "replay") return test.skip();
        const name = stream();
        await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
        for (const expected of ["any", "stream_exists"] as const) {
          const events = [newEvent()];
          const first = await store.appendToStream(name, events, { expected_revision: expected });
          expect(await store.appendToStream(name, events, { expected_revision: expected })).toEqual(first);
        }
        expect((await store.readStream(name)).length).toBe(3);
      });

      it("ids are checked per stream: the same events in another stream are never its replay", async () => {
        const [a, b] = [stream(), stream()];
        const events = [newEvent()];
        const first = await store.appendToStream(a, events, { expected_revision: "no_stream" });
        const other = store.appendToStream(b, events, { expected_revision: "no_stream" });
        if (guarantees.otherStream === "refused") {
          // Not a revision conflict (callers retry those): an exact error naming the id's stream.
          await expect(other).rejects.toBeInstanceOf(DuplicateEventIdError);
          expect(await store.readStream(b)).toEqual([]);
        } else {
          const written = await other;
          expect(written.next_revision).toBe(0n);
          expect(comparePositions(written.position, first.position)).toBe(1);
          expect(ids(await store.readStream(b))).toEqual(ids(events));
        }
        expect(ids(await store.readStream(a))).toEqual(ids(events));
      });

      it("the same ids but new events in between is a conflict, not a replay", async () => {
        const name = stream();
        const events = [newEvent()];
        await store.appendToStream(name, events, { expected_revision: "no_stream" });
        await store.appendToStream(name, [newEvent()], { expected_revision: 0n });
        const error = await rejection(store.appendToStream(name, [newEvent()], { expected_revision: 0n }));
        expect(error.actual).toBe(1n);
        expect((await store.readStream(name)).length).toBe(2);
      });
    });

    describe("hash chain (docs/audit.md)", () => {
      /** The stream as export lines, checked as `pms audit verify` checks them. */
      const verifyStream = async (name: string) =>
        verifyLines((await store.readStream(name)).map((e) => JSON.stringify(chainLine(e))));

      it("each event carries its line's hash and the previous event's (null at revision 0), in every mode", async () => {
        const name = stream();
        await store.appendToStream(name, [newEvent("A", { amount: 1.5, é: "ü\n" }), newEvent("B")], {
          expected_revision: "no_stream",
        });
        await store.appendToStream(name, [newEvent("C")], { expected_revision: 1n });
        await store.appendToStream(name, [newEvent("D")], { expected_revision: "any" });
        await store.appendToStream(name, [newEvent("E")], { expected_revision: "stream_exists" });
        const events = await store.readStream(name);
        expect(events[0].previous_hash).toBeNull();
        for (const [i, e] of events.entries()) {
          expect(e.hash).toBe(lineHash(chainLine(e)));
          if (i > 0) expect(e.previous_hash).toBe(events[i - 1].hash);
        }
        expect(await verifyStream(name)).toMatchObject({ ok: true, events: 5, streams: 1 });
        // readAll carries the same hashes.
        await settled();
        const all = await store.readAll({ after: START, max_count: 100_000 });
        const mine = all.filter((e) => e.stream_name === name);
        expect(mine.map((e) => e.hash)).toEqual(events.map((e) => e.hash));
      });

      it("concurrent appends to one stream, from two instances, never chain on the same previous event", async () => {
        const name = stream();
        await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
        const other = fixture.another ? await fixture.another() : null;
        try {
          const stores = other ? [store, other.store] : [store];
          const outcomes = await Promise.allSettled(
            Array.from({ length: 16 }, (_, i) =>
              stores[i % stores.length].appendToStream(name, [newEvent(), newEvent()], {
                expected_revision: i % 2 === 0 ? "any" : 0n,
              }),
            ),
          );
          // Exact revision 0: at most one of those wins; "any" always lands, after whatever is there.
          expect(outcomes.filter((o) => o.status === "fulfilled").length).toBeGreaterThanOrEqual(8);
        } finally {
          await other?.close();
        }
        const verdict = await verifyStream(name);
        expect(verdict.failure).toBeUndefined();
        expect(verdict.ok).toBe(true);
      });

      it("a changed byte in a stored event fails verification, naming that event", async () => {
        const name = stream();
        await store.appendToStream(name, [newEvent("A"), newEvent("B", { rent: 80000 }), newEvent("C")], {
          expected_revision: "no_stream",
        });
        const lines = (await store.readStream(name)).map((e) => JSON.stringify(chainLine(e)));
        lines[1] = lines[1].replace('"rent":80000', '"rent":80001');
        const verdict = verifyLines(lines);
        expect(verdict.ok).toBe(false);
        expect(verdict.failure).toMatchObject({ line: 2, stream_name: name, stream_revision: 1 });
      });
    });

    describe("readStream", () => {
      it("returns the stream in revision order with every field; from_revision and max_count", async () => {
        const name = stream("lessee");
        const events = [newEvent("LesseeRegistered", { email: "a@b.fr" }, 2), newEvent("X"), newEvent("Y")];
        await store.appendToStream(name, events, { expected_revision: "no_stream" });
        await store.appendToStream(stream(), [newEvent()], { expected_revision: "no_stream" });
        await store.appendToStream(name, [newEvent("Z")], { expected_revision: 2n });

        const all = await store.readStream(name);
        expect(all.map((e) => e.type)).toEqual(["LesseeRegistered", "X", "Y", "Z"]);
        expect(all.map((e) => e.stream_revision)).toEqual([0n, 1n, 2n, 3n]);
        const [first] = all;
        expect(first).toMatchObject({
          event_id: events[0].event_id,
          type: "LesseeRegistered",
          schema_version: 2,
          data: events[0].data,
          stream_name: name,
        });
        // The metadata is exactly the port's: no engine bookkeeping (schema_version) leaks in.
        expect(first.metadata).toEqual(events[0].metadata);
        expect(all[1].schema_version).toBe(1);
        expect(Number.isNaN(Date.parse(first.created_at))).toBe(false);
        expectIncreasing(all.map((e) => e.position));

        expect((await store.readStream(name, { from_revision: 2n })).map((e) => e.type)).toEqual(["Y", "Z"]);
        expect((await store.readStream(name, { max_count: 2 })).map((e) => e.type)).toEqual([
          "LesseeRegistered",
          "X",
        ]);
        expect(
          (await store.readStream(name, { from_revision: 1n, max_count: 2 })).map((e) => e.type),
        ).toEqual(["X", "Y"]);
        expect(await store.readStream(name, { from_revision: 4n })).toEqual([]);
      });

      it("returns [] for an unknown stream", async () => {
        expect(await store.readStream(stream())).toEqual([]);
      });
    });

    describe("readAll", () => {
      it("from START: the whole log in order (exactly, on a fresh log)", async () => {
        const name = stream();
        const events = [newEvent(), newEvent()];
        await store.appendToStream(name, events, { expected_revision: "any" });
        await settled();
        const fromStart = await store.readAll({ after: START, max_count: 1000 });
        expect(fromStart.length).toBeGreaterThan(0);
        expect(fromStart.every((e) => !e.type.startsWith("$"))).toBe(true);
        expectIncreasing(fromStart.map((e) => e.position));
        expect(ids(await store.readAll({ max_count: 1000 }))).toEqual(ids(fromStart));
        if (fixture.fresh) {
          const everything: RecordedEvent[] = [];
          for (let after = START; ; ) {
            const page = await store.readAll({ after, max_count: 50 });
            if (page.length === 0) break;
            everything.push(...page);
            // Every page must move forward, or paging never ends.
            expect(comparePositions(page[page.length - 1].position, after)).toBe(1);
            after = page[page.length - 1].position;
          }
          expect(ids(everything.slice(-2))).toEqual(ids(events));
          expect(ids(everything.slice(0, fromStart.length))).toEqual(ids(fromStart));
        }
      });

      it("from a position: strictly after it, in append order across streams, max_count pages", async () => {
        const from = await head();
        const a = stream("a");
        const b = stream("b");
        const appended: NewEvent[] = [];
        const append = async (name: string, expected: ExpectedRevision) => {
          const e = newEvent();
          appended.push(e);
          await store.appendToStream(name, [e], { expected_revision: expected });
        };
        await append(a, "no_stream");
        await append(b, "no_stream");
        await append(a, 0n);
        await append(b, 0n);
        await append(b, 1n);
        await settled();

        const read = await store.readAll({ after: from });
        expect(ids(read)).toEqual(ids(appended));
        expect(read.map((e) => e.stream_name)).toEqual([a, b, a, b, b]);
        expectIncreasing(read.map((e) => e.position));

        // Exclusive: the event at `after` itself is not returned again.
        expect(ids(await store.readAll({ after: read[1].position }))).toEqual(ids(appended.slice(2)));
        expect(ids(await store.readAll({ after: read[1].position, max_count: 2 }))).toEqual(
          ids(appended.slice(2, 4)),
        );
        expect(await store.readAll({ after: read[4].position })).toEqual([]);

        const paged: RecordedEvent[] = [];
        for (let after = from; ; ) {
          const page = await store.readAll({ after, max_count: 2 });
          expect(page.length).toBeLessThanOrEqual(2);
          if (page.length === 0) break;
          paged.push(...page);
          expect(paged.length).toBeLessThanOrEqual(appended.length);
          after = page[page.length - 1].position;
        }
        expect(ids(paged)).toEqual(ids(appended));
      });
    });

    // Optional: engines with multi-stream transactions only (not EventStoreDB).
    describe("appendToStreams (all or nothing)", () => {
      const supported = () => Boolean(fixture.store.appendToStreams);

      it("appends to several streams in one commit; revisions and positions per stream", async (test) => {
        if (!supported()) return test.skip();
        const [a, b, c] = [stream(), stream(), stream()];
        await store.appendToStream(b, [newEvent()], { expected_revision: "no_stream" });
        await store.appendToStream(c, [newEvent(), newEvent()], { expected_revision: "no_stream" });
        const from = await head();
        const writes = [
          {
            stream_name: a,
            events: [newEvent("A1"), newEvent("A2")],
            expected_revision: "no_stream" as const,
          },
          { stream_name: b, events: [newEvent("B")], expected_revision: 0n },
          { stream_name: c, events: [newEvent("C")], expected_revision: "stream_exists" as const },
        ];
        const results = await store.appendToStreams!(writes);
        expect(results.map((r) => r.next_revision)).toEqual([1n, 1n, 2n]);
        expectIncreasing(results.map((r) => r.position));
        await settled();
        const read = await store.readAll({ after: from });
        expect(ids(read)).toEqual(ids(writes.flatMap((w) => w.events)));
        // Each result is the position of its stream's last event.
        expect(results.map((r) => r.position)).toEqual([
          read[1].position,
          read[2].position,
          read[3].position,
        ]);
        expect((await store.readStream(b)).map((e) => e.stream_revision)).toEqual([0n, 1n]);
        // Retrying the very same writes answers as the first time, writing nothing more.
        expect(await store.appendToStreams!(writes)).toEqual(results);
        expect((await store.readStream(a)).length).toBe(2);
      });

      it("one stream at a wrong revision: nothing is written, the error names that stream", async (test) => {
        if (!supported()) return test.skip();
        const [a, b, c] = [stream(), stream(), stream()];
        await store.appendToStream(b, [newEvent()], { expected_revision: "no_stream" });
        const from = await head();
        for (const [expected, actual] of [
          ["no_stream", 0n],
          [1n, 0n],
        ] as [ExpectedRevision, bigint][]) {
          const error = await rejection(
            store.appendToStreams!([
              { stream_name: a, events: [newEvent()], expected_revision: "no_stream" },
              { stream_name: b, events: [newEvent()], expected_revision: expected },
              { stream_name: c, events: [newEvent()], expected_revision: "no_stream" },
            ]),
          );
          expect(error.stream_name).toBe(b);
          expect(error.expected).toBe(expected);
          expect(error.actual).toBe(actual);
        }
        const missing = await rejection(
          store.appendToStreams!([
            { stream_name: a, events: [newEvent()], expected_revision: "no_stream" },
            { stream_name: c, events: [newEvent()], expected_revision: 0n },
          ]),
        );
        expect(missing.stream_name).toBe(c);
        expect(missing.actual).toBe("no_stream");
        expect(await store.readStream(a)).toEqual([]);
        expect((await store.readStream(b)).length).toBe(1);
        expect(await store.readStream(c)).toEqual([]);
        const marker = await store.appendToStream(stream(), [newEvent()], { expected_revision: "no_stream" });
        await settled();
        // Nothing of the refused writes reached the log: only the marker follows.
        expect((await store.readAll({ after: from })).map((e) => e.position)).toEqual([marker.position]);
      });

      it("concurrent writes sharing a stream at the same expected revision: exactly one wins whole", async (test) => {
        if (!supported()) return test.skip();
        const shared = stream();
        const attempts = Array.from({ length: 6 }, () => ({ own: stream(), event: newEvent() }));
        const results = await Promise.allSettled(
          attempts.map((a) =>
            store.appendToStreams!([
              { stream_name: shared, events: [newEvent()], expected_revision: "no_stream" },
              { stream_name: a.own, events: [a.event], expected_revision: "no_stream" },
            ]),
          ),
        );
        const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
        expect(won.length).toBe(1);
        for (const r of results) {
          if (r.status === "rejected") {
            expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
            expect(r.reason.stream_name).toBe(shared);
          }
        }
        for (const [i, a] of attempts.entries()) {
          expect((await store.readStream(a.own)).length).toBe(i === won[0] ? 1 : 0);
        }
      });
    });

    it("headPosition is the position of the last committed event", async () => {
      const name = stream();
      const result = await store.appendToStream(name, [newEvent()], { expected_revision: "no_stream" });
      await settled();
      const head1 = await store.headPosition();
      expect(head1).toEqual(result.position);
      const [last] = await store.readStream(name);
      expect(head1).toEqual(last.position);
      const next = await store.appendToStream(name, [newEvent(), newEvent()], { expected_revision: 0n });
      await settled();
      const head2 = await store.headPosition();
      expect(head2).toEqual(next.position);
      expect(comparePositions(head1!, head2!)).toBe(-1);
    });

    describe.skipIf(!adapter.faultable)("unknown outcomes (issue 22)", () => {
      for (const fault of ["lost-reply", "cut"] as const) {
        it(`an append meeting a ${fault} answers as written, and is written once`, async () => {
          const faulty = await fixture.faulty!();
          try {
            const s = stream();
            await faulty.store.appendToStream(s, [newEvent()], { expected_revision: "no_stream" });
            const events = [newEvent(), newEvent()];
            faulty.inject(fault);
            const result = await faulty.store.appendToStream(s, events, { expected_revision: 0n });
            note(result.position);
            expect(result.next_revision).toBe(2n);
            const read = await store.readStream(s);
            expect(ids(read.slice(1))).toEqual(ids(events));
            expect(result.position).toEqual(read[2].position);
            // A retry of the same write (the client's, with its derived ids) replays it.
            expect(await store.appendToStream(s, events, { expected_revision: 0n })).toEqual(result);
            expect(await store.readStream(s)).toHaveLength(3);
          } finally {
            await faulty.close();
          }
        });
      }
    });

    describe("subscribeToAll", () => {
      it("catches up, then delivers live events in order; stop ends delivery", async () => {
        const from = await head();
        const name = stream();
        const catchUp = [newEvent(), newEvent()];
        await store.appendToStream(name, catchUp, { expected_revision: "no_stream" });

        const received: RecordedEvent[] = [];
        let inHandler = 0;
        let overlapped = false;
        const subscription = store.subscribeToAll({ after: from }, async (event) => {
          // One event at a time: the next is not delivered before this handler finishes.
          if (inHandler++ > 0) overlapped = true;
          await sleep(5);
          received.push(event);
          inHandler--;
        });
        let stopped = false;
        try {
          await waitFor(() => received.length >= 2);

          const live = [newEvent(), newEvent()];
          await store.appendToStream(name, [live[0]], { expected_revision: 1n });
          await store.appendToStream(stream(), [live[1]], { expected_revision: "no_stream" });
          await waitFor(() => received.length >= 4);
          expect(ids(received)).toEqual(ids([...catchUp, ...live]));
          expectIncreasing(received.map((e) => e.position));
          expect(overlapped).toBe(false);

          stopped = true;
          await subscription.stop();
          await store.appendToStream(name, [newEvent()], { expected_revision: 2n });
          await sleep(1500);
          expect(received.length).toBe(4);
        } finally {
          if (!stopped) await subscription.stop();
        }
      });

      it("delivers nothing more once stop() is called, even mid-batch", async () => {
        const from = await head();
        const name = stream();
        await store.appendToStream(name, [newEvent(), newEvent(), newEvent()], {
          expected_revision: "no_stream",
        });
        const received: RecordedEvent[] = [];
        let stopping: Promise<void> | undefined;
        const subscription: Subscription = store.subscribeToAll({ after: from }, (event) => {
          received.push(event);
          // Not awaited: stop() waits for the handler in progress, this one.
          stopping ??= subscription.stop();
        });
        try {
          await waitFor(() => stopping !== undefined);
          await stopping;
          await sleep(300);
          expect(received.length).toBe(1);
        } finally {
          await subscription.stop();
        }
      });

      it("starts strictly after the given position", async () => {
        const name = stream();
        const events = [newEvent(), newEvent(), newEvent()];
        await store.appendToStream(name, events, { expected_revision: "no_stream" });
        const [first] = await store.readStream(name);
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: first.position }, (event) => {
          if (event.stream_name === name) received.push(event);
        });
        try {
          await waitFor(() => received.length >= 2);
          await sleep(200);
          expect(ids(received)).toEqual(ids(events.slice(1)));
        } finally {
          await subscription.stop();
        }
      });
    });

    describe("onAppended", () => {
      it("fires after an append, not after unsubscribing", async () => {
        let calls = 0;
        const unsubscribe = store.onAppended(() => calls++);
        await store.appendToStream(stream(), [newEvent()], { expected_revision: "no_stream" });
        await waitFor(() => calls > 0);
        unsubscribe();
        await sleep(300);
        const before = calls;
        await store.appendToStream(stream(), [newEvent()], { expected_revision: "no_stream" });
        await sleep(300);
        expect(calls).toBe(before);
      });

      it("fires for appends made by another instance on the same log", async () => {
        if (!fixture.another) return; // an adapter without a second instance
        const other = await fixture.another();
        let calls = 0;
        const unsubscribe = store.onAppended(() => calls++);
        try {
          // Let a lazily started listener (LISTEN, live subscription) get in place.
          await sleep(500);
          note(
            (await other.store.appendToStream(stream(), [newEvent()], { expected_revision: "no_stream" }))
              .position,
          );
          await waitFor(() => calls > 0, 5000);
        } finally {
          unsubscribe();
          await other.close();
        }
      });
    });

    describe("ordering under delayed commits (PostgreSQL)", () => {
      for (const variant of ["inserted before", "inserted after"] as const) {
        it(`a transaction still open holds readers back, then its event is delivered (${variant} the others)`, async () => {
          if (!fixture.url) return; // PostgreSQL only: a raw transaction needs its url
          const first = newEvent("First");
          const late = newEvent("Late");
          const other = newEvent("Other");
          const firstAt = (await store.appendToStream(stream(), [first], { expected_revision: "no_stream" }))
            .position;
          await settled();

          const received: RecordedEvent[] = [];
          const subscription = store.subscribeToAll({ after: firstAt }, (e) => {
            received.push(e);
          });
          const tx = await openTransaction(fixture.url);
          let open = true;
          try {
            if (variant === "inserted before") {
              note((await insertEvent(tx.sql, stream(), late)).position);
              await store.appendToStream(stream(), [other], { expected_revision: "no_stream" });
            } else {
              // The late transaction starts (takes its id) first but writes after the other commits,
              // so its row has a larger sequence number yet belongs before the other in the log.
              await tx.sql.query("SELECT pg_current_xact_id()");
              await store.appendToStream(stream(), [other], { expected_revision: "no_stream" });
              note((await insertEvent(tx.sql, stream(), late)).position);
            }

            // The other event is committed but lies past the open transaction: nobody may see it yet,
            // or a reader would move its checkpoint past the late event and skip it.
            expect(await store.readAll({ after: firstAt })).toEqual([]);
            expect(await store.headPosition()).toEqual(firstAt);
            await sleep(1500);
            expect(received).toEqual([]);

            open = false;
            await tx.commit();
            await settled();
            const read = await store.readAll({ after: firstAt });
            expect(ids(read)).toEqual(ids([late, other]));
            expectIncreasing(read.map((e) => e.position));
            if (variant === "inserted after") {
              expect(read[0].position.prepare > read[1].position.prepare).toBe(true);
            }
            expect(await store.headPosition()).toEqual(read[1].position);
            // The subscriber resumes: the late event arrives, before the other, and nothing is skipped.
            await waitFor(() => received.length >= 2);
            await sleep(200);
            expect(ids(received)).toEqual(ids([late, other]));
          } finally {
            if (open) await tx.rollback().catch(() => {});
            await subscription.stop();
          }
        });
      }

      it("a transaction open in another database holds plain readers back, not those reading past it", async () => {
        if (!fixture.url || store.engine !== "postgres") return;
        // Another database of the same server: its transaction cannot write this log.
        const elsewhere = new URL(fixture.url);
        elsewhere.pathname = "/postgres";
        const from = await head();
        const tx = await openTransaction(elsewhere.toString());
        const other = newEvent("Other");
        try {
          await tx.sql.query("SELECT pg_current_xact_id()");
          const { position } = await store.appendToStream(stream(), [other], {
            expected_revision: "no_stream",
          });
          expect(await store.readAll({ after: from })).toEqual([]);
          expect(ids(await store.readAll({ after: from, past_other_databases: true }))).toEqual(ids([other]));
          // The head as lag reports read it (admin, health, metrics): past the other database too.
          expect(await store.headPosition({ past_other_databases: true })).toEqual(position);
          expect((await store.headPosition()) ?? START).toEqual(from);
          // One of this database still holds every reader.
          const here = await openTransaction(fixture.url);
          try {
            await here.sql.query("SELECT pg_current_xact_id()");
            const later = newEvent("Later");
            await store.appendToStream(stream(), [later], { expected_revision: "no_stream" });
            expect(ids(await store.readAll({ after: from, past_other_databases: true }))).toEqual(
              ids([other]),
            );
          } finally {
            await here.rollback();
          }
        } finally {
          await tx.rollback();
        }
      });

      it("a rolled-back transaction releases readers without leaving a gap", async () => {
        if (!fixture.url) return;
        const from = await head();
        const tx = await openTransaction(fixture.url);
        const other = newEvent("Other");
        try {
          await insertEvent(tx.sql, stream(), newEvent("Never"));
          await store.appendToStream(stream(), [other], { expected_revision: "no_stream" });
          expect(await store.readAll({ after: from })).toEqual([]);
        } finally {
          await tx.rollback();
        }
        await settled();
        expect(ids(await store.readAll({ after: from }))).toEqual(ids([other]));
      });
    });
  });
}
