import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import {
  comparePositions,
  type EventStore,
  type Position,
} from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import type { Projection } from "../../src/platform/projections/projection.ts";
import { listQuarantine } from "../../src/platform/projections/quarantine.ts";
import { chooseForQuarantined } from "../../src/platform/projections/quarantineCommands.ts";
import { rebuildProjection, splitPlainIndexes } from "../../src/platform/projections/rebuildProjection.ts";
import { type ProjectionRuntime, runProjections } from "../../src/platform/projections/runProjections.ts";
import {
  type CounterRow,
  count,
  counterProjection,
  expectedCounters,
  readCounters,
  removeCounter,
  silentLog,
} from "../support/counterProjection.ts";
import { openTransaction } from "../support/openTransaction.ts";
import { createTestDatabase, type DatabaseKind, databaseKinds } from "../support/testDatabase.ts";

interface Db {
  sql: Sql;
  store: EventStore;
  url?: string;
}

/** Everything a test opened, closed in reverse order after it. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

async function openDb(kind: DatabaseKind): Promise<Db> {
  const db = await createTestDatabase(kind);
  const store = createPostgresEventStore(db.sql);
  cleanups.push(
    () => db.drop(),
    () => store.close(),
  );
  return { sql: db.sql, store: tracked(store), url: db.url };
}

function start(db: Db, projections: Projection[], options: { idlePollMs?: number } = {}): ProjectionRuntime {
  const runtime = runProjections({ sql: db.sql, store: db.store, projections, log: silentLog, ...options });
  cleanups.push(() => runtime.stop());
  return runtime;
}

/**
 * The tests' notion of "the head": the newest position appended through the store. Not
 * store.headPosition(): on a shared PostgreSQL server a writing transaction in any other database
 * holds the read horizon back, so the readable head can lag what this test has written.
 */
const appended = new WeakMap<EventStore, Position>();
function tracked(store: EventStore): EventStore {
  const wrapper: EventStore = {
    ...store,
    async appendToStream(stream, events, options) {
      const result = await store.appendToStream(stream, events, options);
      const previous = appended.get(wrapper);
      if (!previous || comparePositions(result.position, previous) > 0)
        appended.set(wrapper, result.position);
      return result;
    },
  };
  return wrapper;
}

async function head(store: EventStore): Promise<Position> {
  const p = appended.get(store);
  if (!p) throw new Error("nothing appended");
  return p;
}

async function checkpointRow(sql: Sql, name: string) {
  const [row] = await sql.query(
    `SELECT version, commit_position::text AS c, prepare_position::text AS p, events_applied, last_error, updated_at
     FROM projection_checkpoints WHERE name = $1`,
    [name],
  );
  return row
    ? { ...row, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } as Position }
    : (null as null | {
        version: number;
        position: Position;
        events_applied: number;
        last_error: string | null;
      });
}

const metadataFor = (tenant_id: string) => ({
  tenant_id,
  actor_key_id: null,
  correlation_id: null,
  causation_id: null,
  occurred_at: new Date().toISOString(),
});

