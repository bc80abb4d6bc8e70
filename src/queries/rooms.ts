import type { FastifyRequest } from "fastify";
import { roomResource } from "../events/rooms.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";
import { readEstateInPlace } from "./estates.ts";

/** 404 unless the estate of the path is in the place of the path (every room route starts here). */
export const inEstateOfPath = (request: FastifyRequest, params: Record<string, string>) =>
  readEstateInPlace(request.server.platform.sql, tenantOf(request), params.place_id, params.estate_id);

/** GET routes of the Rooms area, under /api/places/{place_id}/estates/{estate_id}/rooms. */
export const roomQueries = resourceQueryRoutes(roomResource, { within: inEstateOfPath });
