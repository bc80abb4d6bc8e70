import { type OwnerEvent, ownerEventTypes, ownerFieldNames } from "../events/owners.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/** The `owners` read model: one row per live owner; `revision` is the stream revision (ETag). */
export const ownerColumns = [
  "tenant_id",
  "id",
  ...ownerFieldNames,
  "revision",
  "created_at",
  "updated_at",
] as const;

export const ownersProjection: Projection = rowProjection<OwnerEvent>({
  name: "owners",
  version: 1,
  table: "owners",
  columns: ownerColumns,
  schema: `
CREATE TABLE owners (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  category text NOT NULL,
  first_name text,
  last_name text,
  legal_name text,
  email text NOT NULL,
  phone text,
  address_street text,
  address_postal_code text,
  address_city text,
  address_country text,
  iban text,
  bic text,
  custom_fields jsonb,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX owners_tenant_order ON owners (tenant_id, created_at, id);
${tenantPolicy("owners")}`,
  handles: ownerEventTypes,
  idOf: (event) => event.data.owner_id,
  evolve: evolveOwner,
});

function evolveOwner(row: Row | null, event: RecordedEvent<OwnerEvent>): Row | null {
  const stamp = { revision: Number(event.stream_revision), updated_at: event.metadata.occurred_at };
  switch (event.type) {
    case "OwnerRegistered": {
      const { owner_id: _, ...fields } = event.data;
      return { ...fields, created_at: event.metadata.occurred_at, ...stamp };
    }
    case "OwnerUpdated":
      return row && { ...row, ...event.data.changes, ...stamp };
    case "OwnerDeleted":
      return null;
    default:
      return row;
  }
}
