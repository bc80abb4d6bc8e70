import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { EventStoreDBClient } from "@eventstore/db-client";
// The client's generated service definition, to stand up a local gRPC server in its place.
import { StreamsService } from "@eventstore/db-client/generated/streams_grpc_pb.js";
import * as grpc from "@grpc/grpc-js";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { metrics } from "../../src/platform/collectMetrics.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { canonical } from "../../src/platform/eventstore/chain.ts";
import {
  AppendTooLargeError,
  certainlyUnwritten,
  type EventStore,
  type NewEvent,
  START as PORT_START,
  StoreUnavailableError,
  StreamDeletedError,
  UndecodableEventError,
  WriteOutcomeUnknownError,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import {
  eventStoreHosts,
  toClientConnectionString,
} from "../../src/platform/eventstore/eventstoredb/connectionString.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import { chainLine, verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { errorHandler } from "../../src/platform/http/errorHandler.ts";
import {
  commitReserving,
  type HolderWrite,
  readReservation,
  settleHolder,
} from "../../src/platform/reserveUnique.ts";
import type { CommandContext } from "../../src/platform/runCommand.ts";
import { badges } from "../support/badges.ts";
import { fakeClient } from "../support/fakeEventStoreDb.ts";

/**
 * The EventStoreDB adapter against a fake client: no server runs here (docs/eventstoredb.md).
 * The fake answers as client 6.2.1 does for the server behaviour each test names (read from the
 * client's compiled JS and the server's source), nothing more.
 */

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

describe("EventStoreDB adapter: unknown outcomes and refusals (issue 22)", () => {
  const once = (
    kind: "timeout-after-commit" | "unavailable" | "not-leader",
    op: "append" | "read" = "append",
  ) => ({
    op,
    kind,
    times: 1,
  });

  it("a timeout after the commit answers as the append did, written once (read back by event id)", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    fake.faults.push(once("timeout-after-commit"));
    const events = [newEvent(), newEvent()];
    const result = await store.appendToStream("s-1", events, { expected_revision: "no_stream" });
    expect(result).toEqual({ next_revision: 1n, position: fake.log[1].position });
    expect(fake.log.map((e) => e.id)).toEqual(events.map((e) => e.event_id));
  });

  it("before 22.6 (no positions on stream reads) the settled append answers the head of $all", async () => {
    const fake = fakeClient({ streamPositions: false });
    store = createEventStoreDbEventStore(fake.client);
    fake.faults.push(once("timeout-after-commit"));
    const result = await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    expect(result.position).toEqual(fake.log[0].position);
  });

  it("an append lost before the server (unavailable) is sent again with the same ids: written once", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    fake.faults.push(once("unavailable"));
    const event = newEvent();
    const result = await store.appendToStream("s-1", [event], { expected_revision: 0n });
    expect(result.next_revision).toBe(1n);
    expect(fake.log.map((e) => e.id)).toEqual([fake.log[0].id, event.event_id]);
  });

  it("another writer in the place of an unconfirmed append: a certain WrongExpectedRevisionError", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    const other = createEventStoreDbEventStore(fake.client);
    fake.faults.push({ op: "append", kind: "unavailable", stream: /^s-1$/, times: 1 });
    const mine = store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    // The other append runs while ours is being settled: it takes revision 0.
    await other.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    const error = await mine.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(fake.log).toHaveLength(1);
  });

  it("a write that cannot be settled (the server stays away) is a WriteOutcomeUnknownError, a 503", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    fake.faults.push({ op: "append", kind: "timeout-after-commit", thenDown: true });
    const error = await store
      .appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect(certainlyUnwritten(error)).toBe(false);
    expect(await answerOf(error)).toMatchObject({ status: 503, body: { error: "ServiceUnavailable" } });
    // It had committed: exactly once.
    expect(fake.log).toHaveLength(1);
  });

  it("a follower's NotLeaderError that outlasts the client's move to the leader is a certain refusal answered 503", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    // Three tries: the client moves to the leader after each refusal (Client/index.js).
    fake.faults.push({ ...once("not-leader"), times: 3 });
    const error = await store
      .appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(certainlyUnwritten(error)).toBe(true);
    expect(fake.log).toHaveLength(0);
    expect(await answerOf(error)).toMatchObject({ status: 503, body: { error: "ServiceUnavailable" } });
  });

  it("a tombstoned stream refuses reads and appends with StreamDeletedError, answered 409", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    fake.tombstone("s-1");
    const appended = await store
      .appendToStream("s-1", [newEvent()], { expected_revision: 0n })
      .catch((e) => e);
    expect(appended).toBeInstanceOf(StreamDeletedError);
    expect(appended.stream_name).toBe("s-1");
    expect(await store.readStream("s-1").catch((e) => e)).toBeInstanceOf(StreamDeletedError);
    expect(await answerOf(appended)).toMatchObject({ status: 409, body: { error: "Conflict" } });
  });

  it("an append over the server's 1 MiB MaxAppendSize is AppendTooLargeError, answered 413", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    const big = { ...newEvent(), data: { text: "x".repeat(1024 * 1024) } };
    const error = await store
      .appendToStream("s-1", [big], { expected_revision: "no_stream" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AppendTooLargeError);
    expect(error.max_bytes).toBe(1024 * 1024);
    expect(await answerOf(error)).toMatchObject({ status: 413, body: { error: "PayloadTooLarge" } });
  });

  it("skips and counts another application's events in $all: binary, foreign category, no tenant", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client, { categories: ["s"] });
    const skippedBefore = await skippedCount();
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    fake.appendForeign({
      streamId: "s-2",
      type: "Binary",
      data: new Uint8Array([0xff, 0x00, 0xfe]),
      metadata: new Uint8Array([0xff, 0xfe]),
      isJson: false,
    });
    fake.appendForeign({ streamId: "orders-1", type: "OrderPlaced", data: {}, metadata: {}, isJson: true });
    fake.appendForeign({
      streamId: "s-3",
      type: "Tested",
      data: {},
      metadata: { origin: "other" },
      isJson: true,
    });
    await store.appendToStream("s-4", [newEvent()], { expected_revision: "no_stream" });
    const events = await store.readAll();
    expect(events.map((e) => e.stream_name)).toEqual(["s-1", "s-4"]);
    expect(await store.headPosition()).toEqual(events[1].position);
    expect((await skippedCount()) - skippedBefore).toBe(3);
    // The projector's path after them: nothing left to read, no error.
    expect(await store.readAll({ after: events[1].position })).toEqual([]);
    fake.appendForeign({
      streamId: "s-5",
      type: "Binary",
      data: new Uint8Array([1]),
      metadata: new Uint8Array([0xff]),
      isJson: false,
    });
    expect(await store.headPosition()).toEqual(events[1].position);
  });

  it("accepts KurrentDB's connection schemes, which client 6.2.1 does not parse itself", async () => {
    for (const [given, parsed] of [
      ["kurrentdb://127.0.0.1:2113?tls=false", "esdb://127.0.0.1:2113?tls=false"],
      ["kurrentdb+discover://a:2113,b:2113", "esdb+discover://a:2113,b:2113"],
      ["kdb://127.0.0.1:2113", "esdb://127.0.0.1:2113"],
      ["esdb://127.0.0.1:2113", "esdb://127.0.0.1:2113"],
    ]) {
      expect(toClientConnectionString(given)).toBe(parsed);
      if (given !== parsed) expect(() => EventStoreDBClient.connectionString(given)).toThrow();
      const s = createEventStoreDbEventStore(given);
      await s.close();
    }
  });
});

