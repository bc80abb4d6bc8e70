import { randomUUID } from "node:crypto";
import { binaryEvent, EventStoreDBClient } from "@eventstore/db-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AppendTooLargeError,
  type EventStore,
  type NewEvent,
  StoreUnavailableError,
  StreamDeletedError,
  WriteOutcomeUnknownError,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { toClientConnectionString } from "../../src/platform/eventstore/eventstoredb/connectionString.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";

/**
 * What only a real server shows (docs/eventstoredb.md, "Against a real server"): run by
 * test/esdb/realServer.sh against each server version, single node and three-node cluster, with
 * a fault proxy (toxiproxy) in front. Skipped unless EVENTSTORE_URL is set. With TOXIPROXY_API and
 * TOXIPROXY_PROXY (the proxy EVENTSTORE_URL goes through), connections are reset at random while
 * appends run, and the invariants are checked afterwards.
 */
const url = process.env.EVENTSTORE_URL;
const toxiproxy = process.env.TOXIPROXY_API;
const proxyName = process.env.TOXIPROXY_PROXY ?? "esdb";

const event = (type = "Checked", data: Record<string, unknown> = {}): NewEvent => ({
  event_id: randomUUID(),
  type,
  data: { n: Math.random(), ...data },
  metadata: {
    tenant_id: randomUUID(),
    actor_key_id: null,
    correlation_id: null,
    causation_id: null,
    occurred_at: new Date().toISOString(),
  },
});

describe.skipIf(!url)("EventStoreDB adapter against a real server (issue 22)", () => {
  let store: EventStore;
  let client: EventStoreDBClient;
  beforeAll(() => {
    store = createEventStoreDbEventStore(url!, { categories: ["checked"] });
    client = EventStoreDBClient.connectionString(toClientConnectionString(url!));
  });
  afterAll(async () => {
    await store?.close();
    await client?.dispose();
  });

  it("a tombstoned stream refuses appends and reads with StreamDeletedError", async () => {
    const stream = `checked-${randomUUID()}`;
    await store.appendToStream(stream, [event()], { expected_revision: "no_stream" });
    await client.tombstoneStream(stream);
    expect(
      await store.appendToStream(stream, [event()], { expected_revision: 0n }).catch((e) => e),
    ).toBeInstanceOf(StreamDeletedError);
    expect(await store.readStream(stream).catch((e) => e)).toBeInstanceOf(StreamDeletedError);
  });

  it("an append over MaxAppendSize (1 MiB by default) is AppendTooLargeError, nothing written", async () => {
    const stream = `checked-${randomUUID()}`;
    const big = event("Checked", { text: "x".repeat(1024 * 1024 + 1) });
    expect(
      await store.appendToStream(stream, [big], { expected_revision: "no_stream" }).catch((e) => e),
    ).toBeInstanceOf(AppendTooLargeError);
    expect(await store.readStream(stream)).toEqual([]);
  });

  it("skips other applications' events in $all: another category, binary data and metadata", async () => {
    const head = await store.headPosition();
    await client.appendToStream(
      `other_app-${randomUUID()}`,
      binaryEvent({ type: "Foreign", data: Buffer.from([1]) }),
    );
    await client.appendToStream(
      `checked-${randomUUID()}`,
      binaryEvent({ type: "Checked", data: Buffer.from([0xff, 0xfe]), metadata: Buffer.from([0xff]) }),
    );
    const mine = `checked-${randomUUID()}`;
    await store.appendToStream(mine, [event()], { expected_revision: "no_stream" });
    const read = await store.readAll({ after: head ?? undefined });
    expect(read.map((e) => e.stream_name)).toEqual([mine]);
  });

  it("connects with the KurrentDB schemes", async () => {
    const kurrent = createEventStoreDbEventStore(url!.replace(/^esdb/, "kurrentdb"));
    expect(await kurrent.readStream(`checked-${randomUUID()}`)).toEqual([]);
    await kurrent.close();
  });

  it.skipIf(!toxiproxy)(
    "resets connections at random under 100 appends: every acknowledged one once, none twice",
    async () => {
      const toxic = (enabled: boolean) =>
        fetch(`${toxiproxy}/proxies/${proxyName}/toxics${enabled ? "" : "/reset"}`, {
          method: enabled ? "POST" : "DELETE",
          headers: { "content-type": "application/json" },
          ...(enabled
            ? { body: JSON.stringify({ name: "reset", type: "reset_peer", attributes: { timeout: 5 } }) }
            : {}),
        }).catch(() => undefined);
      const streams = Array.from({ length: 100 }, () => `checked-${randomUUID()}`);
      const sent = streams.map(() => [event(), event()]);
      const flapping = (async () => {
        for (let i = 0; i < 20; i++) {
          await toxic(true);
          await new Promise((r) => setTimeout(r, 20 + Math.random() * 50));
          await toxic(false);
          await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
        }
      })();
      const outcomes = await Promise.allSettled(
        streams.map((s, i) => store.appendToStream(s, sent[i], { expected_revision: "no_stream" })),
      );
      await flapping;
      await toxic(false);
      for (const [i, outcome] of outcomes.entries()) {
        const written = (await store.readStream(streams[i])).map((e) => e.event_id);
        if (outcome.status === "fulfilled") expect(written).toEqual(sent[i].map((e) => e.event_id));
        else {
          expect(
            [WriteOutcomeUnknownError, StoreUnavailableError, WrongExpectedRevisionError].some(
              (c) => outcome.reason instanceof c,
            ),
          ).toBe(true);
          expect([[], sent[i].map((e) => e.event_id)]).toContainEqual(written);
        }
      }
    },
    120_000,
  );
});
