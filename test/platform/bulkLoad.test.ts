import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../../src/platform/db.ts";
import type { RecordedEvent } from "../../src/platform/eventstore/eventStore.ts";
import { type BulkLoad, bulkLoad, markBulkLoad } from "../../src/platform/projections/bulkLoad.ts";
import { rowProjection } from "../../src/platform/projections/projection.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

type Noted = { type: "ThingNoted"; data: { id: string; row: Record<string, unknown> | null } };

// A rebuild's rows go in by COPY where no row has their id yet (docs/performance.md): every
// value must land as the live upsert (jsonb_populate_recordset) puts it, NULLs and json nulls alike.
describe.each(databaseKinds)("rebuild bulk load on %s", (kind) => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const thingsOptions = {
    name: "bulk_things",
    version: 1,
    table: "things",
    columns: ["tenant_id", "id", "t", "n", "j", "ts", "b", "d", "big"],
    schema: `CREATE TABLE things (tenant_id uuid NOT NULL, id uuid PRIMARY KEY, t text, n numeric,
      j jsonb, ts timestamptz, b boolean, d date, big bigint)`,
    handles: ["ThingNoted"] as const,
    idOf: (e: RecordedEvent<Noted>) => e.data.id,
  };
  const things = rowProjection<Noted>({
    ...thingsOptions,
    evolve: (row, e) => (e.data.row ? { ...row, ...e.data.row } : null),
  });
  const tenant = randomUUID();
  const noted = (id: string, row: Record<string, unknown> | null) =>
    ({ type: "ThingNoted", data: { id, row }, metadata: { tenant_id: tenant } }) as unknown as RecordedEvent;

  /** Applies the batches into a schema of their own, marked as a bulk load or not. */
  const load = async (schema: string, batches: RecordedEvent[][], bulk: BulkLoad | null) => {
    await db.sql.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}, public; ${things.schema}`);
    for (const events of batches) {
      await db.sql.transaction(async (tx: Sql) => {
        await tx.exec(`SET LOCAL search_path TO ${schema}, public`);
        await things.applyBatch(bulk ? markBulkLoad(tx, bulk) : tx, events);
      });
    }
    // Record text tells SQL NULL (empty) from a json null ("null") and keeps every digit.
    return db.sql.query(`SELECT r::text AS row FROM ${schema}.things r ORDER BY id`);
  };

  it("writes the same rows as the live upsert, over fresh, updated, deleted and re-created ids", async () => {
    const [a, b, c, d, e] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const tricky = "tab\there, new\nline, cr\r, back\\slash \\N, quotes ' \", {braces}, é ☃ 😀";
    const batches = [
      [
        noted(a, { t: tricky, n: 1e21, j: { a: [1, "x\ty\\z"], b: null }, ts: "2024-02-29T12:34:56.789Z" }),
        noted(b, { t: "", n: -1.5, j: "plain string", ts: new Date("2024-03-01T00:00:00.001Z"), b: true }),
        noted(c, {
          t: "\\N",
          n: Number.NaN,
          j: Number.NaN,
          b: false,
          d: "2024-02-29",
          big: 9007199254740991,
        }),
        noted(e, { t: "gone", j: 42 }),
        noted(e, null),
      ],
      [
        noted(a, { j: true }),
        noted(b, null),
        // An object in a text column: jsonb prints it its own way, so it goes by the upsert.
        noted(d, { t: { nested: [1, 2] }, n: 0, j: [] }),
      ],
      [noted(b, { t: `again ${tricky}`, n: 3.25, j: { k: "v\\n" } }), noted(a, { n: 7 })],
    ];
    const live = await load(`live_${randomUUID().slice(0, 8)}`, batches, null);
    const bulk = await load(`bulk_${randomUUID().slice(0, 8)}`, batches, bulkLoad());
    expect(live).toHaveLength(4);
    expect(bulk).toEqual(live);
  });

  it("an evolve that throws while the COPY streams fails the batch and writes none of it", async () => {
    const schema = `fail_${randomUUID().slice(0, 8)}`;
    const failing = rowProjection<Noted>({
      ...thingsOptions,
      evolve: (row, e) => {
        if (e.data.row?.t === "boom") throw new Error("evolve failed");
        return e.data.row ? { ...row, ...e.data.row } : null;
      },
    });
    await db.sql.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}, public; ${things.schema}`);
    // Past the first 64 kB chunk, so PostgreSQL has taken part of the COPY when the fold throws.
    const batch = Array.from({ length: 3000 }, (_, i) =>
      noted(randomUUID(), { t: i === 2500 ? "boom" : "x".repeat(40) }),
    );
    const apply = db.sql.transaction(async (tx: Sql) => {
      await tx.exec(`SET LOCAL search_path TO ${schema}, public`);
      await failing.applyBatch(markBulkLoad(tx, bulkLoad()), batch);
    });
    await expect(apply).rejects.toThrow("evolve failed");
    expect(await db.sql.query(`SELECT count(*)::int AS n FROM ${schema}.things`)).toEqual([{ n: 0 }]);
  });

  it("knows the ids it wrote, whatever their case, and says so of almost no other", () => {
    const written = bulkLoad().written("things");
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    for (const id of ids) written.add(id);
    expect(ids.every((id) => written.mayHave(id) && written.mayHave(id.toUpperCase()))).toBe(true);
    // 1,000 ids in 2^24 bits: a false "maybe" is about one in 10^13.
    expect(Array.from({ length: 10_000 }, () => randomUUID()).filter((id) => written.mayHave(id))).toEqual(
      [],
    );
    expect(bulkLoad().written("other").mayHave(ids[0])).toBe(false);
  });
});
