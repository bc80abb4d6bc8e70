import type { RecordedEvent } from "../eventstore/eventStore.ts";
import { type Row, type RowProjection, rowProjection } from "../projections/projection.ts";
import type { Resource, ResourceEvent } from "./resource.ts";

/**
 * The read model of a resource: one row per live resource (the table `resource.ddl` declares),
 * `revision` the stream revision (the ETag). Its version follows the declaration.
 */
export function resourceProjection<R extends Resource>(resource: R): RowProjection {
  const { idKey, events } = resource;
  return rowProjection<ResourceEvent<R>>({
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