/** Generous: CI machines and an embedded database under load are slow. */
const SLOW = 240_000;

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.each(databaseKinds)("projection runtime on %s", (kind) => {
  // One database per kind (an embedded one is slow to create); each test projects under its own
  // name, built from the whole log, so earlier tests' events are part of every expectation.
  const tenant = randomUUID();
  let shared: Db;
  let dropShared: () => Promise<void>;
  beforeAll(async () => {
    const db = await createTestDatabase(kind);
    const store = createPostgresEventStore(db.sql);
    shared = { sql: db.sql, store: tracked(store), url: db.url };
    dropShared = async () => {
      await store.close();
      await db.drop();
    };
  });
  afterAll(async () => {
    await dropShared?.();
  });
  const openDb = async (_kind: DatabaseKind) => shared;
  const eventCount = async (db: Db) =>
    (await db.sql.query("SELECT count(*)::int AS n FROM events"))[0].n as number;

  it(
    "applies every event exactly once, the checkpoint moving in the same transaction as the rows",
    async () => {
      const db = await openDb(kind);
      // Events already in the log are built by the first start (a rebuild), later ones live.
      for (let i = 0; i < 3; i++) await count(db.store, tenant, randomUUID(), [1, 2]);
      const projection = counterProjection({ name: "c_once" });
      // A projection that handles none of these events still moves its checkpoint (and waitFor passes it).
      const skipper: Projection = {
        name: "c_skip",
        version: 1,
        tables: ["c_skip"],
        schema: "CREATE TABLE c_skip (id uuid PRIMARY KEY, tenant_id uuid NOT NULL);",
        handles: ["NoSuchEvent"],
        applyBatch: async () => {
          throw new Error("c_skip was given an event it does not handle");
        },
      };
      // A safety poll far past the waits below: the skip is recorded by the loop's own schedule.
      const runtime = start(db, [projection, skipper], { idlePollMs: 60_000 });
      expect(await runtime.waitFor(await head(db.store), 30_000)).toBe(true);

      // While live appends go on, every consistent snapshot of (checkpoint, table) must agree:
      // the rows count exactly the events at or before the checkpoint.
      let writing = true;
      const samples: { counted: number; upTo: number }[] = [];
      const sampler = (async () => {
        while (writing) {
          samples.push(
            await db.sql.transaction(async (tx) => {
              await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
              const [cp] = await tx.query(
                "SELECT commit_position::text AS c, prepare_position::text AS p FROM projection_checkpoints WHERE name = 'c_once'",
              );
              const [{ n }] = await tx.query("SELECT coalesce(sum(events), 0)::int AS n FROM c_once");
              const [{ m }] = await tx.query(
                `SELECT count(*)::int AS m FROM events
               WHERE type = 'TestCounted' AND (transaction_id, position) <= (greatest($1::bigint, 0)::text::xid8, $2::bigint)`,
                [cp.c, cp.p],
              );
              return { counted: n, upTo: m };
            }),
          );
          await sleep(5);
        }
      })();
      const streams = Array.from({ length: 25 }, () => randomUUID());
      for (const s of streams)
        await count(
          db.store,
          tenant,
          s,
          Array.from({ length: 100 }, (_, i) => i),
        );
      const last = await head(db.store);
      expect(await runtime.waitFor(last, 60_000)).toBe(true);
      writing = false;
      await sampler;

      expect(samples.length).toBeGreaterThan(0);
      for (const s of samples) expect(s.counted).toBe(s.upTo);
      expect(await readCounters(db.sql, "c_once")).toEqual(await expectedCounters(db.store));
      const cp = await checkpointRow(db.sql, "c_once");
      expect(comparePositions(cp!.position, last)).toBe(0);
      // Built from scratch over the whole log: every event once (all of them are counter events).
      expect(cp!.events_applied).toBe(await eventCount(db));
      expect(projection.control.batches.reduce((a, b) => a + b, 0)).toBe(await eventCount(db));
      expect(Math.max(...projection.control.batches)).toBeLessThanOrEqual(1000);
      // A projection that only skipped has its checkpoint written at most SKIPS_EVERY_MS (100 ms)
      // after, idle or busy (runProjections.ts): not before waitFor answers, but soon after.
      await until(
        async () => comparePositions((await checkpointRow(db.sql, "c_skip"))!.position, last) === 0,
        2_000,
        "the skipping projection's checkpoint",
      );
      expect((await checkpointRow(db.sql, "c_skip"))!.last_error).toBeNull();
    },
    SLOW,
  );

  it(
    "a transaction left open in another database of the server does not stall the projections",
    async () => {
      const db = await openDb(kind);
      if (!db.url) return;
      const projection = counterProjection({ name: "c_elsewhere" });
      const runtime = start(db, [projection]);
      await count(db.store, tenant, randomUUID(), [1]);
      expect(await runtime.waitFor(await head(db.store), 30_000)).toBe(true);
      const elsewhere = new URL(db.url);
      elsewhere.pathname = "/postgres";
      const tx = await openTransaction(elsewhere.toString());
      try {
        await tx.sql.query("SELECT pg_current_xact_id()");
        const position = await count(db.store, tenant, randomUUID(), [2]);
        expect(await runtime.waitFor(position, 30_000)).toBe(true);
      } finally {
        await tx.rollback();
      }
    },
    SLOW,
  );

  it(
    "an append landing while the idle loop checks for open transactions wakes it (no 1 s safety poll)",
    async () => {
      const db = await openDb(kind);
      await count(db.store, tenant, randomUUID(), [1]);
      // The runtime's sql: once armed, the "hidden by an open transaction" check appends an event
      // after its own answer was taken and before the loop goes to sleep: the race the loop lost
      // when its sleep did not look at the appends counted since its read.
      let armed = false;
      let appendedThere: Promise<Position> | null = null;
      const racing: Sql = {
        ...db.sql,
        async query(text, params, options) {
          const rows = await db.sql.query(text, params, options);
          if (armed && text.includes("IS NOT NULL AS more")) {
            armed = false;
            appendedThere = count(db.store, tenant, randomUUID(), [1]);
            await appendedThere;
          }
          return rows;
        },
      };
      const projection = counterProjection({ name: "c_wake" });
      // A safety poll far past the wait below: only the wake-up can apply the event in time.
      const runtime = runProjections({
        sql: racing,
        store: db.store,
        projections: [projection],
        log: silentLog,
        idlePollMs: 60_000,
      });
      cleanups.push(() => runtime.stop());
      expect(await runtime.waitFor(await head(db.store), 30_000)).toBe(true);
      armed = true;
      // An append of its own wakes the loop (it may be in its 60 s sleep); once that is applied,
      // the empty read and the check that races come next.
      await count(db.store, tenant, randomUUID(), [1]);
      await until(async () => appendedThere !== null, 10_000, "the racing append");
      const position = await appendedThere!;
      expect(await runtime.waitFor(position, 30_000)).toBe(true);
    },
    SLOW,
  );

  it(
    "waitFor resolves once the position is projected, and answers false on timeout",
    async () => {
      const db = await openDb(kind);
      const runtime = start(db, [counterProjection({ name: "c_wait" })]);
      const id = randomUUID();
      const position = await count(db.store, tenant, id, [5]);
      expect(await runtime.waitFor(position, 30_000)).toBe(true);
      // Read-your-writes: the row is there the moment waitFor resolves.
      const rows = await db.sql.query("SELECT events, total FROM c_wait WHERE id = $1", [id]);
      expect(rows).toEqual([{ events: 1, total: 5 }]);

      const started = Date.now();
      const future = { commit: position.commit + 1_000_000n, prepare: position.prepare + 1_000_000n };
      expect(await runtime.waitFor(future, 300)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(280);

      // A position appended after the wait started resolves the wait.
      const pending = runtime.waitFor({ commit: position.commit, prepare: position.prepare + 1n }, 30_000);
      const next = await count(db.store, tenant, id, [1]);
      expect(await pending).toBe(true);
      expect(await runtime.waitFor(next, 30_000)).toBe(true);
    },
    SLOW,
  );

  it(
    "a version bump rebuilds into fresh tables and swaps them in: old rows gone, new logic applied",
    async () => {
      const db = await openDb(kind);
      const ids: string[] = [randomUUID(), randomUUID()];
      await count(db.store, tenant, ids[0], [1, 2, 3]);
      await count(db.store, tenant, ids[1], [10]);
      const v1 = start(db, [counterProjection({ name: "c_bump", version: 1, factor: 1 })]);
      expect(await v1.waitFor(await head(db.store), 30_000)).toBe(true);
      expect(await readCounters(db.sql, "c_bump")).toEqual(await expectedCounters(db.store, 1));
      // A row no event explains: a rebuild from the log must not carry it over.
      const stray = randomUUID();
      await db.sql.query(
        "INSERT INTO c_bump (tenant_id, id, stream_name, events, total, last_revision) VALUES ($1, $2, 'stray', 1, 1, 0)",
        [tenant, stray],
      );
      await v1.stop();

      await count(db.store, tenant, ids[1], [20]);
      const v2 = start(db, [
        counterProjection({ name: "c_bump", version: 2, factor: 10, extraColumn: true }),
      ]);
      expect(await v2.waitFor(await head(db.store), 30_000)).toBe(true);
      const rows = await readCounters(db.sql, "c_bump");
      expect(rows).toEqual(await expectedCounters(db.store, 10));
      expect(
        rows
          .filter((r) => ids.includes(r.id))
          .map((r) => r.total)
          .sort((a, b) => a - b),
      ).toEqual([60, 300]);
      expect(rows.some((r) => r.id === stray)).toBe(false);
      const notes = await db.sql.query("SELECT note FROM c_bump WHERE id = ANY($1::uuid[]) ORDER BY note", [
        ids,
      ]);
      expect(notes.map((n) => n.note)).toEqual(["v1", "v2"]);
      expect((await checkpointRow(db.sql, "c_bump"))!.version).toBe(2);
      expect(
        await db.sql.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pms_rebuild_%'"),
      ).toEqual([]);

      // Live events after the swap use the new logic too.
      const p = await count(db.store, tenant, ids[0], [4]);
      expect(await v2.waitFor(p, 30_000)).toBe(true);
      const [row] = await db.sql.query("SELECT events, total FROM c_bump WHERE id = $1", [ids[0]]);
      expect(row).toEqual({ events: 4, total: 100 });
    },
    SLOW,
  );

  it(
    "rebuildProjection while live appends continue ends equal to a from-scratch build",
    async () => {
      const db = await openDb(kind);
      const projection = counterProjection({ name: "c_live" });
      const runtime = start(db, [projection]);
      const streams = Array.from({ length: 8 }, () => randomUUID());
      let writing = true;
      const writer = (async () => {
        let i = 0;
        while (writing || i < 40) {
          const s = streams[i % streams.length];
          if (i % 37 === 36) await removeCounter(db.store, tenant, s).catch(() => {});
          else await count(db.store, tenant, s, [i, 1]);
          i++;
          // Embedded queries resolve without an I/O turn: let timers (and the rebuilds) run.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await sleep(50);
      const rebuilds = await Promise.all([
        rebuildProjection(db.sql, db.store, projection),
        sleep(30).then(() => rebuildProjection(db.sql, db.store, projection)),
      ]);
      await sleep(50);
      writing = false;
      await writer;
      expect(rebuilds.every((r) => r.events > 0)).toBe(true);
      const last = await head(db.store);
      expect(await runtime.waitFor(last, 60_000)).toBe(true);
      const expected = await expectedCounters(db.store);
      expect(expected.length).toBeGreaterThan(0);
      expect(await readCounters(db.sql, "c_live")).toEqual(expected);
      expect(comparePositions((await checkpointRow(db.sql, "c_live"))!.position, last)).toBe(0);

      // And equal to a from-scratch build of the same logic under another name.
      await rebuildProjection(db.sql, db.store, counterProjection({ name: "c_check" }));
      expect(await readCounters(db.sql, "c_check")).toEqual(await readCounters(db.sql, "c_live"));

      // The live projector goes on after the swaps.
      const p = await count(db.store, tenant, streams[0], [1000]);
      expect(await runtime.waitFor(p, 30_000)).toBe(true);
      expect(await readCounters(db.sql, "c_live")).toEqual(await expectedCounters(db.store));
    },
    SLOW,
  );

  it.each([
    {
      how: "a batch that throws midway",
      name: "c_poison",
      poison: { poison: true },
      failInSql: false,
      error: "poisoned event",
    },
    {
      // The failing write is held, so PostgreSQL reports it with a later statement; the batch
      // replayed statement by statement names the culprit.
      how: "a write that fails in PostgreSQL among held statements",
      name: "c_sqlpoison",
      poison: { sql_poison: true },
      failInSql: true,
      error: "null value",
    },
  ])(
    "$how: the event is quarantined with its error, later events of its stream wait behind it, the projection goes on, and a retry after the fix applies them in order",
    async ({ name, poison, failInSql, error }) => {
      const db = await openDb(kind);
      const control = { broken: true, batches: [] as number[], failInSql };
      const healthy = `${name}_healthy`;
      // A healthy projection in the same runtime must not be held back by the failing one.
      const runtime = start(db, [counterProjection({ name, control }), counterProjection({ name: healthy })]);
      const good = randomUUID();
      const before = await count(db.store, tenant, good, [1, 2]);
      expect(await runtime.waitFor(before, 30_000)).toBe(true);
      const rowsBefore = await readCounters(db.sql, name);

      // Both events poisoned: the batch fails, then the first alone; the second waits behind it.
      const after = await count(db.store, tenant, good, [100, 7], poison);
      // The quarantine counts as passed: read-your-writes does not wait for a fix.
      expect(await runtime.waitFor(after, 30_000)).toBe(true);
      expect(await readCounters(db.sql, name)).toEqual(rowsBefore);
      const aside = await listQuarantine(db.sql, { projection: name });
      expect(aside.map((q) => [q.stream_name, q.tenant_id])).toEqual([
        [`counter-${good}`, tenant],
        [`counter-${good}`, tenant],
      ]);
      expect(aside[0].error).toContain(error);
      expect(aside[0].held_by).toBeNull();
      expect(aside[1].held_by).toBe(aside[0].event_id);
      const cp = await checkpointRow(db.sql, name);
      expect(comparePositions(cp!.position, after)).toBeGreaterThanOrEqual(0);
      expect(cp!.last_error).toBeNull();

      // A later event of the stream waits too; another stream's is applied.
      const held = await count(db.store, tenant, good, [3]);
      const other = randomUUID();
      const later = await count(db.store, tenant, other, [5]);
      expect(await runtime.waitFor(later, 30_000)).toBe(true);
      expect(comparePositions(later, held)).toBeGreaterThan(0);
      expect((await listQuarantine(db.sql, { projection: name })).length).toBe(3);
      expect((await readCounters(db.sql, name)).find((r) => r.id === other)).toMatchObject({
        events: 1,
        total: 5,
      });
      expect((await readCounters(db.sql, name)).find((r) => r.id === good)).toMatchObject({
        events: 2,
        total: 3,
      });
      expect(await readCounters(db.sql, healthy)).toEqual(await expectedCounters(db.store));

      // Fixed, an operator's retry (an event of the log) applies the three in order, each once.
      control.broken = false;
      const retried = await chooseForQuarantined(db.store, metadataFor(tenant), {
        action: "retry",
        projection: name,
        event_id: aside[0].event_id,
        quarantined: true,
      });
      expect(await runtime.waitFor(retried!, 30_000)).toBe(true);
      expect(await listQuarantine(db.sql, { projection: name })).toEqual([]);
      expect(await readCounters(db.sql, name)).toEqual(await expectedCounters(db.store));
      expect((await readCounters(db.sql, name)).find((r) => r.id === good)).toMatchObject({
        events: 5,
        total: 113,
      });
      // The stream is no longer held: its next event applies at once.
      expect(await runtime.waitFor(await count(db.store, tenant, good, [1000]), 30_000)).toBe(true);
      expect((await readCounters(db.sql, name)).find((r) => r.id === good)).toMatchObject({ events: 6 });
    },
    SLOW,
  );

  it(
    "the quarantine holds across a restart, nothing is applied twice, and a rebuild sets the poison aside again instead of failing",
    async () => {
      const db = await openDb(kind);
      const control = { broken: true, batches: [] as number[] };
      const good = randomUUID();
      const other = randomUUID();
      const row = async (id: string) => (await readCounters(db.sql, "c_restart")).find((r) => r.id === id);
      // The log is the file's (other tests' poison events too): this test's stream only.
      const mine = async () =>
        (await listQuarantine(db.sql, { projection: "c_restart" })).filter(
          (q) => q.stream_name === `counter-${good}`,
        );
      const first = start(db, [counterProjection({ name: "c_restart", control })]);
      await count(db.store, tenant, good, [1]);
      await count(db.store, tenant, good, [100], { poison: true });
      await count(db.store, tenant, good, [2]);
      expect(await first.waitFor(await count(db.store, tenant, other, [5]), 30_000)).toBe(true);
      expect((await mine()).length).toBe(2);
      await first.stop();

      // Restarted: the stream is still held (its next event waits too), nothing is applied again.
      const second = start(db, [counterProjection({ name: "c_restart", control })]);
      expect(await second.waitFor(await count(db.store, tenant, good, [3]), 30_000)).toBe(true);
      const aside = await mine();
      expect(aside.length).toBe(3);
      expect(await row(good)).toMatchObject({ events: 1, total: 1 });
      expect(await row(other)).toMatchObject({ events: 1, total: 5 });
      control.broken = false;
      const retried = await chooseForQuarantined(db.store, metadataFor(tenant), {
        action: "retry",
        projection: "c_restart",
        event_id: aside[0].event_id,
        quarantined: true,
      });
      expect(await second.waitFor(retried!, 30_000)).toBe(true);
      expect(await row(good)).toMatchObject({ events: 4, total: 106 });
      await second.stop();

      // Restarted after the retry: the retry is behind the checkpoint, not acted on again.
      const third = start(db, [counterProjection({ name: "c_restart", control })]);
      expect(await third.waitFor(await count(db.store, tenant, other, [1]), 30_000)).toBe(true);
      expect(await row(good)).toMatchObject({ events: 4, total: 106 });
      expect(await row(other)).toMatchObject({ events: 2, total: 6 });
      await third.stop();

      // A new version rebuilds from the log while the poison still fails: the rebuild finishes,
      // the poison set aside in the new version's quarantine (the retry in the log fails again).
      control.broken = true;
      const rebuilt = start(db, [counterProjection({ name: "c_restart", control, version: 2 })]);
      await rebuilt.ready();
      expect(await rebuilt.waitFor(await count(db.store, tenant, other, [1]), 60_000)).toBe(true);
      const again = await mine();
      expect(again.map((q) => q.event_id)).toEqual(aside.map((q) => q.event_id));
      expect(again[0].attempts).toBe(2);
      expect((await checkpointRow(db.sql, "c_restart"))!.version).toBe(2);
      expect(await row(good)).toMatchObject({ events: 1, total: 1 });
      expect(await row(other)).toMatchObject({ events: 3, total: 7 });
    },
    SLOW,
  );

  it(
    "rows kept between batches (keepRows) stay what the table holds, through a failed batch and a moved checkpoint",
    async () => {
      const db = await openDb(kind);
      // Broken only for this test's poison (the shared log holds other tests' poison events).
      const control = { broken: false, batches: [] as number[] };
      const reads: string[] = [];
      // The statements reading the kept table's rows, as sent (alone or in a held script).
      const watched: Db = {
        ...db,
        sql: {
          ...db.sql,
          transaction: (fn, options) =>
            db.sql.transaction(
              (tx) =>
                fn({
                  ...tx,
                  query: (text, params, opts) => {
                    if (/SELECT .* FROM c_keep WHERE id = ANY/s.test(text)) reads.push(text);
                    return tx.query(text, params, opts);
                  },
                }),
              options,
            ),
        },
      };
      const runtime = start(watched, [counterProjection({ name: "c_keep", keepRows: true, control })]);
      const stream = randomUUID();
      expect(await runtime.waitFor(await count(db.store, tenant, stream, [1]), 30_000)).toBe(true);
      expect(await runtime.waitFor(await count(db.store, tenant, stream, [2]), 30_000)).toBe(true);
      const before = reads.length;
      expect(before).toBeGreaterThan(0);
      // The row written by the last batch is not read again.
      expect(await runtime.waitFor(await count(db.store, tenant, stream, [3]), 30_000)).toBe(true);
      expect(await runtime.waitFor(await count(db.store, tenant, stream, [4]), 30_000)).toBe(true);
      expect(reads.length).toBe(before);
      // A batch that writes its rows and then fails keeps nothing of them ...
      control.broken = true;
      const poisoned = await count(db.store, tenant, stream, [100], { poison: true });
      expect(await runtime.waitFor(poisoned, 30_000)).toBe(true);
      const [aside] = await listQuarantine(db.sql, { projection: "c_keep" });
      expect(aside.stream_name).toBe(`counter-${stream}`);
      control.broken = false;
      const retried = await chooseForQuarantined(db.store, metadataFor(tenant), {
        action: "retry",
        projection: "c_keep",
        event_id: aside.event_id,
        quarantined: true,
      });
      expect(await runtime.waitFor(retried!, 30_000)).toBe(true);
      expect(await runtime.waitFor(await count(db.store, tenant, stream, [1000]), 30_000)).toBe(true);
      // ... and the rows equal a fold of the log: 1 + 2 + 3 + 4 + 100 + 1000, each event once.
      const row = (await readCounters(db.sql, "c_keep")).find((r) => r.id === stream);
      expect(row).toMatchObject({ events: 6, total: 1110 });
      expect(await readCounters(db.sql, "c_keep")).toEqual(await expectedCounters(db.store));
      // Another instance applies an event its own way and moves the checkpoint: the runtime
      // forgets what it kept and starts again from the table's row.
      const other = await openTransaction(db.url!);
      cleanups.push(() => other.rollback());
      await other.sql.query("SELECT 1 FROM projection_checkpoints WHERE name = 'c_keep' FOR UPDATE");
      const elsewhere = await count(db.store, tenant, stream, [10]);
      await sleep(200);
      await other.sql.query("UPDATE c_keep SET events = events + 1, total = total + 10 WHERE id = $1", [
        stream,
      ]);
      await other.sql.query(
        "UPDATE projection_checkpoints SET commit_position = $1, prepare_position = $2 WHERE name = 'c_keep'",
        [elsewhere.commit.toString(), elsewhere.prepare.toString()],
      );
      await other.commit();
      const after = await count(db.store, tenant, stream, [5]);
      expect(await runtime.waitFor(after, 30_000)).toBe(true);
      // The kept row (6 events, 1110) would give 7 and 1115.
      expect((await readCounters(db.sql, "c_keep")).find((r) => r.id === stream)).toMatchObject({
        events: 8,
        total: 1125,
      });
    },
    SLOW,
  );

  it(
    "a checkpoint held or moved by someone else under a batch: the batch writes nothing, the runtime continues from it",
    async () => {
      const db = await openDb(kind);
      const runtime = start(db, [
        counterProjection({ name: "c_cas" }),
        counterProjection({ name: "c_cas_other" }),
      ]);
      const stream = randomUUID();
      const counterOf = async (table: string) =>
        (await readCounters(db.sql, table)).find((r) => r.id === stream);
      const first = await count(db.store, tenant, stream, [1]);
      expect(await runtime.waitFor(first, 30_000)).toBe(true);
      // Another party (a rebuild's swap, another instance) holds c_cas's checkpoint row ...
      const other = await openTransaction(db.url!);
      cleanups.push(() => other.rollback());
      await other.sql.query("SELECT 1 FROM projection_checkpoints WHERE name = 'c_cas' FOR UPDATE");
      const second = await count(db.store, tenant, stream, [10]);
      // ... so no batch can move it (c_cas_other's batches retry too, a round later each time) ...
      await sleep(300);
      expect(await counterOf("c_cas")).toMatchObject({ events: 1, total: 1 });
      // ... and moves it past the event itself, as if it had applied it elsewhere.
      await other.sql.query(
        "UPDATE projection_checkpoints SET commit_position = $1, prepare_position = $2 WHERE name = 'c_cas'",
        [second.commit.toString(), second.prepare.toString()],
      );
      await other.commit();
      const third = await count(db.store, tenant, stream, [100]);
      expect(await runtime.waitFor(third, 30_000)).toBe(true);
      // The runtime took the moved checkpoint as it found it: the 10 was not applied here.
      expect(await counterOf("c_cas")).toMatchObject({ events: 2, total: 101 });
      expect(await readCounters(db.sql, "c_cas_other")).toEqual(await expectedCounters(db.store));
      expect((await checkpointRow(db.sql, "c_cas"))!.last_error).toBeNull();
    },
    SLOW,
  );

  it(
    "a rebuild loads the rows first and builds the plain indexes after, unique ones kept from the start",
    async () => {
      const db = await openDb(kind);
      await count(db.store, tenant, randomUUID(), [1, 2, 3]);
      const projection = counterProjection({ name: "c_indexed" });
      const split = splitPlainIndexes(
        `${projection.schema}\nCREATE UNIQUE INDEX c_indexed_u ON c_indexed (stream_name);`,
      );
      expect(split.indexes).toEqual(["CREATE INDEX c_indexed_tenant ON c_indexed (tenant_id);"]);
      expect(split.tables).toContain("CREATE UNIQUE INDEX c_indexed_u");
      await rebuildProjection(db.sql, db.store, projection);
      const indexes = await db.sql.query(
        "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'c_indexed' ORDER BY indexname",
      );
      expect(indexes.map((r) => r.indexname)).toEqual(["c_indexed_pkey", "c_indexed_tenant"]);
      expect(await readCounters(db.sql, "c_indexed")).toEqual(await expectedCounters(db.store));
    },
    SLOW,
  );

  it(
    "one transaction per batch for every projection of the process, all checkpoints moved in it",
    async () => {
      const db = await openDb(kind);
      const transactions = new Map<string, string[]>();
      const inTransaction = (name: string): Projection => {
        const base = counterProjection({ name });
        return {
          ...base,
          async applyBatch(tx, events) {
            await base.applyBatch(tx, events);
            const [row] = await tx.query("SELECT txid_current()::text AS xid");
            transactions.set(name, [...(transactions.get(name) ?? []), row.xid]);
          },
        };
      };
      const names = ["c_group_a", "c_group_b", "c_group_c"];
      const runtime = start(db, names.map(inTransaction));
      await runtime.ready();
      transactions.clear();
      const p = await count(db.store, tenant, randomUUID(), [5]);
      expect(await runtime.waitFor(p, 30_000)).toBe(true);
      const xids = names.map((n) => transactions.get(n)?.at(-1));
      expect(xids[0]).toBeDefined();
      expect(new Set(xids).size).toBe(1);
      for (const name of names) {
        expect(comparePositions((await checkpointRow(db.sql, name))!.position, p)).toBeGreaterThanOrEqual(0);
        expect(await readCounters(db.sql, name)).toEqual(await expectedCounters(db.store));
      }
    },
    SLOW,
  );

  it(
    "one projector instance at a time (advisory lock): no double counting, the other takes over",
    async () => {
      const db = await openDb(kind);
      // A second instance as another process would have it: its own pool (PostgreSQL), or the same database.
      const otherSql = db.url ? createPostgresSql(db.url, { max: 4 }) : db.sql;
      const otherStore = db.url ? createPostgresEventStore(otherSql) : db.store;
      if (db.url)
        cleanups.push(
          () => otherSql.close(),
          () => otherStore.close(),
        );
      const first = counterProjection({ name: "c_lock" });
      const second = counterProjection({ name: "c_lock" });
      const a = start(db, [first]);
      await until(async () => (await checkpointRow(db.sql, "c_lock")) !== null, 10_000, "first instance");
      const bRuntime = runProjections({
        sql: otherSql,
        store: otherStore,
        projections: [second],
        log: silentLog,
      });
      let bStopped = false;
      cleanups.push(() => (bStopped ? Promise.resolve() : bRuntime.stop()));

      const streams = [randomUUID(), randomUUID(), randomUUID()];
      for (let i = 0; i < 30; i++) await count(db.store, tenant, streams[i % 3], [i]);
      const last = await head(db.store);
      expect(await a.waitFor(last, 30_000)).toBe(true);
      // The instance without the lock applies nothing (it may still answer waitFor from the checkpoint).
      await sleep(1000);
      expect(first.control.batches.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(30);
      expect(second.control.batches).toEqual([]);
      expect(await readCounters(db.sql, "c_lock")).toEqual(await expectedCounters(db.store));

      // The lock holder stops: the other takes over and goes on from the checkpoint.
      await a.stop();
      const more = await count(db.store, tenant, streams[0], [1000, 1]);
      expect(await bRuntime.waitFor(more, 30_000)).toBe(true);
      expect(second.control.batches.reduce((x, y) => x + y, 0)).toBe(2);
      expect(await readCounters(db.sql, "c_lock")).toEqual(await expectedCounters(db.store));
      bStopped = true;
      await bRuntime.stop();
    },
    SLOW,
  );
});

describe.runIf(process.env.TEST_DATABASE_URL)("projector killed mid-batch on postgres", () => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("SIGKILL during a batch loses nothing and applies nothing twice", async () => {
    const db = await openDb("postgres");
    const tenant = randomUUID();
    const output: string[] = [];
    child = spawn(process.execPath, ["test/support/slowProjector.ts"], {
      env: { ...process.env, DATABASE_URL: db.url, PROJECTION_NAME: "kill_counter", SLOW_SECONDS: "2" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = (chunk: Buffer) => output.push(...chunk.toString().split("\n").filter(Boolean));
    child.stdout!.on("data", lines);
    child.stderr!.on("data", lines);
    const applying = () => output.filter((l) => l.startsWith("applying")).length;
    // Started: the empty first build has swapped in its checkpoint.
    await until(
      async () => (await checkpointRow(db.sql, "kill_counter")) !== null,
      20_000,
      "the child projector",
    );

    const streams = [randomUUID(), randomUUID(), randomUUID()];
    await count(db.store, tenant, streams[0], [1, 2, 3]);
    await until(
      async () => (await checkpointRow(db.sql, "kill_counter"))!.events_applied === 3,
      10_000,
      "batch 1",
    );
    const committed = await readCounters(db.sql, "kill_counter");
    const cpCommitted = await checkpointRow(db.sql, "kill_counter");
    expect(committed).toHaveLength(1);

    const seen = applying();
    await count(db.store, tenant, streams[0], [10]);
    await count(db.store, tenant, streams[1], [20, 30]);
    await until(async () => applying() > seen, 10_000, "the child inside batch 2");
    // Its rows are written, it sleeps before committing: kill it now.
    child.kill("SIGKILL");
    await new Promise((resolve) => child!.once("exit", resolve));

    expect(await readCounters(db.sql, "kill_counter")).toEqual(committed);
    expect(
      comparePositions((await checkpointRow(db.sql, "kill_counter"))!.position, cpCommitted!.position),
    ).toBe(0);

    // Another instance finishes (it waits for the dead session's lock and transaction to go).
    // (The head is not readable yet: the dead session's transaction holds the read horizon back
    // until PostgreSQL notices the client is gone, so wait for the append's own position.)
    const last = await count(db.store, tenant, streams[2], [5]);
    const runtime = start(db, [counterProjection({ name: "kill_counter" })]);
    expect(await runtime.waitFor(last, 60_000)).toBe(true);
    expect(comparePositions((await checkpointRow(db.sql, "kill_counter"))!.position, last)).toBe(0);
    const finished: CounterRow[] = await readCounters(db.sql, "kill_counter");
    expect(finished).toEqual(await expectedCounters(db.store));
    expect(finished.map((r) => r.events).sort()).toEqual([1, 2, 4]);
    await rebuildProjection(db.sql, db.store, counterProjection({ name: "kill_check" }));
    expect(await readCounters(db.sql, "kill_check")).toEqual(finished);
    expect((await checkpointRow(db.sql, "kill_counter"))!.events_applied).toBe(7);
  }, 60_000);
});
