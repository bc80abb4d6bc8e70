import type { FastifyRequest } from "fastify";
import { equipmentResource } from "../../events/equipment.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { inRoomOfPath } from "../../queries/equipment.ts";
import { typeExists } from "../../queries/types.ts";
import { equipmentDecider } from "./decider.ts";

const equipmentTypeExists = (request: FastifyRequest, id: string) =>
  typeExists(request.server.platform.sql, tenantOf(request), "equipment", id);

/** POST, PUT and DELETE of a room's equipment; every route first finds the room of the path. */
export const equipmentRoutes = resourceCommandRoutes(equipmentResource, equipmentDecider, {
  within: inRoomOfPath,
  facts: {
    create: async (request, { input }) => ({
      equipment_type_exists: await equipmentTypeExists(request, input.equipment_type_id),
    }),
    update: async (request, { input }) => ({
      equipment_type_exists: input.equipment_type_id
        ? await equipmentTypeExists(request, input.equipment_type_id)
        : undefined,
    }),
  },
});
