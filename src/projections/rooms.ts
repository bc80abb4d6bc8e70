import { type RoomEvent, roomEventTypes } from "../events/rooms.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/** The `rooms` read model: one row per live room; estates read it to refuse deleting a furnished estate. */
export const roomColumns = [
  "tenant_id",
  "id",
  "estate_id",
  "name",
  "room_type_id",
  "area",
  "floor",
  "description",
  "revision",
  "created_at",
  "updated_at",
] as const;

export const roomsProjection: Projection = rowProjection<RoomEvent>({
  name: "rooms",
  version: 1,
  table: "rooms",
  columns: roomColumns,
  schema: `
CREATE TABLE rooms (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  name text NOT NULL,
  room_type_id uuid NOT NULL,
  area numeric,
  floor integer,
  description text,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX rooms_estate ON rooms (tenant_id, estate_id, created_at, id);
${tenantPolicy("rooms")}`,
  handles: roomEventTypes,
  idOf: (event) => event.data.room_id,
  evolve: evolveRoom,
});

function evolveRoom(row: Row | null, event: RecordedEvent<RoomEvent>): Row | null {
  const stamp = { revision: Number(event.stream_revision), updated_at: event.metadata.occurred_at };
  switch (event.type) {
    case "RoomAdded": {
      const { room_id: _, ...fields } = event.data;
      return { ...fields, created_at: event.metadata.occurred_at, ...stamp };
    }
    case "RoomUpdated":
      return row && { ...row, ...event.data.changes, ...stamp };
    case "RoomRemoved":
      return null;
    default:
      return row;
  }
}
