import { describe, expect, it } from "vitest";
import { roomDecider } from "../../src/commands/rooms/decider.ts";
import type { RoomEvent } from "../../src/events/rooms.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { deciderSpec, refusal } from "../support/deciderSpec.ts";

const roomId = "0b6f9a8e-5555-4c3b-9d4e-000000000001";
const estateId = "0b6f9a8e-5555-4c3b-9d4e-00000000000e";
const otherEstate = "0b6f9a8e-5555-4c3b-9d4e-00000000000f";
const kitchen = globalTypeIds.room.kitchen;

const { given } = deciderSpec(roomDecider);
const added: RoomEvent = {
  type: "RoomAdded",
  data: {
    room_id: roomId,
    estate_id: estateId,
    name: "Cuisine",
    room_type_id: kitchen,
    area: 9.5,
    floor: null,
    description: null,
  },
};

describe("room decider", () => {
  it("adds a room with an existing room type", () => {
    expect(
      given([]).when({
        type: "AddRoom",
        room_id: roomId,
        estate_id: estateId,
        input: { name: "Cuisine", room_type_id: kitchen, area: 9.5 },
        room_type_exists: true,
      })(),
    ).toEqual([added]);
  });

  it("refuses an unknown room type (400 on room_type_id)", () => {
    const error = refusal(
      given([]).when({
        type: "AddRoom",
        room_id: roomId,
        estate_id: estateId,
        input: { name: "Cuisine", room_type_id: kitchen },
        room_type_exists: false,
      }),
    );
    expect(error.status).toBe(400);
    expect(error.details?.[0].field).toBe("room_type_id");
  });

  it("updates changed fields; a room never changes estate", () => {
    expect(
      given([added]).when({
        type: "UpdateRoom",
        room_id: roomId,
        estate_id: estateId,
        input: { area: null, name: "Cuisine", estate_id: estateId },
      })(),
    ).toEqual([
      { type: "RoomUpdated", data: { room_id: roomId, estate_id: estateId, changes: { area: null } } },
    ]);
    const move = refusal(
      given([added]).when({
        type: "UpdateRoom",
        room_id: roomId,
        estate_id: estateId,
        input: { estate_id: otherEstate },
      }),
    );
    expect(move.details?.[0].field).toBe("estate_id");
  });

  it("answers 400 for a room of another estate and 404 for an unknown or removed room", () => {
    const other = refusal(
      given([added]).when({ type: "RemoveRoom", room_id: roomId, estate_id: otherEstate }),
    );
    expect(other.status).toBe(400);
    expect(other.message).toBe(`Room ${roomId} does not belong to estate ${otherEstate}`);
    const removed: RoomEvent = { type: "RoomRemoved", data: { room_id: roomId, estate_id: estateId } };
    expect(
      refusal(given([added, removed]).when({ type: "RemoveRoom", room_id: roomId, estate_id: estateId }))
        .status,
    ).toBe(404);
    expect(
      refusal(given([]).when({ type: "UpdateRoom", room_id: roomId, estate_id: estateId, input: {} })).status,
    ).toBe(404);
  });
});
