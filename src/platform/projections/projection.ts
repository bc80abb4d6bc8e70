import type { Sql } from "../db.ts";
import type { DomainEvent } from "../decider.ts";
import type { RecordedEvent } from "../eventstore/eventStore.ts";
import { bulkLoadOf, copyChunks } from "./bulkLoad.ts";

/**
 * A projector: builds read-model tables from the event log. A batch of events and the
 * checkpoint commit in one transaction, so every event takes effect exactly once.
 */
export interface Projection {
  name: string;
  /** Bump when the tables or the logic change: the runtime rebuilds into fresh tables and swaps. */
  version: number;
  /** Tables the projection owns (unqualified). */
  tables: string[];
  /** DDL creating those tables, unqualified, run with the target schema first in search_path. */
  schema: string;
  /** Event types this projection reads; others are skipped but still advance the checkpoint. */
  handles: readonly string[];
  applyBatch(tx: Sql, events: RecordedEvent[], memory?: BatchMemory): Promise<void>;
}

/**
 * What a projection may keep between the live batches of one runner (a row projection's rows,
 * `keepRows`): `kept` as the tables hold them after the last committed batch, `staged` what this
 * batch writes. The runtime moves `staged` into `kept` once the batch commits, and empties `kept`
 * whenever a batch fails or the projection is reloaded (docs/performance.md).
 */
export interface BatchMemory {
  kept: Map<string, Row | null>;
  staged: Map<string, Row | null>;
}

/** RLS for a read-model table: `pms_reader` sees only the rows of the tenant it is bound to. */
export function tenantPolicy(table: string): string {
  return `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON ${table} TO pms_reader;
CREATE POLICY ${table}_tenant ON ${table} TO pms_reader
  USING (tenant_id = nullif(current_setting('pms.tenant_id', true), '')::uuid);`;
}

export type Row = Record<string, unknown>;

/** A row touched by a batch: its keys and the first and last of its events there. */
interface Key {
  tenant_id: string;
  id: string;
  created: boolean;
  first: number;
  last: number;
}

/** The events of a batch that are of the given types, typed as their union (no casts in areas). */
export function eventsOf<E extends DomainEvent>(
  events: readonly RecordedEvent[],
  types: readonly E["type"][],
): RecordedEvent<E>[] {
  const wanted = new Set<string>(types);
  return events.filter((e): e is RecordedEvent<E> => wanted.has(e.type));
}

/**
 * A comment naming a projection's version, put in the text of its prepared statements
 * (docs/performance.md, "Prepared statements"): a new version's tables are then new statements,
 * so a cached plan never meets columns of another type after a swap.
 */
export const statementStamp = (name: string, version: number) => `/* ${name} v${version} */`;

/**
 * The row as `evolve` made it, carrying its keys. One that already carries them is kept as it is:
 * a copy per event was a good part of a rebuild's garbage (docs/performance.md, "Rebuild / catch-up").
 */
const keyed = (row: Row | null, tenant_id: string, id: string): Row | null =>
  row && (row.tenant_id !== tenant_id || row.id !== id) ? { ...row, tenant_id, id } : row;

/** A row projection also folds one row in memory, as its batches do (a command's answer). */
export interface RowProjection extends Projection {
  /** The row after `events` (one row's events, in log order), keys included: what the table holds. */
  fold(events: readonly RecordedEvent[]): Row | null;
}

/**
 * The common shape: one row per aggregate, keyed by (tenant_id, id). Per batch it loads the
 * touched rows in one query, folds the events in memory, and writes them back in one upsert
 * and one delete, so catch-up costs a few statements per batch rather than per event.
 */
