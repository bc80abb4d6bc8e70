import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult,
  BACKWARDS,
  END,
  EventStoreDBClient,
  type JSONEventData,
  type ReadPosition,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from "@eventstore/db-client";
// The client's generated service definition, to stand up a local gRPC server in its place.
import { StreamsService } from "@eventstore/db-client/generated/streams_grpc_pb.js";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import {
  type EventStore,
  type NewEvent,
  START as PORT_START,
  type Position,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";

/**
 * The EventStoreDB adapter against a fake client: no server runs here (docs/eventstoredb.md).
 * The fake answers as client 6.2.1 does for the server behaviour each test names (read from the
 * client's compiled JS and the server's source), nothing more.
 */

/** 2^64-1: what servers before 22.6 send as the position of a stream read's events. */
const NO_POSITION = 2n ** 64n - 1n;

interface Stored {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: true;
  created: Date;
  position: Position;
}

interface FakeOptions {
  /** Server 22.6 and later: stream reads carry positions; before, 2^64-1. */
  streamPositions?: boolean;
  /** The append reply carries a position (WriteEvents.cs); an idempotent replay's may lack one. */
  replayPosition?: boolean;
  /** Connection string `throwOnAppendFailure=false`, batch-append path (batchAppend.js). */
  throwOnAppendFailure?: boolean;
  /** unsubscribe() rejects, as when endpoint discovery failed (esdb+discover://). */
  discoveryFails?: boolean;
}

class FakeSubscription extends PassThrough {
  unsubscribed = 0;
  constructor(readonly discoveryFails: boolean) {
    super({ objectMode: true });
  }
  async unsubscribe() {
    this.unsubscribed++;
    if (this.discoveryFails) throw new Error("Failed to discover after 10 attempts.");
  }
}

function fakeClient(options: FakeOptions = {}) {
  const log: Stored[] = [];
  const calls = { readStream: 0, dispose: 0, subscribeToAll: [] as number[] };
  const subscriptions: FakeSubscription[] = [];
  const streamOf = (name: string) => log.filter((e) => e.streamId === name);

  const resolved = (e: Stored, inStream: boolean): AllStreamResolvedEvent => ({
    event: {
      ...e,
      position:
        inStream && options.streamPositions === false
          ? { commit: NO_POSITION, prepare: NO_POSITION }
          : e.position,
    } as AllStreamResolvedEvent["event"],
    ...(inStream ? {} : { commitPosition: e.position.commit }),
  });

  const client = {
    async appendToStream(
      name: string,
      events: JSONEventData[],
      { expectedRevision }: { expectedRevision: AppendExpectedRevision },
    ): Promise<AppendResult> {
      const stream = streamOf(name);
      const current = BigInt(stream.length) - 1n;
      // Server IndexWriter.CheckCommit: with a revision or no_stream, ids already at the next
      // revisions are an idempotent replay answered with the last event's log position.
      const from = expectedRevision === "no_stream" ? -1n : expectedRevision;
      if (typeof from === "bigint" && from < current) {
        const matched = events.every((e, i) => stream[Number(from) + 1 + i]?.id === e.id);
        if (matched) {
          const last = stream[Number(from) + events.length];
          return {
            success: true,
            nextExpectedRevision: last.revision,
            position: options.replayPosition === false ? undefined : last.position,
          };
        }
      }
      const fits =
        expectedRevision === "any" ||
        (expectedRevision === "no_stream" && current < 0n) ||
        (expectedRevision === "stream_exists" && current >= 0n) ||
        expectedRevision === current;
      if (!fits) {
        if (options.throwOnAppendFailure === false) {
          // batchAppend.js: BigInt(wrongExpectedVersion.hasCurrentStreamRevision()), a boolean.
          return { success: false, nextExpectedRevision: current >= 0n ? 1n : -1n, position: undefined };
        }
        throw new WrongExpectedVersionError(undefined, {
          streamName: name,
          current: current < 0n ? "no_stream" : current,
          expected: expectedRevision,
        } as never);
      }
      for (const [i, e] of events.entries()) {
        const at = BigInt(log.length + 1) * 100n;
        log.push({
          streamId: name,
          id: e.id,
          revision: current + 1n + BigInt(i),
          type: e.type,
          data: e.data,
          metadata: e.metadata,
          isJson: true,
          created: new Date(),
          position: { commit: at, prepare: at },
        });
      }
      const last = log[log.length - 1];
      return { success: true, nextExpectedRevision: last.revision, position: last.position };
    },
    async *readStream(
      name: string,
      o: { fromRevision?: bigint | typeof START | typeof END; direction?: string; maxCount?: number } = {},
    ) {
      calls.readStream++;
      const stream = streamOf(name);
      if (stream.length === 0) throw new StreamNotFoundError(undefined, name);
      const backwards = o.direction === BACKWARDS;
      const from =
        o.fromRevision === END || o.fromRevision === undefined
          ? backwards
            ? stream.length - 1
            : 0
          : o.fromRevision === START
            ? 0
            : Number(o.fromRevision);
      const picked = backwards ? stream.slice(0, from + 1).reverse() : stream.slice(from);
      for (const e of picked.slice(0, o.maxCount ?? picked.length)) yield resolved(e, true);
    },
    async *readAll(o: { fromPosition?: ReadPosition; direction?: string; maxCount?: number } = {}) {
      const backwards = o.direction === BACKWARDS;
      const at = o.fromPosition;
      let picked = backwards ? [...log].reverse() : log;
      if (at && at !== START && at !== END) {
        picked = picked.filter((e) =>
          backwards ? e.position.commit < at.commit : e.position.commit >= at.commit,
        );
      }
      for (const e of picked.slice(0, o.maxCount ?? picked.length)) yield resolved(e, false);
    },
    subscribeToAll() {
      calls.subscribeToAll.push(Date.now());
      const subscription = new FakeSubscription(options.discoveryFails ?? false);
      subscriptions.push(subscription);
      return subscription;
    },
    async dispose() {
      calls.dispose++;
    },
  };
  return { client: client as unknown as EventStoreDBClient, log, calls, subscriptions };
}

function newEvent(): NewEvent {
  return {
    event_id: randomUUID(),
    type: "Tested",
    data: { n: Math.random() },
    metadata: {
      tenant_id: randomUUID(),
      actor_key_id: null,
      correlation_id: null,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    },
  };
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(5);
  }
}

