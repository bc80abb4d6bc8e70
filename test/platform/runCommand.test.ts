import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decider } from "../../src/platform/decider.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { type CommandContext, runCommand } from "../../src/platform/runCommand.ts";
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
});
