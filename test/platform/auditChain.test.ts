import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canonical,
  lineHash,
  merklePath,
  merkleRoot,
  rootOfPath,
} from "../../src/platform/eventstore/chain.ts";
import type { EventStore, NewEvent } from "../../src/platform/eventstore/eventStore.ts";
import { backfillChains } from "../../src/platform/eventstore/postgres/backfillChain.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { chainLine, verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

const event = (data: unknown): NewEvent => ({
  event_id: randomUUID(),
  type: "Tested",
  data,
  metadata: {
    tenant_id: randomUUID(),
    actor_key_id: null,
    correlation_id: null,
    causation_id: null,
    occurred_at: new Date().toISOString(),
  },
});

describe("Merkle roots (docs/audit.md)", () => {
  it("every leaf's path leads to the root, for any number of leaves", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[0-9a-f]{64}$/), { minLength: 1, maxLength: 40 }),
        (leaves) => {
          const root = merkleRoot(leaves);
          leaves.forEach((leaf, i) => {
            expect(rootOfPath(leaf, merklePath(leaves, i))).toBe(root);
          });
        },
      ),
    );
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("hash chain on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: EventStore;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    store = createPostgresEventStore(db.sql);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("the statement's line is RFC 8785 canonical JSON: the hash PostgreSQL stores is the one Node computes", async () => {
    const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes("\\u0000"));
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 3 }), async (datas) => {
        const name = `test-${randomUUID()}`;
        await store.appendToStream(
          name,
          datas.map((d) => event({ value: d })),
          { expected_revision: "no_stream" },
        );
        for (const e of await store.readStream(name)) expect(e.hash).toBe(lineHash(chainLine(e)));
      }),
      { numRuns: 40 },
    );
    expect(canonical({ b: 1, a: [2, "é"] })).toBe('{"a":[2,"é"],"b":1}');
  });

  it("backfills events written before the chain, resumably; an append to such a stream chains it first", async () => {
    const [a, b] = [`test-${randomUUID()}`, `test-${randomUUID()}`];
    await store.appendToStream(a, [event({ n: 1 }), event({ n: 2 })], { expected_revision: "no_stream" });
    await store.appendToStream(b, [event({ n: 3 })], { expected_revision: "no_stream" });
    const expected = (await store.readStream(a)).map((e) => e.hash);
    // As the log was before migration 120.
    await db.sql.query("UPDATE events SET hash = NULL, previous_hash = NULL WHERE stream_name = ANY($1)", [
      [a, b],
    ]);
    // An append to an unchained stream chains it, then continues the chain.
    await store.appendToStream(a, [event({ n: 4 })], { expected_revision: 1n });
    const chained = await store.readStream(a);
    expect(chained.slice(0, 2).map((e) => e.hash)).toEqual(expected);
    expect(chained[2].previous_hash).toBe(expected[1]);
    // The backfill does the rest, and a second run finds nothing left.
    expect(await backfillChains(db.sql)).toBeGreaterThanOrEqual(1);
    expect(await backfillChains(db.sql)).toBe(0);
    for (const name of [a, b]) {
      const lines = (await store.readStream(name)).map((e) => canonical(chainLine(e)));
      expect(verifyLines(lines).ok).toBe(true);
    }
  });
});
