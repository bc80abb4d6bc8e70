import { execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { binaryEvent, EventStoreDBClient, jsonEvent } from "@eventstore/db-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonical } from "../../src/platform/eventstore/chain.ts";
import {
  AppendTooLargeError,
  type EventStore,
  type NewEvent,
  StoreUnavailableError,
  StreamDeletedError,
  WriteOutcomeUnknownError,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import {
  eventStoreHosts,
  toClientConnectionString,
} from "../../src/platform/eventstore/eventstoredb/connectionString.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import { chainLine, verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { commitReserving, readReservation, type Uniqueness } from "../../src/platform/reserveUnique.ts";
import { badges } from "../support/badges.ts";

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

/**
 * The issue 38 cases, to run first when a server can run (test/esdb/realServer.sh sets the
 * variables): each is skipped unless its variable is set.
 * - ESDB_FOLLOWER_URL: the cluster with nodePreference=follower;
 * - ESDB_CLUSTER_URL: the cluster as three hosts (`esdb://h1,h2,h3`);
 * - ESDB_STOP_LEADER: a shell command that stops the current leader (run between a reservation
 *   and its holder's append);
 * - ESDB_FOREIGN_EVENTS: how many foreign events to write before the scan case (100000);
 * - ESDB_BACKUP_FILE and ESDB_BACKUP_PHASE (`write`, then `check` on the restored server).
 */
const env = process.env;
const ours = (type = "Checked") => event(type);
/** The contract's badges, in the category this server's tests keep. */
const reservedBadges: Uniqueness = {
  ...badges,
  stream: (tenant, key) => `checked_key-${tenant}-${key}`,
  holderStream: (id) => `checked-${id}`,
};
/** What `pms audit verify` says of a stream's export. */
const verifies = async (s: EventStore, stream: string) =>
  verifyLines((await s.readStream(stream)).map((e) => canonical(chainLine(e))));

describe.skipIf(!env.ESDB_FOLLOWER_URL)("on a cluster read through a follower (issue 38)", () => {
  it("appends in a row keep the chain whole: pms audit verify holds on every stream", async () => {
    const s = createEventStoreDbEventStore(env.ESDB_FOLLOWER_URL!, { categories: ["checked"] });
    try {
      const streams = Array.from({ length: 20 }, () => `checked-${randomUUID()}`);
      for (const stream of streams) {
        let revision: bigint | "no_stream" = "no_stream";
        // Each append right after the last: a follower lagging behind would miss the head.
        for (let i = 0; i < 10; i++)
          revision = (await s.appendToStream(stream, [ours()], { expected_revision: revision }))
            .next_revision;
      }
      for (const stream of streams) expect((await verifies(s, stream)).ok, stream).toBe(true);
    } finally {
      await s.close();
    }
  }, 120_000);
});

describe.skipIf(!env.ESDB_CLUSTER_URL)("three hosts in the connection string (issue 38)", () => {
  it("connects, appends and reads through `esdb://h1,h2,h3`", async () => {
    expect(eventStoreHosts(env.ESDB_CLUSTER_URL!).split(",")).toHaveLength(3);
    const s = createEventStoreDbEventStore(env.ESDB_CLUSTER_URL!, { categories: ["checked"] });
    try {
      const stream = `checked-${randomUUID()}`;
      await s.appendToStream(stream, [ours()], { expected_revision: "no_stream" });
      expect(await s.readStream(stream)).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});

describe.skipIf(!env.ESDB_CLUSTER_URL || !env.ESDB_STOP_LEADER)(
  "a leader cut mid-reservation (issue 38)",
  () => {
    it("between a reservation and its holder's append: the key ends held by the holder or given back", async () => {
      const s = createEventStoreDbEventStore(env.ESDB_CLUSTER_URL!, {
        categories: ["checked", "checked_key"],
      });
      const tenant_id = randomUUID();
      const context = { store: s, tenant_id, metadata: { ...ours().metadata, tenant_id } };
      const [holder, key] = [randomUUID(), `k${randomUUID().slice(0, 8)}`];
      await s.appendToStream(
        reservedBadges.holderStream(holder),
        [{ ...ours("Joined"), metadata: context.metadata }],
        {
          expected_revision: "no_stream",
        },
      );
      let stopped = false;
      // The leader goes away right after the reservation is written, before the holder's append.
      const cut: EventStore = {
        ...s,
        async appendToStream(stream, events, options) {
          const result = await s.appendToStream(stream, events, options);
          if (!stopped && stream.startsWith("checked_key-")) {
            stopped = true;
            execSync(env.ESDB_STOP_LEADER!, { stdio: "inherit" });
          }
          return result;
        },
        appendToStreams: undefined,
      };
      const write = {
        stream_name: reservedBadges.holderStream(holder),
        events: [{ ...ours("Held"), data: { key }, metadata: context.metadata }],
        expected_revision: 0n,
        holder_id: holder,
        reserve: [{ key, field: "key" }],
        release: [],
      };
      const outcome = await commitReserving({ ...context, store: cut }, reservedBadges, [write]).catch(
        (e) => e,
      );
      // Settled within the background's pauses: held by a holder that holds it, or given back.
      const until = Date.now() + 150_000;
      for (;;) {
        const r = await readReservation(context, reservedBadges, key).catch(() => null);
        const holds = reservedBadges.holds(await s.readStream(write.stream_name).catch(() => []), key);
        if (r && (r.holder === null || (r.holder === holder && holds))) break;
        if (Date.now() > until)
          throw new Error(`still bound to a holder without the key (${String(outcome)})`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      expect((await verifies(s, write.stream_name)).ok).toBe(true);
      await s.close();
    }, 200_000);
  },
);

describe.skipIf(!url || !env.ESDB_FOREIGN_EVENTS)("foreign events in $all (issue 38)", () => {
  it("an empty read after them does not fetch them again", async () => {
    const s = createEventStoreDbEventStore(url!, { categories: ["checked"] });
    const raw = EventStoreDBClient.connectionString(toClientConnectionString(url!));
    try {
      const stream = `checked-${randomUUID()}`;
      const mine = await s.appendToStream(stream, [ours()], { expected_revision: "no_stream" });
      const total = Number(env.ESDB_FOREIGN_EVENTS);
      for (let i = 0; i < total; i += 1000)
        await raw.appendToStream(
          `other_app-${randomUUID()}`,
          Array.from({ length: Math.min(1000, total - i) }, () =>
            jsonEvent({ type: "Foreign", data: { n: i } }),
          ),
        );
      const first = performance.now();
      expect(await s.readAll({ after: mine.position })).toEqual([]);
      const firstMs = performance.now() - first;
      const again = performance.now();
      expect(await s.readAll({ after: mine.position })).toEqual([]);
      expect(await s.headPosition()).toEqual(mine.position);
      const againMs = performance.now() - again;
      expect(againMs).toBeLessThan(Math.max(50, firstMs / 10));
    } finally {
      await s.close();
      await raw.dispose();
    }
  }, 600_000);
});

describe.skipIf(!url || !env.ESDB_BACKUP_FILE)("the backup drill (issue 38)", () => {
  it(`${env.ESDB_BACKUP_PHASE ?? "write"}: the restored log reads back whole, chains verified`, async () => {
    const s = createEventStoreDbEventStore(url!, { categories: ["checked"] });
    try {
      if (env.ESDB_BACKUP_PHASE !== "check") {
        const written: { stream: string; ids: string[] }[] = [];
        for (let i = 0; i < 50; i++) {
          const stream = `checked-${randomUUID()}`;
          const events = [ours(), ours(), ours()];
          await s.appendToStream(stream, events, { expected_revision: "no_stream" });
          written.push({ stream, ids: events.map((e) => e.event_id) });
        }
        writeFileSync(env.ESDB_BACKUP_FILE!, JSON.stringify(written));
        return;
      }
      const written = JSON.parse(readFileSync(env.ESDB_BACKUP_FILE!, "utf8")) as {
        stream: string;
        ids: string[];
      }[];
      for (const { stream, ids } of written) {
        expect((await s.readStream(stream)).map((e) => e.event_id)).toEqual(ids);
        expect((await verifies(s, stream)).ok).toBe(true);
        // The restored stream takes the next append, chained to its head.
        await s.appendToStream(stream, [ours()], { expected_revision: BigInt(ids.length - 1) });
        expect((await verifies(s, stream)).ok).toBe(true);
      }
    } finally {
      await s.close();
    }
  }, 300_000);
});