let store: EventStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("EventStoreDB adapter: positions (issue 12, item 1)", () => {
  it("before 22.6: a multi-event append answers the reply's position of its last event, not 2^64-1", async () => {
    const fake = fakeClient({ streamPositions: false });
    store = createEventStoreDbEventStore(fake.client);
    const result = await store.appendToStream("s-1", [newEvent(), newEvent(), newEvent()], {
      expected_revision: "no_stream",
    });
    expect(result.next_revision).toBe(2n);
    expect(result.position).toEqual(fake.log[2].position);
    expect(await store.headPosition()).toEqual(result.position);
  });

  it("uses the reply's position without reading the stream back", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    const result = await store.appendToStream("s-1", [newEvent(), newEvent()], {
      expected_revision: "no_stream",
    });
    expect(result.position).toEqual(fake.log[1].position);
    expect(fake.calls.readStream).toBe(0);
  });

  it("a replay without a position reads it back (22.6+) or takes the head (before): never 2^64-1", async () => {
    for (const streamPositions of [true, false]) {
      const fake = fakeClient({ streamPositions, replayPosition: false });
      const s = createEventStoreDbEventStore(fake.client);
      const events = [newEvent()];
      const first = await s.appendToStream("s-1", events, { expected_revision: "no_stream" });
      expect(await s.appendToStream("s-1", events, { expected_revision: "no_stream" })).toEqual(first);
      await s.close();
    }
  });

  it("before 22.6: stream reads say the position is unknown (START), not 2^64-1", async () => {
    const fake = fakeClient({ streamPositions: false });
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    const [event] = await store.readStream("s-1");
    expect(event.position).toEqual(PORT_START);
    // From 22.6 on, the stream read's position is the one $all shows.
    const modern = fakeClient();
    const s = createEventStoreDbEventStore(modern.client);
    await s.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    expect((await s.readStream("s-1"))[0].position).toEqual((await s.readAll())[0].position);
    await s.close();
  });
});

describe("EventStoreDB adapter: throwOnAppendFailure=false (issue 12, item 2)", () => {
  it("reports the stream's real revision, not the batch-append path's boolean", async () => {
    const fake = fakeClient({ throwOnAppendFailure: false });
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent(), newEvent(), newEvent(), newEvent()], {
      expected_revision: "no_stream",
    });
    const error = await store.appendToStream("s-1", [newEvent()], { expected_revision: 1n }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect((error as WrongExpectedRevisionError).actual).toBe(3n);
    const missing = await store
      .appendToStream("s-2", [newEvent()], { expected_revision: 0n })
      .catch((e) => e);
    expect((missing as WrongExpectedRevisionError).actual).toBe("no_stream");
  });
});

