import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { placeDecider } from "../commands/places/decider.ts";
import { createPlaceSchema } from "../commands/places/schemas.ts";
import { placeStream } from "../events/places.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { stateOf } from "../platform/http/handleCommand.ts";
import { pageQuery, readPage, sendPage } from "../platform/http/pagination.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers, rowShape, timestamp } from "../platform/http/responses.ts";
import { text, uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";

/** GET routes of the Places area, and the look-ups other areas' routes make on places. */

const RESPONSE_COLUMNS = [
  "id",
  "name",
  "description",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
  "created_at",
  "updated_at",
] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;

/** Picks `columns` of a row, timestamps ISO; nothing internal (tenant, revision) leaks. */
export function pick(
  row: Row,
  columns: readonly string[],
  timestamps: readonly string[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[c] ?? null;
  for (const c of ["created_at", "updated_at", ...timestamps]) if (c in out) out[c] = iso(row[c]);
  return out;
}

/** A place as the API shows it: the create body's fields (null when unset), id, timestamps. */
export const placeBody = z.strictObject({
  id: uuid(),
  ...rowShape(createPlaceSchema.shape),
  created_at: timestamp,
  updated_at: timestamp,
});

export async function readPlace(sql: Sql, tenantId: string, id: string): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM places WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: pick(row, RESPONSE_COLUMNS), revision: Number(row.revision) } : null;
}

export async function placeExists(sql: Sql, tenantId: string, id: string): Promise<boolean> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query("SELECT 1 FROM places WHERE tenant_id = $1 AND id = $2", [tenantId, id]),
  );
  return rows.length > 0;
}

/** 404 `Place <id> not found` unless the place exists for the tenant (nested routes start here). */
export async function requirePlace(sql: Sql, tenantId: string, id: string): Promise<void> {
  if (!(await placeExists(sql, tenantId, id))) throw notFound("Place", id);
}

export const placeParams = z.strictObject({ place_id: uuid() });

const listQuery = z.strictObject({
  ...pageQuery,
  q: text(255).optional().describe("Contained in the name or the city"),
  city: text(255).optional().describe("Exact city, case-insensitive"),
});

const tag = { tags: ["Places"] };

export async function placeQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/places",
    {
      schema: {
        ...tag,
        summary: "List places",
        querystring: listQuery,
        response: answers(z.array(placeBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const query = request.query;
      const where = ["tenant_id = $1"];
      const params: unknown[] = [tenantId];
      if (query.q) {
        params.push(query.q.toLowerCase());
        where.push(
          `(strpos(lower(name), $${params.length}) > 0 OR strpos(lower(coalesce(address_city, '')), $${params.length}) > 0)`,
        );
      }
      if (query.city) {
        params.push(query.city.toLowerCase());
        where.push(`lower(address_city) = $${params.length}`);
      }
      const filter = where.join(" AND ");
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "places",
        select: SELECT,
        where: filter,
        params,
        page: query.page,
        limit: query.limit,
      });
      const page = {
        items: rows.map((r) => pick(r, RESPONSE_COLUMNS)),
        total,
        page: query.page,
        limit: query.limit,
      };
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/places/:place_id",
    {
      schema: { ...tag, summary: "Get a place", params: placeParams, response: answers(placeBody) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const found = await readPlace(sql, tenantOf(request), request.params.place_id);
      if (!found) throw notFound("Place", request.params.place_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}

export type { Found };

/** Fact for other areas' commands, from the stream (not a read model that may lag). */
export const placeRecorded = async (request: FastifyRequest, id: string) =>
  (await stateOf(request, placeStream(id), placeDecider)).status === "active";
