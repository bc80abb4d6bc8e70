import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decider } from "../../src/platform/decider.ts";
import { conflict } from "../../src/platform/errors.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { type CommandContext, runCommand } from "../../src/platform/runCommand.ts";
import { streamCache } from "../../src/platform/streamCache.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

type Counted = { type: "Counted"; data: { n: number } };
/** Counts: each command appends the next number, so a command on stale state would repeat one. */
const counter: Decider<number, "count", Counted> = {
  initialState: () => 0,
  evolve: (state, event) => Math.max(state, event.data.n),
  decide: (_command, state) => [{ type: "Counted", data: { n: state + 1 } }],
};

describe.each(databaseKinds)("runCommand on %s", (kind) => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: EventStore;
  let context: CommandContext;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = createPostgresEventStore(db.sql);
    const tenant_id = randomUUID();
    context = {
      store,
      tenant_id,
      metadata: { tenant_id, actor_key_id: null, correlation_id: null, causation_id: null, occurred_at: "" },
    };
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("fresh skips the first read; a stream that exists after all is refused, read and decided again", async () => {
    const stream = `counter-${randomUUID()}`;
    const first = await runCommand(context, stream, counter, "count", { fresh: true });
    expect(first.events).toEqual([{ type: "Counted", data: { n: 1 } }]);
    const again = await runCommand(context, stream, counter, "count", { fresh: true });
    expect(again.events).toEqual([{ type: "Counted", data: { n: 2 } }]);
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });
  it("a command built asynchronously from the loaded state is decided on that state", async () => {
    const adder: Decider<number, number, Counted> = {
      ...counter,
      decide: (n, state) => [{ type: "Counted", data: { n: state + n } }],
    };
    const stream = `counter-${randomUUID()}`;
    await runCommand(context, stream, adder, 1);
    const seen: number[] = [];
    const result = await runCommand(context, stream, adder, async (state) => {
      // a read model lookup would happen here (the lease notice's zone, docs/performance.md)
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(state);
      return 2;
    });
    expect(seen).toEqual([1]);
    expect(result.events).toEqual([{ type: "Counted", data: { n: 3 } }]);
  });

  describe("with a stream cache", () => {
    /** The store, counting its stream reads. */
    const counting = () => {
      const reads = { n: 0 };
      const counted: EventStore = {
        ...store,
        readStream: (...args) => {
          reads.n++;
          return store.readStream(...args);
        },
      };
      return { reads, context: { ...context, store: counted } };
    };
    /** Refuses to count before `floor` is reached: a refusal that depends on the state. */
    const from = (floor: number): Decider<number, "count", Counted> => ({
      ...counter,
      decide: (command, state) => {
        if (state < floor) throw new Error(`below ${floor}`);
        return counter.decide(command, state);
      },
    });

    it("decides on the state its last command left, without reading the stream", async () => {
      const cache = streamCache();
      const { reads, context: c } = counting();
      const stream = `counter-${randomUUID()}`;
      await runCommand(c, stream, counter, "count", { fresh: true, cache });
      const second = await runCommand(c, stream, counter, "count", { cache });
      const third = await runCommand(c, stream, counter, "count", { cache, expected: 1n });
      expect(reads.n).toBe(0);
      expect([second.revision, third.revision]).toEqual([1n, 2n]);
      expect(third.stream.map((e) => [e.stream_revision, e.data])).toEqual([
        [0n, { n: 1 }],
        [1n, { n: 2 }],
        [2n, { n: 3 }],
      ]);
      expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    });

    it("a stream written elsewhere since is refused at the append, read and decided again", async () => {
      const cache = streamCache();
      const { reads, context: c } = counting();
      const stream = `counter-${randomUUID()}`;
      await runCommand(c, stream, counter, "count", { fresh: true, cache });
      await runCommand(context, stream, counter, "count"); // another process: the cache does not see it
      const result = await runCommand(c, stream, counter, "count", { cache });
      expect(result.events).toEqual([{ type: "Counted", data: { n: 3 } }]);
      expect(reads.n).toBe(1);
      // If-Match naming the stream's real revision is not judged on the kept one
      await runCommand(context, stream, counter, "count");
      const matched = await runCommand(c, stream, counter, "count", { cache, expected: 3n });
      expect(matched.events).toEqual([{ type: "Counted", data: { n: 5 } }]);
      expect((await store.readStream(stream)).map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5]);
    });

    /** A stream this process keeps at n = 1 while other writers moved it to n = 3. */
    const keptAt1MovedTo3 = async () => {
      const cache = streamCache();
      const stream = `counter-${randomUUID()}`;
      await runCommand(context, stream, counter, "count", { fresh: true, cache });
      await runCommand(context, stream, counter, "count");
      await runCommand(context, stream, counter, "count");
      return { cache, stream };
    };

    it("a refusal judged on a kept state is judged again on the stream as read", async () => {
      const { cache, stream } = await keptAt1MovedTo3();
      // Refused on the kept state (1 < 3), passes on the stream as read (3)
      const { reads, context: c } = counting();
      const ok = await runCommand(c, stream, from(3), "count", { cache });
      expect(ok.events).toEqual([{ type: "Counted", data: { n: 4 } }]);
      expect(reads.n).toBe(1);
      // A refusal on the stream as read stands
      await expect(runCommand(c, stream, from(9), "count", { cache })).rejects.toThrow("below 9");
    });

    it("nothing to do on a kept state is judged again on the stream as read", async () => {
      const { cache, stream } = await keptAt1MovedTo3();
      // Counts only from 3 on: nothing to do on the kept state (1), but that state is old; on the
      // stream as read (3) the command has something to do.
      const upTo3: Decider<number, "count", Counted> = {
        ...counter,
        decide: (command, state) => (state >= 3 ? counter.decide(command, state) : []),
      };
      const { reads, context: c } = counting();
      const result = await runCommand(c, stream, upTo3, "count", { cache });
      expect(reads.n).toBe(1);
      expect(result.events).toEqual([{ type: "Counted", data: { n: 4 } }]);
      expect(result.revision).toBe(3n);
    });

    it("a refusal at the append on a kept state (a key taken) is judged again on the stream as read", async () => {
      const cache = streamCache();
      const stream = `counter-${randomUUID()}`;
      await runCommand(context, stream, counter, "count", { fresh: true, cache }); // kept at n = 1
      await runCommand(context, stream, counter, "count"); // n = 2 elsewhere
      const judged: number[] = [];
      const result = await runCommand(context, stream, counter, "count", {
        cache,
        reserving: (before) => {
          judged.push(before);
          if (before < 2) throw conflict(`taken at ${before}`);
          return null;
        },
      });
      expect(judged).toEqual([1, 2]);
      expect(result.events).toEqual([{ type: "Counted", data: { n: 3 } }]);
    });

    it("a kept stream of another tenant reads as absent to the caller, and is not used", async () => {
      const cache = streamCache();
      const stream = `counter-${randomUUID()}`;
      await runCommand(context, stream, counter, "count", { fresh: true, cache });
      const other = randomUUID();
      const foreign = { ...context, tenant_id: other, metadata: { ...context.metadata, tenant_id: other } };
      await expect(
        runCommand(foreign, stream, counter, "count", { cache, notFound: () => new Error("not found") }),
      ).rejects.toThrow("not found");
    });

    it("keeps only the newest revision, drops the least recently used past its event bound, skips long streams", () => {
      const cache = streamCache(2, 3);
      const entry = (revision: bigint, events = 1) => ({
        tenant_id: "t",
        revision,
        state: Number(revision),
        events: Array.from({ length: events }) as never[],
      });
      cache.set("a", entry(5n));
      cache.set("a", entry(4n));
      expect(cache.get("a")?.revision).toBe(5n);
      cache.set("b", entry(1n));
      cache.get("a");
      cache.set("c", entry(1n));
      expect([cache.get("a"), cache.get("b"), cache.get("c")].map((e) => e?.revision)).toEqual([
        5n,
        undefined,
        1n,
      ]);
      cache.set("d", entry(1n, 4));
      expect(cache.get("d")).toBeUndefined();
      // The bound counts events: a stream of 2 leaves room for nothing else.
      cache.set("e", entry(1n, 2));
      expect([cache.get("a"), cache.get("c"), cache.get("e")].map((e) => e?.revision)).toEqual([
        undefined,
        undefined,
        1n,
      ]);
    });
  });
});
