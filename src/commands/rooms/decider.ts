import type { RoomEvent, RoomFields } from "../../events/rooms.ts";
import { changedFields, type Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, fieldError, notFound, validationError } from "../../platform/errors.ts";
import type { CreateRoomInput, UpdateRoomInput } from "./schemas.ts";

export type RoomState =
  | { status: "absent" }
  | { status: "active"; estate_id: string; room: RoomFields }
  | { status: "deleted"; estate_id: string; room: RoomFields };

/** The route has already found the estate of the path in the place of the path. */
export type RoomCommand =
  | { type: "AddRoom"; room_id: string; estate_id: string; input: CreateRoomInput; room_type_exists: boolean }
  | {
      type: "UpdateRoom";
      room_id: string;
      estate_id: string;
      input: UpdateRoomInput;
      /** Looked up when room_type_id is sent. */
      room_type_exists?: boolean;
    }
  | { type: "RemoveRoom"; room_id: string; estate_id: string };

export const roomFieldNames = [
  "name",
  "room_type_id",
  "area",
  "floor",
  "description",
] as const satisfies readonly (keyof RoomFields)[];

export const notInEstate = (roomId: string, estateId: string) =>
  fieldError(
    "estate_id",
    `Room ${roomId} does not belong to estate ${estateId}`,
    `Room ${roomId} does not belong to estate ${estateId}`,
  );

function activeRoom(state: RoomState, roomId: string, estateId: string) {
  if (state.status !== "active") throw notFound("Room", roomId);
  if (state.estate_id !== estateId) throw notInEstate(roomId, estateId);
  return state;
}

function checkFacts(details: ErrorDetail[]): void {
  if (details.length > 0) throw validationError("Invalid room data", details);
}

export const roomDecider: Decider<RoomState, RoomCommand, RoomEvent> = {
  initialState: () => ({ status: "absent" }),

  evolve(state, event) {
    switch (event.type) {
      case "RoomAdded": {
        const { room_id: _, estate_id, ...room } = event.data;
        return { status: "active", estate_id, room };
      }
      case "RoomUpdated":
        return state.status === "active"
          ? { ...state, room: { ...state.room, ...event.data.changes } }
          : state;
      case "RoomRemoved":
        return state.status === "active" ? { ...state, status: "deleted" } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "AddRoom": {
        if (state.status !== "absent") throw conflict(`Room ${command.room_id} already exists`);
        const i = command.input;
        const details: ErrorDetail[] = [];
        if (i.estate_id !== undefined && i.estate_id !== command.estate_id) {
          details.push({
            field: "estate_id",
            message: `Must be the estate of the path (${command.estate_id})`,
          });
        }
        if (!command.room_type_exists) {
          details.push({ field: "room_type_id", message: `Room type ${i.room_type_id} does not exist` });
        }
        checkFacts(details);
        return [
          {
            type: "RoomAdded",
            data: {
              room_id: command.room_id,
              estate_id: command.estate_id,
              name: i.name,
              room_type_id: i.room_type_id,
              area: i.area ?? null,
              floor: i.floor ?? null,
              description: i.description ?? null,
            },
          },
        ];
      }
      case "UpdateRoom": {
        const room = activeRoom(state, command.room_id, command.estate_id);
        const i = command.input;
        const details: ErrorDetail[] = [];
        if (i.estate_id !== undefined && i.estate_id !== command.estate_id) {
          details.push({ field: "estate_id", message: "A room cannot move to another estate" });
        }
        const changes = changedFields(room.room, i, roomFieldNames);
        if (changes.room_type_id !== undefined && !command.room_type_exists) {
          details.push({
            field: "room_type_id",
            message: `Room type ${changes.room_type_id} does not exist`,
          });
        }
        checkFacts(details);
        return [
          { type: "RoomUpdated", data: { room_id: command.room_id, estate_id: command.estate_id, changes } },
        ];
      }
      case "RemoveRoom":
        activeRoom(state, command.room_id, command.estate_id);
        return [{ type: "RoomRemoved", data: { room_id: command.room_id, estate_id: command.estate_id } }];
    }
  },
};