describe("EventStoreDB adapter: leader, chain, $all scans, bad events (issue 38)", () => {
  it("writes and the head read before an append ask for the leader (requiresLeader)", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    await store.appendToStream("s-1", [newEvent()], { expected_revision: 0n });
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "any" });
    expect(fake.calls.leaderless).toEqual([]);
  });

  it("on a lagging follower the append moves to the leader and continues the chain: audit verifies", async () => {
    const fake = fakeClient({ followerLag: 1 });
    store = createEventStoreDbEventStore(fake.client);
    // Three events written through another instance; this client sits on a follower one behind.
    const elsewhere = createEventStoreDbEventStore(fake.leader);
    for (const expected of ["no_stream", 0n, 1n] as const)
      await elsewhere.appendToStream("s-1", [newEvent()], { expected_revision: expected });
    await store.appendToStream("s-1", [newEvent()], { expected_revision: 2n });
    expect(fake.calls.leaderless).toEqual([]);
    const events = await store.readStream("s-1");
    expect(events.map((e) => e.stream_revision)).toEqual([0n, 1n, 2n, 3n]);
    expect(events[3].previous_hash).toBe(events[2].hash);
    // What `pms audit verify` checks of the stream's export.
    expect(verifyLines(events.map((e) => canonical(chainLine(e)))).ok).toBe(true);
  });

  it("the head at an exact revision not found: a refusal (wrong revision, or 503), never a chain restart", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent(), newEvent()], { expected_revision: "no_stream" });
    const ahead = await store.appendToStream("s-1", [newEvent()], { expected_revision: 5n }).catch((e) => e);
    expect(ahead).toBeInstanceOf(WrongExpectedRevisionError);
    expect(ahead.actual).toBe(1n);
    // The revision exists, yet the read does not return it (a node that lost it, a truncation).
    const hidden = fakeClient();
    const s = createEventStoreDbEventStore(hidden.client);
    await s.appendToStream("s-1", [newEvent(), newEvent()], { expected_revision: "no_stream" });
    hidden.hide("s-1", 1n);
    const error = await s.appendToStream("s-1", [newEvent()], { expected_revision: 1n }).catch((e) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(certainlyUnwritten(error)).toBe(true);
    expect(hidden.log).toHaveLength(2);
    await s.close();
  });

  it("remembers what it scanned of $all: 5,000 foreign events are fetched once, not at every poll", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client, { categories: ["s"] });
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    for (let i = 0; i < 5000; i++)
      fake.appendForeign({
        streamId: `orders-${i}`,
        type: "OrderPlaced",
        data: {},
        metadata: {},
        isJson: true,
      });
    const [mine] = await store.readAll();
    expect(mine.stream_name).toBe("s-1");
    expect(await store.readAll({ after: mine.position })).toEqual([]);
    const fetched = fake.calls.readAllEvents;
    expect(await store.readAll({ after: mine.position })).toEqual([]);
    expect(await store.readAll({ after: mine.position })).toEqual([]);
    // The inclusive start of each page is all a later empty read fetches again.
    expect(fake.calls.readAllEvents - fetched).toBeLessThanOrEqual(2);
    expect(await store.headPosition()).toEqual(mine.position);
    const afterHead = fake.calls.readAllEvents;
    expect(await store.headPosition()).toEqual(mine.position);
    expect(fake.calls.readAllEvents - afterHead).toBeLessThanOrEqual(1);
    // A new event of ours after them is found, from the remembered place.
    const next = await store.appendToStream("s-2", [newEvent()], { expected_revision: "no_stream" });
    const before = fake.calls.readAllEvents;
    expect((await store.readAll({ after: mine.position })).map((e) => e.stream_name)).toEqual(["s-2"]);
    expect(fake.calls.readAllEvents - before).toBeLessThanOrEqual(3);
    expect(await store.headPosition()).toEqual(next.position);
  });

  it("a bad event in one of our streams: reads skip it as the projections do, an append after it is a 409", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    await store.appendToStream("s-1", [newEvent()], { expected_revision: "no_stream" });
    const bad = {
      type: "Tested",
      data: new Uint8Array([0x7b]),
      metadata: new Uint8Array([0x7b]),
      isJson: false,
    };
    fake.appendForeign({ streamId: "s-1", ...bad });
    expect((await store.readStream("s-1")).map((e) => e.stream_revision)).toEqual([0n]);
    const error = await store.appendToStream("s-1", [newEvent()], { expected_revision: 1n }).catch((e) => e);
    expect(error).toBeInstanceOf(UndecodableEventError);
    expect(certainlyUnwritten(error)).toBe(true);
    expect(await answerOf(error)).toMatchObject({ status: 409, body: { error: "Conflict" } });
    // Not the head: the append chains after the last good event's successor as usual.
    await store.appendToStream("s-2", [newEvent()], { expected_revision: "no_stream" });
    fake.appendForeign({ streamId: "s-2", ...bad });
    fake.appendForeign({
      streamId: "s-2",
      type: "Tested",
      data: {},
      metadata: { tenant_id: "t" },
      isJson: true,
    });
    expect((await store.appendToStream("s-2", [newEvent()], { expected_revision: 2n })).next_revision).toBe(
      3n,
    );
  });

  it("accepts a multi-host connection string, and names its hosts without credentials", async () => {
    const url = "esdb://admin:p/w@n1:2113,n2:2113,n3:2113?tls=false&nodePreference=follower";
    expect(eventStoreHosts(url)).toBe("n1:2113,n2:2113,n3:2113");
    expect(eventStoreHosts("kurrentdb+discover://cluster.example:2113")).toBe("cluster.example:2113");
    expect(loadConfig({ EVENTSTORE_URL: url }).EVENTSTORE_URL).toBe(url);
    const s = createEventStoreDbEventStore("esdb://n1:2113,n2:2113,n3:2113?tls=false");
    await s.close();
  });
});

