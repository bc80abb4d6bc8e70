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
  applyBatch(tx: Sql, events: RecordedEvent[]): Promise<void>;
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

/** The events of a batch that are of the given types, typed as their union (no casts in areas). */
export function eventsOf<E extends DomainEvent>(
  events: readonly RecordedEvent[],
  types: readonly E["type"][],
): RecordedEvent<E>[] {
  const wanted = new Set<string>(types);
  return events.filter((e): e is RecordedEvent<E> => wanted.has(e.type));
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
  /** Other tables to write in the same transaction (e.g. derived tables), after the rows. */
  after?: (tx: Sql, events: RecordedEvent[]) => Promise<void>;
  extraTables?: string[];
}): Projection {
  const { table, columns } = options;
  const updates = columns
    .filter((c) => c !== "tenant_id" && c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ");
  // Prepared statements (docs/performance.md): the version in the text makes a new version's
  // tables a new statement, so a cached plan never meets columns of another type after a swap.
  const stamp = `/* ${options.name} v${options.version} */`;
  /** Upserts the rows; in a rebuild, those whose id no row has yet go in by COPY (bulkLoad.ts). */
  const write = async (tx: Sql, upserts: Row[], existing: Row[]) => {
    const load = bulkLoadOf(tx);
    const json = load && tx.copyFrom ? await load.columnKinds(tx, table, columns) : null;
    let rest = upserts;
    if (json) {
      const found = new Set(existing.map((r) => String(r.id).toLowerCase()));
      rest = upserts.filter((r) => found.has(String(r.id).toLowerCase()));
      const fresh = upserts.filter((r) => !found.has(String(r.id).toLowerCase()));
      if (fresh.length > 0) {
        await tx.copyFrom!(
          `COPY ${table} (${columns.join(", ")}) FROM STDIN`,
          copyChunks(fresh, columns, json, rest),
        );
      }
    }
    if (rest.length === 0) return;
    await tx.query(
      `INSERT INTO ${table} (${columns.join(", ")})
       SELECT ${columns.join(", ")} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET ${updates} ${stamp}`,
      [JSON.stringify(rest)],
      { prepare: true },
    );
  };
  return {
    name: options.name,
    version: options.version,
    tables: [table, ...(options.extraTables ?? [])],
    schema: options.schema,
    handles: options.handles,
    async applyBatch(tx, events) {
      const mine = eventsOf<E>(events, options.handles);
      if (mine.length > 0) {
        const keys = new Map<string, { tenant_id: string; id: string }>();
        for (const e of mine) {
          const id = options.idOf(e);
          if (id) keys.set(`${e.metadata.tenant_id}/${id}`, { tenant_id: e.metadata.tenant_id, id });
        }
        // In a rebuild, ids it has never written are not read: no row can have them yet.
        const load = bulkLoadOf(tx);
        const written = load?.written(table);
        const ids = [...keys.values()].map((k) => k.id).filter((id) => !written || written.mayHave(id));
        const existing =
          ids.length === 0
            ? []
            : await tx.query<Row>(
                `SELECT ${columns.join(", ")} FROM ${table} WHERE id = ANY($1::uuid[]) ${stamp}`,
                [ids],
                { prepare: true },
              );
        const rows = new Map<string, Row | null>();
        for (const r of existing) rows.set(`${r.tenant_id}/${r.id}`, r);
        for (const e of mine) {
          const id = options.idOf(e);
          if (!id) continue;
          const key = `${e.metadata.tenant_id}/${id}`;
          const next = options.evolve(rows.get(key) ?? null, e);
          rows.set(key, next ? { ...next, tenant_id: e.metadata.tenant_id, id } : null);
        }
        const upserts = [...rows.values()].filter((r): r is Row => r !== null);
        const deletes = [...rows.entries()].filter(([, r]) => r === null).map(([k]) => k.split("/"));
        await write(tx, upserts, existing);
        for (const r of upserts) written?.add(String(r.id));
        if (deletes.length > 0) {
          await tx.query(
            `DELETE FROM ${table} WHERE id = ANY($1::uuid[]) ${stamp}`,
            [deletes.map(([, id]) => id)],
            { prepare: true },
          );
        }
      }
      if (options.after) await options.after(tx, events);
    },
  };
}
