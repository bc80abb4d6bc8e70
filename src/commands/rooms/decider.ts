import { roomResource } from "../../events/rooms.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** The route has found the estate of the path in the place of the path, and looked up the room type. */
export type RoomFacts = { create: { room_type_exists: boolean }; update: { room_type_exists?: boolean } };

export const roomDecider = resourceDecider<typeof roomResource, RoomFacts>(roomResource, {
  check: (room, command, changes) =>
    (changes === null || changes.room_type_id !== undefined) && !command.room_type_exists
      ? [{ field: "room_type_id", message: `Room type ${room.room_type_id} does not exist` }]
      : [],
});
