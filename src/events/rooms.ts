import { z } from "zod";
import { text, uuid } from "../platform/http/schemas.ts";
import { defineResource, equals, type ResourceEvent } from "../platform/resource/resource.ts";

/** Rooms of an estate. Stream `room-<uuid>`; a room never changes estate. */
export const roomResource = defineResource({
  name: "room",
  stream: (id) => `room-${id}`,
  label: "Room",
  table: "rooms",
  path: "/api/places/:place_id/estates/:estate_id/rooms",
  tag: "Rooms",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  parent: "estate",
  fields: {
    name: text(255),
    room_type_id: uuid(),
    area: z.number().finite().gt(0, "Must be greater than 0").max(100_000).nullish(),
    floor: z.number().int("Must be an integer").min(-20).max(300).nullish(),
    description: text(2000).nullish(),
  },
  events: { created: "RoomAdded", updated: "RoomUpdated", deleted: "RoomRemoved" },
  commands: { create: "AddRoom", update: "UpdateRoom", delete: "RemoveRoom" },
  filters: { room_type_id: equals("room_type_id", uuid()) },
  summaries: { list: "List the rooms of an estate", create: "Add a room to an estate" },
  invalidBodyMessage: "Invalid room data",
});

export type RoomEvent = ResourceEvent<typeof roomResource>;
