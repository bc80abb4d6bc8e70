import { roomResource } from "../../events/rooms.ts";
import { conflict } from "../../platform/errors.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/**
 * The route has found the estate of the path in the place of the path, looked up the room type,
 * and on delete counted the room's equipment (docs/moving.md).
 */
export type RoomFacts = {
  create: { room_type_exists: boolean };
  update: { room_type_exists?: boolean };
  delete: { equipment_count?: number };
};

export const roomDecider = resourceDecider<typeof roomResource, RoomFacts>(roomResource, {
  check: (room, command, changes) =>
    (changes === null || changes.room_type_id !== undefined) && !command.room_type_exists
      ? [{ field: "room_type_id", message: `Room type ${room.room_type_id} does not exist` }]
      : [],
  deletable: (command) => {
    const n = command.equipment_count ?? 0;
    if (n > 0) throw conflict(`Room ${command.room_id} holds ${n} item(s) of equipment: remove them first`);
  },
});
