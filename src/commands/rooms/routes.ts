import type { FastifyRequest } from "fastify";
import { roomResource } from "../../events/rooms.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { countEquipment } from "../../queries/equipment.ts";
import { inEstateOfPath } from "../../queries/rooms.ts";
import { typeExists } from "../../queries/types.ts";
import { roomDecider } from "./decider.ts";

const roomTypeExists = (request: FastifyRequest, id: string) =>
  typeExists(request.server.platform.sql, tenantOf(request), "room", id);

/** POST, PUT and DELETE of rooms; every route first finds the estate in the place of the path; a room holding equipment is not deleted (409). */
export const roomRoutes = resourceCommandRoutes(roomResource, roomDecider, {
  within: inEstateOfPath,
  facts: {
    create: async (request, { input }) => ({
      room_type_exists: await roomTypeExists(request, input.room_type_id),
    }),
    update: async (request, { input }) => ({
      room_type_exists: input.room_type_id ? await roomTypeExists(request, input.room_type_id) : undefined,
    }),
    delete: async (request, { tenantId, id }) => ({
      equipment_count: await countEquipment(request.server.platform.sql, tenantId, id),
    }),
  },
});
