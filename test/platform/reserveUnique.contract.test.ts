import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EventStore,
  WriteOutcomeUnknownError,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { createEventStoreDbEventStore } from "../../src/platform/eventstore/eventstoredb/eventStoreDbEventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import {
  commitReserving,
  type HolderWrite,
  isAvailable,
  readReservation,
  releaseKey,
} from "../../src/platform/reserveUnique.ts";
import type { CommandContext } from "../../src/platform/runCommand.ts";
import { badges } from "../support/badges.ts";
import { fakeClient } from "../support/fakeEventStoreDb.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

/**
 * The reservation mechanism's contract on every engine available, through both of its paths:
 * one multi-stream commit (where the engine has `appendToStreams`) and appends in turn (the
 * EventStoreDB path, also run on the SQL engines by hiding `appendToStreams`).
 */

interface Engine {
  name: string;
  available: boolean;
  open(): Promise<{ store: EventStore; close(): Promise<void> }>;
}

const engines: Engine[] = [
  ...(["postgres"] as const).map((kind) => ({
    name: kind,
    available: databaseKinds.includes(kind),
    async open() {
      const db = await createTestDatabase(kind);
      const store = createPostgresEventStore(db.sql);
      return {
        store,
        close: async () => {
          await store.close();
          await db.drop();
        },
      };
    },
  })),
  {
    // Client 6.2.1's answers without a server (test/support/fakeEventStoreDb.ts).
    name: "eventstoredb (fake client)",
    available: true,
    async open() {
      const store = createEventStoreDbEventStore(fakeClient().client);
      return { store, close: () => store.close() };
    },
  },
  {
    name: "eventstoredb",
    available: Boolean(process.env.EVENTSTORE_URL),
    async open() {
      const store = createEventStoreDbEventStore(process.env.EVENTSTORE_URL!);
      return { store, close: () => store.close() };
    },
  },
];

const paths = [
  { path: "in one commit", multi: true },
  { path: "in turn", multi: false },
];

const cases = engines
  .filter((e) => e.available)
  .flatMap((engine) =>
    paths
      .filter((p) => p.multi === false || !engine.name.startsWith("eventstoredb"))
      .map((p) => ({ ...p, engine, label: `${engine.name}, ${p.path}` })),
  );

