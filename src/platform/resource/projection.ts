import type { Sql } from "../db.ts";
import type { RecordedEvent } from "../eventstore/eventStore.ts";
import { deterministicUuid } from "../ids.ts";
import { type Row, type RowProjection, rowProjection } from "../projections/projection.ts";
import type { Resource, ResourceEvent } from "./resource.ts";

/**
 * The read model of a resource: one row per live resource (the table `resource.ddl` declares),
 * `revision` the stream revision (the ETag). Its version follows the declaration.
 */
export function resourceProjection<R extends Resource>(resource: R): RowProjection {
  const { idKey, events } = resource;
  return rowProjection<ResourceEvent<R>>({
    extraTables: [`${resource.table}_counts`],
    after: (tx, batch) => countRows(tx, resource, batch),
    name: resource.table,
    version: resource.version,
    table: resource.table,
    columns: resource.columns,
    schema: resource.ddl,
    handles: resource.eventTypes,
    idOf: (event) => String((event.data as Record<string, unknown>)[idKey]),
    evolve(row: Row | null, event: RecordedEvent<ResourceEvent<R>>): Row | null {
      const stamp = { revision: Number(event.stream_revision), updated_at: event.metadata.occurred_at };
      const { [idKey]: _, ...data } = event.data as Record<string, unknown>;
      if (event.type === resource.personalData?.erased) return row && erasedRow(resource, row, data, stamp);
      switch (event.type) {
        case events.created:
          return { ...data, created_at: event.metadata.occurred_at, ...stamp };
        case events.updated:
          return row && { ...row, ...(data.changes as Row), ...stamp };
        case events.deleted:
          return null;
        default:
          return row;
      }
    },
  });
}

/** The row once its personal data was erased: those fields null, `erased_at` set; the others stay. */
function erasedRow(resource: Resource, row: Row, data: Record<string, unknown>, stamp: Row): Row {
  const nulls = Object.fromEntries(resource.erasedFields.map((f) => [f, null]));
  return { ...row, ...nulls, erased_at: data.erased_at, ...stamp };
}

/**
 * `<table>_counts`: the resource's rows per tenant and parent, moved by its created and deleted
 * events, so an unfiltered list's X-Total-Count is one row read, not a count of every row
 * (docs/performance.md, "Lists at scale").
 */
async function countRows(tx: Sql, resource: Resource, batch: RecordedEvent[]): Promise<void> {
  const table = `${resource.table}_counts`;
  const deltas = new Map<string, { tenant_id: string; id: string; parent_id: string | null; n: number }>();
  for (const event of batch) {
    const n = event.type === resource.events.created ? 1 : event.type === resource.events.deleted ? -1 : 0;
    if (n === 0) continue;
    const tenant_id = event.metadata.tenant_id;
    const data = event.data as Record<string, unknown>;
    const parent_id = resource.parentKey ? String(data[resource.parentKey]) : null;
    const id = deterministicUuid(table, tenant_id, parent_id ?? "");
    const delta = deltas.get(id) ?? { tenant_id, id, parent_id, n: 0 };
    delta.n += n;
    deltas.set(id, delta);
  }
  const changed = [...deltas.values()].filter((d) => d.n !== 0);
  if (changed.length === 0) return;
  await tx.query(
    `INSERT INTO ${table} (tenant_id, id, parent_id, n)
     SELECT tenant_id, id, parent_id, n FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
     ON CONFLICT (id) DO UPDATE SET n = ${table}.n + excluded.n`,
    [JSON.stringify(changed)],
  );
  await tx.query(`DELETE FROM ${table} WHERE id = ANY($1::uuid[]) AND n = 0`, [changed.map((d) => d.id)]);
}