export function rowProjection<E extends DomainEvent>(options: {
  name: string;
  version: number;
  table: string;
  /** Every column of the table, tenant_id and id included. */
  columns: readonly string[];
  schema: string;
  /** The area's event types this projection reads: `idOf` and `evolve` get them typed. */
  handles: readonly E["type"][];
  /** The row's id for an event this projection handles (tenant comes from metadata). */
  idOf: (event: RecordedEvent<E>) => string | null;
  /** null deletes the row. */
  evolve: (row: Row | null, event: RecordedEvent<E>) => Row | null;
  /**
   * Event types whose `evolve` ignores the row it is given (they start the row, e.g. a
   * registration): a live batch does not read the rows of ids whose first event it holds is one
   * of them (docs/performance.md).
   */
  creates?: readonly E["type"][];
  /**
   * Keep the rows a live batch writes for the next batches of the runner (BatchMemory): a batch
   * reads only rows it does not hold. Only for a table no one else writes (not `estates`, whose
   * rental state the lease feed sets), and an evolve that never changes the row it is given.
   */
  keepRows?: boolean;
  /** Other tables to write in the same transaction (e.g. derived tables), after the rows. */
  after?: (tx: Sql, events: RecordedEvent[]) => Promise<void>;
  extraTables?: string[];
}): RowProjection {
  const { table, columns } = options;
  const updates = columns
    .filter((c) => c !== "tenant_id" && c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ");
  const stamp = statementStamp(options.name, options.version);
  const creates = new Set<string>(options.creates ?? []);
  const upsert = async (tx: Sql, rows: Row[]) => {
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO ${table} (${columns.join(", ")})
       SELECT ${columns.join(", ")} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET ${updates} ${stamp}`,
      [JSON.stringify(rows)],
      { prepare: true, deferred: true },
    );
  };
  return {
    fold(events) {
      let row: Row | null = null;
      for (const e of eventsOf<E>(events, options.handles)) {
        const id = options.idOf(e);
        if (id) row = keyed(options.evolve(row, e), e.metadata.tenant_id, id);
      }
      return row;
    },
    name: options.name,
    version: options.version,
    tables: [table, ...(options.extraTables ?? [])],
    schema: options.schema,
    handles: options.handles,
    async applyBatch(tx, events, memory) {
      const mine = eventsOf<E>(events, options.handles);
      if (mine.length > 0) {
        const load = bulkLoadOf(tx);
        // Rows held from earlier batches (live only, when asked): not read again.
        const held = options.keepRows && !load ? memory : undefined;
        const heldRow = (k: string) => (held?.staged.has(k) ? held.staged.get(k) : held?.kept.get(k));
        const isHeld = (k: string) => held !== undefined && (held.staged.has(k) || held.kept.has(k));
        // Each row's key, its first event, and per event the next one of the same row (-1: none).
        const keys = new Map<string, Key>();
        const later = new Int32Array(mine.length).fill(-1);
        for (let i = 0; i < mine.length; i++) {
          const e = mine[i];
          const id = options.idOf(e);
          if (!id) continue;
          const k = `${e.metadata.tenant_id}/${id}`;
          const key = keys.get(k);
          if (key) {
            later[key.last] = i;
            key.last = i;
          } else {
            keys.set(k, {
              tenant_id: e.metadata.tenant_id,
              id,
              created: creates.has(e.type),
              first: i,
              last: i,
            });
          }
        }
        // In a rebuild, ids it has never written are not read: no row can have them yet. Live, ids
        // the batch starts afresh are not read: their evolve ignores the row. (Not in a rebuild,
        // whose COPY needs to know every row that exists.)
        const written = load?.written(table);
        const ids = [...keys.entries()]
          .filter(([k, key]) => !isHeld(k) && (load || !key.created))
          .map(([, key]) => key.id)
          .filter((id) => !written || written.mayHave(id));
        const existing =
          ids.length === 0
            ? []
            : await tx.query<Row>(
                `SELECT ${columns.join(", ")} FROM ${table} WHERE id = ANY($1::uuid[]) ${stamp}`,
                [ids],
                { prepare: true },
              );
        const rows = new Map<string, Row | null>();
        for (const k of keys.keys()) if (isHeld(k)) rows.set(k, heldRow(k) ?? null);
        for (const r of existing) rows.set(`${r.tenant_id}/${r.id}`, r);
        /** The row of `key` after its events of the batch, from `row`. */
        const fold = (key: Key, row: Row | null) => {
          for (let i = key.first; i !== -1; i = later[i]) {
            row = keyed(options.evolve(row, mine[i]), key.tenant_id, key.id);
          }
          return row;
        };
        // In a rebuild, ids no row has yet go in by COPY (bulkLoad.ts), folded while the COPY
        // streams: PostgreSQL parses a chunk while node folds the next (docs/performance.md).
        const json = load && tx.copyFrom ? await load.columnKinds(tx, table, columns) : null;
        const found =
          json && existing.length > 0 ? new Set(existing.map((r) => String(r.id).toLowerCase())) : null;
        const fresh: Key[] = [];
        for (const [k, key] of keys) {
          if (json && !found?.has(key.id.toLowerCase())) fresh.push(key);
          else rows.set(k, fold(key, rows.get(k) ?? null));
        }
        const upserts: Row[] = [];
        const deletes: string[] = [];
        for (const [k, r] of rows) {
          if (r) upserts.push(r);
          else deletes.push(k.slice(k.indexOf("/") + 1));
        }
        for (const r of upserts) written?.add(String(r.id));
        if (held) for (const [k, r] of rows) held.staged.set(k, r);
        if (json && fresh.length > 0) {
          function* folded() {
            for (const key of fresh) {
              const row = fold(key, null);
              if (!row) deletes.push(key.id);
              else {
                written?.add(key.id);
                yield row;
              }
            }
          }
          // Rows COPY text cannot carry go to the upsert, with the rows that exist.
          await tx.copyFrom!(
            `COPY ${table} (${columns.join(", ")}) FROM STDIN`,
            copyChunks(folded(), columns, json, upserts),
          );
        }
        await upsert(tx, upserts);
        if (deletes.length > 0) {
          await tx.query(`DELETE FROM ${table} WHERE id = ANY($1::uuid[]) ${stamp}`, [deletes], {
            prepare: true,
            deferred: true,
          });
        }
      }
      if (options.after) await options.after(tx, events);
    },
  };
}