describe("EventStoreDB adapter: reservations whose holder's append is unknown (issue 38)", () => {
  const tenant_id = randomUUID();
  /** An event of this tenant (a holder of another tenant is stale by rule). */
  const ours = (type = "Joined", data: Record<string, unknown> = {}) => {
    const e = newEvent();
    return { ...e, type, data, metadata: { ...e.metadata, tenant_id } };
  };
  const contextOf = (s: EventStore): CommandContext => ({ store: s, tenant_id, metadata: ours().metadata });
  const write = (
    id: string,
    type: string,
    k: string,
    expected: HolderWrite["expected_revision"],
  ): HolderWrite => ({
    stream_name: badges.holderStream(id),
    events: [ours(type, { key: k })],
    expected_revision: expected,
    holder_id: id,
    reserve: type === "Held" ? [{ key: k, field: k }] : [],
    release: [],
  });
  /** An existing holder `a` (revision 0) whose append taking `k` ends with an unknown outcome. */
  async function unknownHolder(fake: ReturnType<typeof fakeClient>, s: EventStore, k: string, sends: number) {
    const a = randomUUID();
    await s.appendToStream(badges.holderStream(a), [ours()], {
      expected_revision: "no_stream",
    });
    // The first send and settleWrites' three resends all fail before the server.
    fake.faults.push({ op: "append", kind: "unavailable", stream: new RegExp(`^badge-${a}$`), times: sends });
    const taking = write(a, "Held", k, 0n);
    const error = await commitReserving(contextOf(s), badges, [taking]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    return { a, taking };
  }

  it("an existing holder's unknown append is settled once the store answers: written, the key bound by it", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    const k = `k${randomUUID()}`;
    const { a } = await unknownHolder(fake, store, k, 4);
    await waitFor(() => fake.log.some((e) => e.streamId === badges.holderStream(a) && e.type === "Held"));
    expect(badges.holds(await store.readStream(badges.holderStream(a)), k)).toBe(true);
    const b = randomUUID();
    await expect(
      commitReserving(contextOf(store), badges, [write(b, "Held", k, "no_stream")]),
    ).rejects.toMatchObject({
      status: 409,
    });
  });

  it("another event in its place: the key goes back, where before it stayed bound to a holder that never took it", async () => {
    const fake = fakeClient();
    store = createEventStoreDbEventStore(fake.client);
    const k = `k${randomUUID()}`;
    const { a, taking } = await unknownHolder(fake, store, k, 1000);
    // Bound meanwhile: the holder still sits at the revision it reserved at.
    const b = randomUUID();
    await expect(
      commitReserving(contextOf(store), badges, [write(b, "Held", k, "no_stream")]),
    ).rejects.toMatchObject({
      status: 409,
    });
    fake.faults.length = 0;
    await store.appendToStream(badges.holderStream(a), [ours("Renamed")], {
      expected_revision: 0n,
    });
    expect(await settleHolder(contextOf(store), badges, taking, [k])).toBe("released");
    expect((await readReservation(contextOf(store), badges, k)).holder).toBeNull();
    await commitReserving(contextOf(store), badges, [write(b, "Held", k, "no_stream")]);
    expect((await readReservation(contextOf(store), badges, k)).holder).toBe(b);
  });

  it("the reservation's event id names the holder's revision: another revision is another event", async () => {
    const ids: string[] = [];
    const [a, k] = [randomUUID(), `k${randomUUID()}`];
    for (const revisions of [1, 2]) {
      const fake = fakeClient();
      const s = createEventStoreDbEventStore(fake.client);
      for (let r = 0; r < revisions; r++)
        await s.appendToStream(badges.holderStream(a), [ours()], {
          expected_revision: r === 0 ? "no_stream" : BigInt(r - 1),
        });
      await commitReserving(contextOf(s), badges, [write(a, "Held", k, BigInt(revisions - 1))]);
      ids.push(fake.log.find((e) => e.type === "KeyReserved")!.id);
      await s.close();
    }
    expect(ids[0]).not.toBe(ids[1]);
  });
});

/** The HTTP answer the error handler gives for an error thrown by a route. */
async function answerOf(error: unknown) {
  const app = Fastify();
  await app.register(errorHandler);
  app.get("/x", async () => {
    throw error;
  });
  const res = await app.inject({ method: "GET", url: "/x" });
  await app.close();
  return { status: res.statusCode, body: res.json() };
}

async function skippedCount(): Promise<number> {
  const metric = await metrics.skippedEvents.get();
  return metric.values.reduce((n, v) => n + v.value, 0);
}