describe.each(cases)("reserveUnique on $label", ({ engine, multi }) => {
  let close: () => Promise<void>;
  let ctx: CommandContext;

  beforeAll(async () => {
    const opened = await engine.open();
    close = opened.close;
    const store: EventStore = multi ? opened.store : { ...opened.store, appendToStreams: undefined };
    if (multi) expect(store.appendToStreams).toBeDefined();
    const tenant_id = randomUUID();
    ctx = {
      store,
      tenant_id,
      metadata: {
        tenant_id,
        actor_key_id: null,
        correlation_id: null,
        causation_id: null,
        occurred_at: new Date().toISOString(),
      },
    };
  });
  afterAll(async () => close?.());

  const key = () => `k${randomUUID().slice(0, 8)}`;
  const meta = () => ({ ...ctx.metadata, occurred_at: new Date().toISOString() });

  /** A write that creates holder `id` holding `k` (or gives up `release`). */
  const take = (
    id: string,
    k: string,
    expected: HolderWrite["expected_revision"] = "no_stream",
  ): HolderWrite => ({
    stream_name: badges.holderStream(id),
    events: [{ event_id: randomUUID(), type: "Held", data: { key: k }, metadata: meta() }],
    expected_revision: expected,
    holder_id: id,
    reserve: [{ key: k, field: k }],
    release: [],
  });
  const commit = (...writes: HolderWrite[]) => commitReserving({ ...ctx, metadata: meta() }, badges, writes);
  const holderOf = async (k: string) => (await readReservation(ctx, badges, k)).holder;
  /** A reservation written by a creator that never wrote its holder stream (crashed in between). */
  const orphan = async (k: string) => {
    const id = randomUUID();
    await ctx.store.appendToStream(
      badges.stream(ctx.tenant_id, k, ctx.store),
      [
        {
          event_id: randomUUID(),
          type: "KeyReserved",
          data: { holder: id, key: k, holder_revision: -1 },
          metadata: meta(),
        },
      ],
      { expected_revision: "any" },
    );
    return id;
  };

  it("commits a holder with its key and refuses the key to another holder, writing nothing", async () => {
    const [k, a, b] = [key(), randomUUID(), randomUUID()];
    const [result] = await commit(take(a, k));
    expect(result.next_revision).toBe(0n);
    expect(await holderOf(k)).toBe(a);
    await expect(commit(take(b, k))).rejects.toMatchObject({ status: 409, details: [{ field: k }] });
    expect(await ctx.store.readStream(badges.holderStream(b))).toEqual([]);
    expect(await isAvailable(ctx, badges, k, b)).toBe(false);
    expect(await isAvailable(ctx, badges, k, a)).toBe(true);
  });

  it("lists every taken key of a batch and writes none of the batch", async () => {
    const [k1, k2, k3] = [key(), key(), key()];
    await commit(take(randomUUID(), k1), take(randomUUID(), k3));
    const batch = [take(randomUUID(), k1), take(randomUUID(), k2), take(randomUUID(), k3)];
    await expect(commit(...batch)).rejects.toMatchObject({ details: [{ field: k1 }, { field: k3 }] });
    expect(await holderOf(k2)).toBeNull();
    expect(await ctx.store.readStream(batch[1].stream_name)).toEqual([]);
  });

  it("frees a key on release, and moves a key from one value to another in one write", async () => {
    const [k1, k2, a, b] = [key(), key(), randomUUID(), randomUUID()];
    await commit(take(a, k1));
    // a switches from k1 to k2: reserve k2, release k1, with a's own event.
    await commit({ ...take(a, k2, 0n), release: [k1] });
    expect(await holderOf(k1)).toBeNull();
    expect(await holderOf(k2)).toBe(a);
    await commit(take(b, k1));
    expect(await holderOf(k1)).toBe(b);
    await releaseKey(ctx, badges, k1, b);
    expect(await holderOf(k1)).toBeNull();
  });

  it("takes over a stale reservation: its holder moved on without the key", async () => {
    const [k, a, b] = [key(), randomUUID(), randomUUID()];
    await commit(take(a, k));
    // a drops the key but its release was lost (a crash): the reservation still names a.
    await ctx.store.appendToStream(
      badges.holderStream(a),
      [{ event_id: randomUUID(), type: "Dropped", data: {}, metadata: meta() }],
      { expected_revision: 0n },
    );
    expect(await holderOf(k)).toBe(a);
    await commit(take(b, k));
    expect(await holderOf(k)).toBe(b);
  });

  it("fences an orphaned reservation after the grace period and takes the key", async () => {
    const k = key();
    const ghost = await orphan(k);
    const started = Date.now();
    await commit(take(randomUUID(), k));
    expect(Date.now() - started).toBeGreaterThanOrEqual(badges.grace_ms - 50);
    const fence = await ctx.store.readStream(badges.holderStream(ghost));
    expect(fence.map((e) => e.type)).toEqual(["Abandoned"]);
    // The stalled creator's own append (at "no stream") now fails: it can never hold the key.
    const late = take(ghost, k);
    await expect(ctx.store.appendToStream(late.stream_name, late.events, late)).rejects.toMatchObject({
      stream_name: badges.holderStream(ghost),
    });
  });

  it("refuses a batch whose key's creator registers during the grace period, leaving no reservation behind", async () => {
    const [free, contested] = [key(), key()];
    const ghost = await orphan(contested);
    const a = randomUUID();
    const attempt = commit(take(a, free), take(randomUUID(), contested));
    await sleep(100);
    // The creator that reserved `contested` finishes its registration within the grace period.
    await ctx.store.appendToStream(
      badges.holderStream(ghost),
      [{ event_id: randomUUID(), type: "Held", data: { key: contested }, metadata: meta() }],
      { expected_revision: "no_stream" },
    );
    await expect(attempt).rejects.toMatchObject({ status: 409, details: [{ field: contested }] });
    // Nothing half-written: the free key is not reserved (never written, or released), a never created.
    expect(await holderOf(free)).toBeNull();
    expect(await ctx.store.readStream(badges.holderStream(a))).toEqual([]);
    expect(await holderOf(contested)).toBe(ghost);
  });

  it("lets exactly one of concurrent claims of a key win", async () => {
    const k = key();
    const ids = Array.from({ length: 6 }, () => randomUUID());
    const results = await Promise.allSettled(ids.map((id) => commit(take(id, k))));
    const won = ids.filter((_, i) => results[i].status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(await holderOf(k)).toBe(won[0]);
  });

  /**
   * The store as seen by a writer whose appends to `holder`'s stream are slowed by `delayMs`
   * and, with `unknown`, committed but then unconfirmed (a timeout the store could not settle).
   */
  const faulty = (holder: string, options: { delayMs?: number; unknown?: boolean }): EventStore => {
    const stream = badges.holderStream(holder);
    const faultyWrite = async <T>(touches: boolean, write: () => Promise<T>) => {
      if (touches && options.delayMs) await sleep(options.delayMs);
      const result = await write();
      if (touches && options.unknown)
        throw new WriteOutcomeUnknownError(stream, new Error("deadline exceeded"));
      return result;
    };
    const inner = ctx.store;
    return {
      ...inner,
      appendToStream: (name, events, o) =>
        faultyWrite(name === stream, () => inner.appendToStream(name, events, o)),
      appendToStreams: inner.appendToStreams
        ? (writes) =>
            faultyWrite(
              writes.some((w) => w.stream_name === stream),
              () => inner.appendToStreams!(writes),
            )
        : undefined,
    };
  };

  it("keeps the key of a holder whose append's outcome is unknown: no second holder (issue 22)", async () => {
    const [k, a, b] = [key(), randomUUID(), randomUUID()];
    const error = await commitReserving({ ...ctx, store: faulty(a, { unknown: true }) }, badges, [
      take(a, k),
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    // It did commit: a holds k, and nobody else may take it.
    expect(badges.holds(await ctx.store.readStream(badges.holderStream(a)), k)).toBe(true);
    expect(await holderOf(k)).toBe(a);
    await expect(commit(take(b, k))).rejects.toMatchObject({ status: 409, details: [{ field: k }] });
    expect(await ctx.store.readStream(badges.holderStream(b))).toEqual([]);
  });

  it("gives the key back when the holder's append is certainly refused (a wrong expected revision)", async () => {
    const [k, a] = [key(), randomUUID()];
    // a's stream exists already: its "no stream" append is refused.
    await ctx.store.appendToStream(
      badges.holderStream(a),
      [{ event_id: randomUUID(), type: "Dropped", data: {}, metadata: meta() }],
      { expected_revision: "no_stream" },
    );
    await expect(commit(take(a, k))).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await holderOf(k)).toBeNull();
  });

  // In one commit a holder and its reservation are never apart: only the in-turn path can fence.
  it.skipIf(multi)(
    "never fences a holder on the reserving request's clock: a request begun long ago still completes (issue 22)",
    async () => {
      const [k, a, b] = [key(), randomUUID(), randomUUID()];
      // The request of a began 10 s ago (a bulk still reserving); its holder append lands 100 ms
      // after the reservation, inside the grace period (300 ms).
      const old = { ...ctx.metadata, occurred_at: new Date(Date.now() - 10_000).toISOString() };
      const first = commitReserving({ ...ctx, metadata: old, store: faulty(a, { delayMs: 100 }) }, badges, [
        {
          ...take(a, k),
          events: [{ event_id: randomUUID(), type: "Held", data: { key: k }, metadata: old }],
        },
      ]);
      while ((await holderOf(k)) !== a) await sleep(5);
      const second = commit(take(b, k));
      await expect(first).resolves.toHaveLength(1);
      await expect(second).rejects.toMatchObject({ status: 409, details: [{ field: k }] });
      expect(await holderOf(k)).toBe(a);
      expect(await ctx.store.readStream(badges.holderStream(a))).toHaveLength(1);
    },
  );

  it.skipIf(multi)(
    "a big batch racing a single claim of one of its keys is never fenced mid-way (issue 22)",
    async () => {
      // Every append takes 20 ms: the batch's reservations alone take 500 ms, past the grace period.
      const inner = ctx.store;
      const slow: EventStore = {
        ...inner,
        appendToStream: async (name, events, o) => {
          await sleep(20);
          return inner.appendToStream(name, events, o);
        },
      };
      const batch = Array.from({ length: 200 }, () => take(randomUUID(), key()));
      const raced = batch[150];
      const bulk = commitReserving({ ...ctx, metadata: meta(), store: slow }, badges, batch);
      while ((await holderOf(raced.reserve[0].key)) !== raced.holder_id) await sleep(5);
      // Settled as it ends (it may end first): its refusal is checked below.
      const single = commit(take(randomUUID(), raced.reserve[0].key)).catch((e: unknown) => e);
      await expect(bulk).resolves.toHaveLength(batch.length);
      expect(await single).toMatchObject({ status: 409 });
      for (const w of [batch[0], raced, batch[199]]) {
        expect(await holderOf(w.reserve[0].key)).toBe(w.holder_id);
        expect(await ctx.store.readStream(w.stream_name)).toHaveLength(1);
      }
    },
  );
});
