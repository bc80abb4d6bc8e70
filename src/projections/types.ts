import { type TypeEvent, typeEventTypes } from "../events/types.ts";
import { type Projection, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `tenant_types`: the types a tenant added. The global catalog is the static table
 * `types_catalog` of migration 010; queries list both.
 */
export const tenantTypesProjection: Projection = rowProjection<TypeEvent>({
  name: "tenant_types",
  version: 1,
  table: "tenant_types",
  columns: ["tenant_id", "id", "kind", "code", "name", "created_at"],
  schema: `
CREATE TABLE tenant_types (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  code text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX tenant_types_code ON tenant_types (tenant_id, kind, code);
${tenantPolicy("tenant_types")}`,
  handles: typeEventTypes,
  idOf: (event) => event.data.type_id,
  evolve: (row, event) => {
    if (event.type !== "TenantTypeCreated") return row;
    const { type_id: _, ...fields } = event.data;
    return { ...fields, created_at: event.metadata.occurred_at };
  },
});
