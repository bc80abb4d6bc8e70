import { type InventoryEvent, inventoryEventTypes } from "../events/inventories.ts";
import { type Projection, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/** `lease_inventories`: the furniture inventory of each lease, as last recorded. */
export const inventoriesProjection: Projection = rowProjection<InventoryEvent>({
  name: "lease_inventories",
  version: 1,
  table: "lease_inventories",
  columns: ["tenant_id", "id", "recorded_on", "items", "revision", "created_at", "updated_at"],
  schema: `
CREATE TABLE lease_inventories (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  recorded_on date NOT NULL,
  items jsonb NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
${tenantPolicy("lease_inventories")}`,
  handles: inventoryEventTypes,
  idOf: (event) => event.data.lease_id,
  evolve: (row, event) => {
    const at = event.metadata.occurred_at;
    return {
      recorded_on: event.data.recorded_on,
      items: event.data.items,
      revision: Number(event.stream_revision),
      created_at: row?.created_at ?? at,
      updated_at: at,
    };
  },
});
