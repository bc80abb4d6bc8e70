import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { roomStream } from "../../events/rooms.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { nestedEstateParams, readEstateInPlace } from "../../queries/estates.ts";
import { readRoom, roomBody, roomParams } from "../../queries/rooms.ts";
import { typeExists } from "../../queries/types.ts";
import { roomDecider } from "./decider.ts";
import { createRoomSchema, updateRoomSchema } from "./schemas.ts";

const tag = { tags: ["Rooms"] };
const invalidBodyMessage = "Invalid room data";
const base = (placeId: string, estateId: string) => `/api/places/${placeId}/estates/${estateId}/rooms`;

/** POST, PUT and DELETE of rooms; every route first finds the estate in the place of the path. */
export async function roomRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/places/:place_id/estates/:estate_id/rooms",
    {
      schema: {
        ...tag,
        summary: "Add a room to an estate",
        params: nestedEstateParams,
        body: createRoomSchema,
        response: createdAnswers(roomBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id, estate_id } = request.params;
      await readEstateInPlace(sql, tenantId, place_id, estate_id);
      const id = newResourceId(request);
      const result = await handleCommand(request, roomStream(id), roomDecider, {
        type: "AddRoom",
        room_id: id,
        estate_id,
        input: request.body,
        room_type_exists: await typeExists(sql, tenantId, "room", request.body.room_type_id),
      });
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: `${base(place_id, estate_id)}/${id}`,
        read: () => readRoom(sql, tenantId, id),
      });
    },
  );

  api.put(
    "/api/places/:place_id/estates/:estate_id/rooms/:room_id",
    {
      schema: {
        ...tag,
        summary: "Update a room: omitted fields keep their value, null removes it",
        params: roomParams,
        body: updateRoomSchema,
        response: updatedAnswers(roomBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id, estate_id, room_id } = request.params;
      await readEstateInPlace(sql, tenantId, place_id, estate_id);
      const typeId = request.body.room_type_id;
      const result = await handleCommand(
        request,
        roomStream(room_id),
        roomDecider,
        {
          type: "UpdateRoom",
          room_id,
          estate_id,
          input: request.body,
          room_type_exists: typeId ? await typeExists(sql, tenantId, "room", typeId) : undefined,
        },
        { notFound: () => notFound("Room", room_id) },
      );
      return replyWithResource(request, reply, 200, {
        id: room_id,
        position: result.position,
        read: () => readRoom(sql, tenantId, room_id),
      });
    },
  );

  api.delete(
    "/api/places/:place_id/estates/:estate_id/rooms/:room_id",
    {
      schema: { ...tag, summary: "Delete a room", params: roomParams, response: deletedAnswers },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id, estate_id, room_id } = request.params;
      await readEstateInPlace(sql, tenantId, place_id, estate_id);
      const result = await handleCommand(
        request,
        roomStream(room_id),
        roomDecider,
        { type: "RemoveRoom", room_id, estate_id },
        { notFound: () => notFound("Room", room_id) },
      );
      return replyWithResource(request, reply, 204, { id: room_id, position: result.position });
    },
  );
}
