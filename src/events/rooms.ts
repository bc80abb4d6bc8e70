/** Rooms of an estate. Stream `room-<uuid>`; a room never changes estate. */

export const roomStream = (id: string) => `room-${id}`;

export interface RoomFields {
  name: string;
  room_type_id: string;
  area: number | null;
  floor: number | null;
  description: string | null;
}

export type RoomEvent =
  | { type: "RoomAdded"; data: { room_id: string; estate_id: string } & RoomFields }
  /** Only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | { type: "RoomUpdated"; data: { room_id: string; estate_id: string; changes: Partial<RoomFields> } }
  | { type: "RoomRemoved"; data: { room_id: string; estate_id: string } };

export const roomEventTypes = ["RoomAdded", "RoomUpdated", "RoomRemoved"] as const;
