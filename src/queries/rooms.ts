import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { notInEstate } from "../commands/rooms/decider.ts";
import { createRoomSchema } from "../commands/rooms/schemas.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { pageQuery, readPage, sendPage } from "../platform/http/pagination.ts";
import { answers, rowShape, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { nestedEstateParams, readEstateInPlace } from "./estates.ts";
import { type Found, pick } from "./places.ts";

/** GET routes of the Rooms area, under /api/places/{place_id}/estates/{estate_id}/rooms. */

const RESPONSE_COLUMNS = [
  "id",
  "estate_id",
  "name",
  "room_type_id",
  "area",
  "floor",
  "description",
  "created_at",
  "updated_at",
] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;

/** A room as the API shows it: the create body's fields (null when unset), id, timestamps. */
export const roomBody = z.strictObject({
  id: uuid(),
  ...rowShape(createRoomSchema.shape),
  created_at: timestamp,
  updated_at: timestamp,
});

export async function readRoom(
  sql: Sql,
  tenantId: string,
  id: string,
): Promise<(Found & { estate_id: string }) | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM rooms WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row
    ? { body: pick(row, RESPONSE_COLUMNS), revision: Number(row.revision), estate_id: String(row.estate_id) }
    : null;
}

/** Unknown room 404; a room of another estate than the path 400 on estate_id. */
export async function readRoomInEstate(sql: Sql, tenantId: string, estateId: string, roomId: string) {
  const found = await readRoom(sql, tenantId, roomId);
  if (!found) throw notFound("Room", roomId);
  if (found.estate_id !== estateId) throw notInEstate(roomId, estateId);
  return found;
}

export const roomParams = nestedEstateParams.extend({ room_id: uuid() });
const listQuery = z.strictObject({ ...pageQuery, room_type_id: uuid().optional() });
const tag = { tags: ["Rooms"] };

export async function roomQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/places/:place_id/estates/:estate_id/rooms",
    {
      schema: {
        ...tag,
        summary: "List the rooms of an estate",
        params: nestedEstateParams,
        querystring: listQuery,
        response: answers(z.array(roomBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id, estate_id } = request.params;
      await readEstateInPlace(sql, tenantId, place_id, estate_id);
      const { page, limit, room_type_id } = request.query;
      const params: unknown[] = [tenantId, estate_id];
      let filter = "tenant_id = $1 AND estate_id = $2";
      if (room_type_id) {
        params.push(room_type_id);
        filter += ` AND room_type_id = $${params.length}`;
      }
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "rooms",
        select: SELECT,
        where: filter,
        params,
        page,
        limit,
      });
      const result = { items: rows.map((r) => pick(r, RESPONSE_COLUMNS)), total, page, limit };
      return sendPage(request, reply, result);
    },
  );

  api.get(
    "/api/places/:place_id/estates/:estate_id/rooms/:room_id",
    {
      schema: { ...tag, summary: "Get a room", params: roomParams, response: answers(roomBody) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id, estate_id, room_id } = request.params;
      await readEstateInPlace(sql, tenantId, place_id, estate_id);
      const found = await readRoomInEstate(sql, tenantId, estate_id, room_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
