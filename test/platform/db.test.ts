import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresSql, HeldStatementsError, notifier, type Sql } from "../../src/platform/db.ts";
import type { RecordedEvent } from "../../src/platform/eventstore/eventStore.ts";
import { iso, isoSql } from "../../src/platform/formatDates.ts";
import { readPage } from "../../src/platform/http/pagination.ts";
import { rowProjection, tenantPolicy } from "../../src/platform/projections/projection.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

/** The SQL interface's performance options (docs/performance.md): prepared statements, dedicated pools. */
describe.each(databaseKinds)("db on %s", (kind) => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  // One connection, so every statement below meets what the ones before it prepared.
  let one: Sql;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
    one = createPostgresSql(db.url!, { max: 1 });
  });
  afterAll(async () => {
    await one?.close();
    await db?.drop();
  });

  it("a batched transaction sends BEGIN and held writes with the next statement, and COMMIT with the last", async () => {
    const table = `held_${randomUUID().slice(0, 8)}`;
    await one.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text NOT NULL, tags text[], doc jsonb)`);
    // Hostile text goes through the inlined literals unchanged (quotes, backslashes, `$n`, SQL).
    const hostile = ["it's", "back\\slash \\' E'x'", "$1 $2::int", "'); DROP TABLE x; --", "é€😀\n\t"];
    const sends: string[] = [];
    const send = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      sends.push(typeof config === "string" ? config : (config?.text ?? ""));
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof send;
    let seen: unknown[] = [];
    try {
      await one.transaction(
        async (tx) => {
          for (const [i, v] of hostile.entries()) {
            const rows = await tx.query(
              `INSERT INTO ${table} (id, v, tags, doc) VALUES ($1, $2, $3, $4::jsonb)`,
              [i, v, [v, null], JSON.stringify({ v })],
              { deferred: true },
            );
            expect(rows).toEqual([]);
          }
          // A read sees the held writes: they go first, in the same round trip.
          seen = await tx.query(`SELECT count(*)::int AS n FROM ${table}`);
          await tx.query(`UPDATE ${table} SET v = v || $1 WHERE id = $2`, ["!", 0], { deferred: true });
        },
        { batched: true },
      );
    } finally {
      pg.Client.prototype.query = send;
    }
    expect(seen).toEqual([{ n: hostile.length }]);
    expect(sends).toHaveLength(2);
    expect(sends[0]).toMatch(/^BEGIN;/);
    expect(sends[1]).toMatch(/COMMIT$/);
    const rows = await one.query(`SELECT id, v, tags, doc FROM ${table} ORDER BY id`);
    expect(rows).toEqual(
      hostile.map((v, i) => ({ id: i, v: i === 0 ? `${v}!` : v, tags: [v, null], doc: { v } })),
    );
  });

  it("a batched transaction sends a write with large parameters as parameters, after the held ones, in order", async () => {
    const table = `held_${randomUUID().slice(0, 8)}`;
    await one.query(`CREATE TABLE ${table} (id int PRIMARY KEY, doc jsonb NOT NULL)`);
    // About 400 kB of JSON with quotes and backslashes: past the inlining limit (db.ts).
    const big = JSON.stringify(
      Array.from({ length: 4000 }, (_, i) => ({ i, note: `it's a \\ "row" ${"x".repeat(60)}` })),
    );
    const sends: { text: string; values?: unknown[] }[] = [];
    const send = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string; values?: unknown[] };
      sends.push(
        typeof config === "string" ? { text: config } : { text: config?.text ?? "", values: config?.values },
      );
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof send;
    try {
      await one.transaction(
        async (tx) => {
          await tx.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb)`, [1, "{}"], {
            deferred: true,
          });
          // Updates the row the held insert writes: it must go after it.
          await tx.query(
            `INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
            [1, big],
            {
              deferred: true,
            },
          );
          await tx.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb)`, [2, "[]"], {
            deferred: true,
          });
        },
        { batched: true },
      );
    } finally {
      pg.Client.prototype.query = send;
    }
    expect(sends).toHaveLength(3);
    expect(sends[0].text).toMatch(/^BEGIN;\nINSERT/);
    expect(sends[1].values).toEqual([1, big]);
    expect(sends[2].text).toMatch(/^INSERT.*;\nCOMMIT$/s);
    const rows = await one.query(`SELECT id, doc FROM ${table} ORDER BY id`);
    expect(rows).toEqual([
      { id: 1, doc: JSON.parse(big) },
      { id: 2, doc: [] },
    ]);
  });

  it("a held write that fails rolls the whole batched transaction back, as a HeldStatementsError", async () => {
    const table = `held_${randomUUID().slice(0, 8)}`;
    await one.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    await one.query(`INSERT INTO ${table} VALUES (1)`);
    const attempt = one.transaction(
      async (tx) => {
        await tx.query(`INSERT INTO ${table} VALUES ($1)`, [2], { deferred: true });
        await tx.query(`INSERT INTO ${table} VALUES ($1)`, [1], { deferred: true });
      },
      { batched: true },
    );
    await expect(attempt).rejects.toBeInstanceOf(HeldStatementsError);
    await expect(attempt).rejects.toMatchObject({ cause: { code: "23505" } });
    expect(await one.query(`SELECT id FROM ${table} ORDER BY id`)).toEqual([{ id: 1 }]);
    // The connection is usable again, outside any transaction.
    expect(await one.query("SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    // Outside a batched transaction `deferred` runs at once.
    await one.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${table} VALUES ($1)`, [3], { deferred: true });
      expect(await tx.query(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 2 }]);
    });
  });

  it("a burst of notifier calls sends few NOTIFYs, one of them after the last call", async () => {
    const channel = `pms_test_${randomUUID().slice(0, 8)}`;
    const received: number[] = [];
    const stop = await db.sql.listen(channel, () => received.push(performance.now()));
    // The real database, with the start of each NOTIFY statement noted.
    const sent: number[] = [];
    const watched: Sql = {
      ...db.sql,
      query: (text, params, options) => {
        if (text.includes("pg_notify")) sent.push(performance.now());
        return db.sql.query(text, params, options);
      },
    };
    try {
      const notify = notifier(watched, channel, "x");
      let lastCall = 0;
      // Three bursts of 100 calls, 20 ms apart: coalesced into a handful of NOTIFYs, not 300.
      for (let burst = 0; burst < 3; burst++) {
        for (let i = 0; i < 100; i++) notify();
        lastCall = performance.now();
        await new Promise((r) => setTimeout(r, 20));
      }
      const deadline = Date.now() + 10_000;
      while (!received.some((t) => t > lastCall) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 50));
      // Every call is followed by a NOTIFY sent after it: the last call's too.
      expect(sent.some((t) => t >= lastCall)).toBe(true);
      expect(received.length).toBe(sent.length);
      expect(sent.length).toBeLessThanOrEqual(6);
    } finally {
      await stop();
    }
  });

  it("a query asked to be prepared is parsed once per connection and answers each time", async () => {
    const text = "SELECT $1::int + 1 AS n";
    expect(await one.query(text, [1], { prepare: true })).toEqual([{ n: 2 }]);
    expect(await one.query(text, [41], { prepare: true })).toEqual([{ n: 42 }]);
    const prepared = await one.query("SELECT name FROM pg_prepared_statements WHERE statement = $1", [text]);
    expect(prepared).toHaveLength(1);
    expect(prepared[0].name).toMatch(/^pms_/);
    expect(
      await one.query("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1", [
        "SELECT $1::int AS plain",
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it("a row projection's next version, with a column of another type, works where the old one was prepared", async () => {
    const tenant = randomUUID();
    const id = randomUUID();
    const event = (value: unknown) =>
      ({
        type: "ThingNoted",
        data: { id, value },
        metadata: { tenant_id: tenant },
      }) as unknown as RecordedEvent;
    const things = (version: number, valueType: string) =>
      rowProjection<{ type: "ThingNoted"; data: { id: string; value: unknown } }>({
        name: "things",
        version,
        table: "things",
        columns: ["tenant_id", "id", "value"],
        schema: `CREATE TABLE things (tenant_id uuid NOT NULL, id uuid PRIMARY KEY, value ${valueType})`,
        handles: ["ThingNoted"],
        idOf: (e) => e.data.id,
        evolve: (_row, e) => ({ value: e.data.value }),
      });
    await one.exec(things(1, "integer").schema);
    await one.transaction((tx) => things(1, "integer").applyBatch(tx, [event(1)]));
    await one.transaction((tx) => things(1, "integer").applyBatch(tx, [event(2)]));
    // What a rebuild's swap leaves: the same table name, its column now of another type.
    await one.exec(`DROP TABLE things; ${things(2, "text").schema}`);
    await one.transaction((tx) => things(2, "text").applyBatch(tx, [event("deux")]));
    await one.transaction((tx) => things(2, "text").applyBatch(tx, [event("trois")]));
    expect(await one.query("SELECT value FROM things")).toEqual([{ value: "trois" }]);
  });

  it("a prepared read whose table changed column types under it answers again (once refused in a transaction)", async () => {
    const table = `stale_${randomUUID().replaceAll("-", "")}`;
    const text = `SELECT value FROM ${table}`;
    await one.exec(`CREATE TABLE ${table} (value integer); INSERT INTO ${table} VALUES (1)`);
    expect(await one.query(text, [], { prepare: true })).toEqual([{ value: 1 }]);
    // What a newer projection version's swap does to a read model that is read with `prepare`.
    await one.exec(
      `DROP TABLE ${table}; CREATE TABLE ${table} (value text); INSERT INTO ${table} VALUES ('a')`,
    );
    expect(await one.query(text, [], { prepare: true })).toEqual([{ value: "a" }]);
    await one.exec(
      `DROP TABLE ${table}; CREATE TABLE ${table} (value boolean); INSERT INTO ${table} VALUES (true)`,
    );
    // In a transaction the statement fails (the transaction is aborted) and is dropped on rollback.
    await expect(one.transaction((tx) => tx.query(text, [], { prepare: true }))).rejects.toThrow(
      /cached plan must not change result type/,
    );
    expect(await one.transaction((tx) => tx.query(text, [], { prepare: true }))).toEqual([{ value: true }]);
    await one.exec(`DROP TABLE ${table}`);
  });

  it("each transaction has a view of its own, even on the same connection (a rebuild's load is marked on it)", async () => {
    const views: Sql[] = [];
    for (let i = 0; i < 2; i++) await one.transaction(async (tx) => void views.push(tx));
    await one.transaction(async (tx) => void views.push(tx), { batched: true });
    expect(new Set(views).size).toBe(3);
  });

  it("a dedicated pool answers on connections of its own and closes without closing its parent", async () => {
    const own = one.dedicated!(2);
    const pid = async (sql: Sql) => (await sql.query("SELECT pg_backend_pid() AS pid"))[0].pid as number;
    const [mine, parent] = [await pid(own), await pid(one)];
    expect(mine).not.toBe(parent);
    await own.close();
    expect(await pid(one)).toBe(parent);
  });
  it("isoSql writes a timestamp as iso writes the Date node-pg makes of it", async () => {
    const values = [
      "2026-11-23T23:57:20.123Z",
      "2026-11-23T23:57:20.123999+00",
      "2026-11-24T01:00:00.000999+02",
      "1999-12-31T23:59:59.9999Z",
      "2026-01-01T00:00:00Z",
    ];
    for (const value of values) {
      const [row] = await one.query(`SELECT $1::timestamptz AS t, ${isoSql("$1::timestamptz")} AS text`, [
        value,
      ]);
      expect(row.text).toBe(iso(row.t));
    }
  });

  it("readPage orders by the table's created_at, id even when the select names its ISO text created_at", async () => {
    const table = `paged_${randomUUID().replaceAll("-", "")}`;
    const tenant = randomUUID();
    // Three rows in one millisecond, their ids in the opposite order of their microseconds: the
    // ISO text (milliseconds) cannot order them, the timestamp can (docs/performance.md).
    const ids = [
      "cccccccc-0000-4000-8000-000000000000",
      "bbbbbbbb-0000-4000-8000-000000000000",
      "aaaaaaaa-0000-4000-8000-000000000000",
    ];
    await one.exec(`CREATE TABLE ${table} (tenant_id uuid NOT NULL, id uuid PRIMARY KEY, created_at timestamptz NOT NULL);
      ${tenantPolicy(table)}
      INSERT INTO ${table} VALUES
        ('${tenant}', '${ids[0]}', '2026-11-24T05:00:00.123001Z'),
        ('${tenant}', '${ids[1]}', '2026-11-24T05:00:00.123002Z'),
        ('${tenant}', '${ids[2]}', '2026-11-24T05:00:00.123003Z'),
        ('${randomUUID()}', '${randomUUID()}', '2026-11-24T04:00:00Z')`);
    const page = (n: number, limit: number) =>
      readPage<{ id: string; created_at: string }>(one, tenant, {
        table,
        select: `id, ${isoSql("created_at")} AS created_at`,
        where: "tenant_id = $1",
        params: [tenant],
        page: n,
        limit,
        prepare: true,
      });
    expect(await page(1, 10)).toEqual({
      rows: ids.map((id) => ({ id, created_at: "2026-11-24T05:00:00.123Z" })),
      total: 3,
    });
    expect((await page(2, 2)).rows.map((r) => r.id)).toEqual([ids[2]]);
    await one.exec(`DROP TABLE ${table}`);
  });
});
