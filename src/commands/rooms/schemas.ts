import { z } from "zod";
import { notNull, text, uuid } from "../../platform/http/schemas.ts";

const area = z.number().finite().gt(0, "Must be greater than 0").max(100_000);
const floor = z.number().int("Must be an integer").min(-20).max(300);

export const createRoomSchema = z.strictObject({
  name: text(255),
  room_type_id: uuid(),
  area: area.nullish(),
  floor: floor.nullish(),
  description: text(2000).nullish(),
  /** Accepted when equal to the path (a GET can be PUT back); a room never changes estate. */
  estate_id: uuid().optional(),
});

export const updateRoomSchema = z.strictObject({
  name: notNull(text(255), "name").optional(),
  room_type_id: notNull(uuid(), "room_type_id").optional(),
  area: area.nullish(),
  floor: floor.nullish(),
  description: text(2000).nullish(),
  estate_id: uuid().optional(),
});

export type CreateRoomInput = z.output<typeof createRoomSchema>;
export type UpdateRoomInput = z.output<typeof updateRoomSchema>;
