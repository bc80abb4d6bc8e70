import { randomBytes } from "node:crypto";
import type { Sql } from "../db.ts";
import { type EventStore, type Position, type RecordedEvent, START } from "../eventstore/eventStore.ts";
import { bulkLoad, markBulkLoad } from "./bulkLoad.ts";
import type { Projection } from "./projection.ts";
import {
  type Aside,
  applyCarefully,
  inSavepoint,
  isTransient,
  needsCare,
  newAside,
  settleAside,
} from "./quarantine.ts";

// Larger than the live batch: a rebuild is throughput-bound, and memory stays bounded (two
// batches in flight, a few MB each).
const BATCH = 5000;

/** How long the swap waits for committed events an open transaction keeps unreadable. */
const TAIL_WAIT_MS = 2000;

/** Plain (non-unique) indexes, built after the bulk load rather than maintained row by row. */
const PLAIN_INDEX = /^[ \t]*CREATE[ \t]+INDEX\b[^;]*;/gim;

export function splitPlainIndexes(schema: string): { tables: string; indexes: string[] } {
  return { tables: schema.replace(PLAIN_INDEX, ""), indexes: schema.match(PLAIN_INDEX) ?? [] };
}

/**
 * Rebuilds a projection into fresh tables in a private schema while the live tables keep
 * serving, then swaps them in one transaction holding the checkpoint row, so the live
 * projector (any process) pauses only for the last few events. Memory stays flat: the log
 * is streamed in batches, the next one read while the current one is applied, and plain
 * indexes are built once after the load (docs/performance.md).
 */
export async function rebuildProjection(
  sql: Sql,
  store: EventStore,
  projection: Projection,
  log: (msg: string) => void = () => {},
): Promise<{ events: number; position: Position }> {
  const shadow = `pms_rebuild_${projection.name.toLowerCase().replace(/[^a-z0-9_]/g, "_")}_${randomBytes(4).toString("hex")}`;
  const inShadow = `SET LOCAL search_path TO ${shadow}, public`;
  const { tables, indexes } = splitPlainIndexes(projection.schema);
  await sql.exec(`CREATE SCHEMA ${shadow}`);
  try {
    // The rebuild's own quarantine (quarantine.ts), swapped in with its tables: the live one
    // keeps serving the version the live projector runs.
    await sql.transaction(async (tx) => {
      await tx.exec(
        `${inShadow}; ${tables}; CREATE TABLE ${shadow}.projection_quarantine (LIKE public.projection_quarantine INCLUDING ALL)`,
      );
    });
    // Rows go into the fresh tables by COPY where no row has their id yet (bulkLoad.ts).
    const load = bulkLoad();
    let position = START;
    let count = 0;
    const held = new Set<string>();
    const applyBatch = async (tx: Sql, events: RecordedEvent[]) => {
      await tx.exec(`${inShadow}; SET LOCAL synchronous_commit = off`);
      const aside = await applyOrSetAside(markBulkLoad(tx, load), store, projection, held, events);
      position = events[events.length - 1].position;
      count += events.length;
      return aside;
    };
    // Catch up outside any lock, until a short batch says we are near the head. Waiting for an
    // empty read instead would chase a steady stream of appends forever (one event per read).
    let logged = 0;
    const read = await catchUpReader(sql, store);
    let next = read({ after: position, max_count: BATCH });
    for (;;) {
      const events = await next;
      const full = events.length === BATCH;
      // Read ahead: the next batch comes over another connection while this one is applied.
      if (full) {
        next = read({ after: events[events.length - 1].position, max_count: BATCH });
        // Handled here so a failing apply does not leave it an unhandled rejection; awaited above.
        next.catch(() => {});
      }
      if (events.length > 0) settleAside(held, await sql.transaction((tx) => applyBatch(tx, events)));
      if (!full) break;
      if (count - logged >= 100_000) {
        logged = count;
        log(`rebuild ${projection.name}: ${count} events`);
      }
    }
    // Each plain index on a connection of its own, side by side: PostgreSQL builds one index
    // on one core, and node has nothing left to do (docs/performance.md). All settle before a
    // failure is thrown, so the schema is not dropped under a build still running.
    const built = await Promise.allSettled(
      indexes.map((index) =>
        sql.transaction(async (tx) => {
          await tx.exec(`${inShadow}; SET LOCAL maintenance_work_mem = '128MB'; ${index}`);
        }),
      ),
    );
    for (const b of built) if (b.status === "rejected") throw b.reason;
    // Swap: hold the checkpoint row so the live projector waits, finish the tail, move tables.
    const tailDeadline = Date.now() + TAIL_WAIT_MS;
    await sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO projection_checkpoints (name, version) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
        [projection.name, -1],
      );
      await tx.query("SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE", [projection.name]);
      for (;;) {
        const events = await readAllIn(tx, store, position);
        if (events.length > 0) {
          await applyBatch(tx, events);
          continue;
        }
        // Committed events that an older open transaction (any database of the server) keeps
        // unreadable: wait for them briefly, so the swap includes what committed before it.
        if (Date.now() > tailDeadline || !(await committedAfter(tx, store, position))) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      await tx.exec("SET LOCAL search_path TO public");
      await tx.query("DELETE FROM public.projection_quarantine WHERE projection = $1", [projection.name]);
      await tx.exec(`INSERT INTO public.projection_quarantine SELECT * FROM ${shadow}.projection_quarantine`);
      for (const table of projection.tables) {
        await tx.exec(
          `DROP TABLE IF EXISTS public.${table} CASCADE; ALTER TABLE ${shadow}.${table} SET SCHEMA public`,
        );
      }
      await tx.query(
        `UPDATE projection_checkpoints
         SET version = $2, commit_position = $3, prepare_position = $4, events_applied = $5,
             status = 'running', last_error = NULL, updated_at = now()
         WHERE name = $1`,
        [projection.name, projection.version, position.commit.toString(), position.prepare.toString(), count],
      );
    });
    log(`rebuild ${projection.name}: swapped in after ${count} events`);
    return { events: count, position };
  } finally {
    await sql.exec(`DROP SCHEMA IF EXISTS ${shadow} CASCADE`).catch(() => {});
  }
}

