import { type PlaceEvent, placeEventTypes } from "../events/places.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/** The `places` read model: one row per live place; `revision` is the stream revision (ETag). */
export const placeColumns = [
  "tenant_id",
  "id",
  "name",
  "description",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
  "revision",
  "created_at",
  "updated_at",
] as const;

export const placesProjection: Projection = rowProjection<PlaceEvent>({
  name: "places",
  version: 1,
  table: "places",
  columns: placeColumns,
  schema: `
CREATE TABLE places (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  name text NOT NULL,
  description text,
  address_street text,
  address_postal_code text,
  address_city text,
  address_country text,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX places_tenant_order ON places (tenant_id, created_at, id);
${tenantPolicy("places")}`,
  handles: placeEventTypes,
  idOf: (event) => event.data.place_id,
  evolve: evolvePlace,
});

function evolvePlace(row: Row | null, event: RecordedEvent<PlaceEvent>): Row | null {
  const stamp = { revision: Number(event.stream_revision), updated_at: event.metadata.occurred_at };
  switch (event.type) {
    case "PlaceCreated": {
      const { place_id: _, ...fields } = event.data;
      return { ...fields, created_at: event.metadata.occurred_at, ...stamp };
    }
    case "PlaceUpdated":
      return row && { ...row, ...event.data.changes, ...stamp };
    case "PlaceDeleted":
      return null;
    default:
      return row;
  }
}
