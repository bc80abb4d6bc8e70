import type { FastifyRequest } from "fastify";
import { equipmentResource } from "../events/equipment.ts";
import { roomResource } from "../events/rooms.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { notUnderParent } from "../platform/resource/decider.ts";
import { readResource } from "../platform/resource/read.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";
import { inEstateOfPath } from "./rooms.ts";

/** 404 unless the room of the path exists; 400 when it is another estate's (as rooms answer). */
export async function inRoomOfPath(request: FastifyRequest, params: Record<string, string>) {
  await inEstateOfPath(request, params);
  const room = await readResource(
    request.server.platform.sql,
    roomResource,
    tenantOf(request),
    params.room_id,
  );
  if (!room) throw notFound("Room", params.room_id);
  if (room.parent_id !== params.estate_id)
    throw notUnderParent(roomResource, params.room_id, params.estate_id);
  return room;
}

/** GET routes of the Equipment area, under .../rooms/{room_id}/equipment. */
export const equipmentQueries = resourceQueryRoutes(equipmentResource, { within: inRoomOfPath });

/** How many items of equipment a room holds (a room holding some is not deleted). */
export async function countEquipment(sql: Sql, tenantId: string, roomId: string): Promise<number> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM room_equipment WHERE tenant_id = $1 AND room_id = $2",
      [tenantId, roomId],
    ),
  );
  return row?.n ?? 0;
}