/**
 * A rebuild's batch: the projection's events in one go, in a savepoint; when that fails for the
 * events (not the database), or the batch holds an operator's retry or skip or a held stream's
 * events, event by event, setting aside those that fail (quarantine.ts).
 */
async function applyOrSetAside(
  tx: Sql,
  store: EventStore,
  projection: Projection,
  held: Set<string>,
  events: RecordedEvent[],
): Promise<Aside> {
  const handled = new Set(projection.handles);
  const aside = newAside();
  const careful = () => applyCarefully({ tx, store, projection, handled, held, aside }, events);
  if (needsCare(projection, held, events)) await careful();
  else {
    const mine = events.filter((e) => handled.has(e.type));
    if (mine.length === 0) return aside;
    try {
      await inSavepoint(tx, () => projection.applyBatch(tx, mine));
    } catch (error) {
      if (isTransient(error)) throw error;
      await careful();
    }
  }
  return aside;
}

/**
 * The catch-up read: on PostgreSQL (log in the same database, as for the tail below) the lean
 * read of readAll.ts, fewer objects per event for a CPU-bound rebuild (docs/performance.md).
 */
async function catchUpReader(sql: Sql, store: EventStore): Promise<EventStore["readAll"]> {
  if (store.engine === "eventstoredb") return (options) => store.readAll(options);
  const { readAllLean } = await import("../eventstore/postgres/readAll.ts");
  const decode = store.decodeRead?.bind(store) ?? (async (events: RecordedEvent[]) => events);
  return async (options) => decode(await readAllLean(sql, options));
}

/** The tail is read inside the swap transaction when the log lives in the same database. */
async function readAllIn(tx: Sql, store: EventStore, after: Position): Promise<RecordedEvent[]> {
  if (store.engine === "eventstoredb") return store.readAll({ after, max_count: BATCH });
  const { readAll } = await import("../eventstore/postgres/readAll.ts");
  // Past other databases' open transactions (readAll.ts): the swap then includes all this
  // database's committed events, as the live projector, which reads past them too, would.
  const events = await readAll(tx, { after, max_count: BATCH, past_other_databases: true });
  return store.decodeRead ? store.decodeRead(events) : events;
}

async function committedAfter(tx: Sql, store: EventStore, after: Position): Promise<boolean> {
  if (store.engine === "eventstoredb") return false;
  const { eventsPast } = await import("../eventstore/postgres/readAll.ts");
  return eventsPast(tx, after);
}