describe("EventStoreDB adapter: idempotent replay (issue 12, item 3)", () => {
  it("a retry at the same revision answers as the first append: same revision, same position", async () => {
    const fake = fakeClient({ streamPositions: false });
    store = createEventStoreDbEventStore(fake.client);
    const events = [newEvent(), newEvent()];
    const first = await store.appendToStream("s-1", events, { expected_revision: "no_stream" });
    await store.appendToStream("s-2", [newEvent()], { expected_revision: "no_stream" });
    const again = await store.appendToStream("s-1", events, { expected_revision: "no_stream" });
    expect(again).toEqual(first);
    expect(again.position).toEqual(fake.log[1].position);
    expect(fake.log.length).toBe(3);
  });
});

describe("EventStoreDB adapter: stop and close always clean up (issue 12, item 4)", () => {
  it("subscription stop() finishes when unsubscribe() rejects (failed discovery)", async () => {
    const fake = fakeClient({ discoveryFails: true });
    store = createEventStoreDbEventStore(fake.client);
    const subscription = store.subscribeToAll({}, () => {});
    await waitFor(() => fake.subscriptions.length === 1);
    await subscription.stop();
    expect(fake.subscriptions[0].destroyed).toBe(true);
  });

  it("close() disposes the client, and dropping the last wake-up listener rejects nothing", async () => {
    const fake = fakeClient({ discoveryFails: true });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const s = createEventStoreDbEventStore(fake.client);
      const unsubscribe = s.onAppended(() => {});
      unsubscribe();
      await waitFor(() => fake.subscriptions[0]?.unsubscribed === 1);
      s.onAppended(() => {});
      s.subscribeToAll({}, () => {});
      await waitFor(() => fake.subscriptions.length === 3);
      await s.close();
      expect(fake.calls.dispose).toBe(1);
      expect(fake.subscriptions.every((sub) => sub.destroyed)).toBe(true);
      await sleep(20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("EventStoreDB adapter: the wake-up subscription (issue 12, item 5)", () => {
  it("restarts after a clean end as after an error, waking the listeners, with a growing pause", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client, { backoff: { initialMs: 20, maxMs: 1000 } });
    let woken = 0;
    store.onAppended(() => woken++);
    await waitFor(() => fake.subscriptions.length === 1);

    // The server ends the live subscription cleanly: it must come back.
    fake.subscriptions[0].end();
    await waitFor(() => fake.subscriptions.length === 2);
    expect(woken).toBe(1);

    fake.subscriptions[1].destroy(new Error("connection reset"));
    await waitFor(() => fake.subscriptions.length === 3);
    fake.subscriptions[2].end();
    await waitFor(() => fake.subscriptions.length === 4);
    fake.subscriptions[3].end();
    await waitFor(() => fake.subscriptions.length === 5);
    const pauses = fake.calls.subscribeToAll.slice(1).map((t, i) => t - fake.calls.subscribeToAll[i]);
    // Doubling from 20 ms (timers fire no earlier than asked; allow 2 ms of clock rounding).
    for (const [i, least] of [20, 40, 80, 160].entries()) expect(pauses[i]).toBeGreaterThanOrEqual(least - 2);

    // An event received proves the subscription healthy: the pause starts over at 20 ms, not 320.
    fake.subscriptions[4].write({});
    await waitFor(() => woken >= 5);
    fake.subscriptions[4].end();
    await waitFor(() => fake.subscriptions.length === 6);
    expect(fake.calls.subscribeToAll[5] - fake.calls.subscribeToAll[4]).toBeLessThan(300);
  });
});

describe("EventStoreDB adapter: close() closes the gRPC channel (issue 12, item 6)", () => {
  it("leaves no connection open after close (a real client against a local gRPC server)", async () => {
    const server = new grpc.Server();
    // Streams.Read answering an empty stream: enough for the client to open its channel.
    server.addService(StreamsService, {
      read: (call: grpc.ServerWritableStream<unknown, unknown>) => call.end(),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, p) =>
        error ? reject(error) : resolve(p),
      ),
    );
    try {
      const client = EventStoreDBClient.connectionString(`esdb://127.0.0.1:${port}?tls=false`);
      const s = createEventStoreDbEventStore(client);
      expect(await s.readStream("s-1")).toEqual([]);
      const channel = await (client as unknown as { getChannel(): Promise<grpc.Channel> }).getChannel();
      expect(channel.getConnectivityState(false)).toBe(grpc.connectivityState.READY);
      await s.close();
      expect(channel.getConnectivityState(false)).toBe(grpc.connectivityState.SHUTDOWN);
    } finally {
      server.forceShutdown();
    }
  });
});
