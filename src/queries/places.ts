import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { placeResource } from "../events/places.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { uuid } from "../platform/http/schemas.ts";
import { pick, resourceExists, resourceRecorded } from "../platform/resource/read.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";

/** GET routes of the Places area (list: q, city), and the look-ups other areas' routes make on places. */
export const placeQueries = resourceQueryRoutes(placeResource);

export const placeExists = (sql: Sql, tenantId: string, id: string) =>
  resourceExists(sql, placeResource, tenantId, id);

/** 404 `Place <id> not found` unless the place exists for the tenant (nested routes start here). */
export async function requirePlace(sql: Sql, tenantId: string, id: string): Promise<void> {
  if (!(await placeExists(sql, tenantId, id))) throw notFound("Place", id);
}

export const placeParams = z.strictObject({ place_id: uuid() });

/** Fact for other areas' commands, from the stream (not a read model that may lag). */
export const placeRecorded = (request: FastifyRequest, id: string) =>
  resourceRecorded(request, placeResource, id);

export { type Found, pick };
