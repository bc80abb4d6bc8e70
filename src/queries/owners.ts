import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { createOwnerSchema } from "../commands/owners/schemas.ts";
import { ownerCategories, ownerFieldNames } from "../events/owners.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { contactFilter, pageQuery, readPage, sendPage } from "../platform/http/pagination.ts";
import { answers, rowShape, timestamp } from "../platform/http/responses.ts";
import { text, uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { type Found, pick } from "./places.ts";

/** GET routes of the Owners area, and the owner look-ups estates make. */

const RESPONSE_COLUMNS = ["id", ...ownerFieldNames, "created_at", "updated_at"] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;

/** An owner as the API shows it: the create body's fields (null when unset), id, timestamps. */
export const ownerBody = z.strictObject({
  id: uuid(),
  ...rowShape(createOwnerSchema.shape),
  created_at: timestamp,
  updated_at: timestamp,
});

export async function readOwner(sql: Sql, tenantId: string, id: string): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM owners WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: pick(row, RESPONSE_COLUMNS), revision: Number(row.revision) } : null;
}

export async function ownerExists(sql: Sql, tenantId: string, id: string): Promise<boolean> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query("SELECT 1 FROM owners WHERE tenant_id = $1 AND id = $2", [tenantId, id]),
  );
  return rows.length > 0;
}

const ownerParams = z.strictObject({ owner_id: uuid() });
const listQuery = z.strictObject({
  ...pageQuery,
  q: text(255).optional().describe("Contained in the names, legal name or email"),
  category: z.enum(ownerCategories).optional(),
  email: text(254).optional().describe("Exact email, case-insensitive"),
});

const tag = { tags: ["Owners"] };

export async function ownerQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/owners",
    {
      schema: {
        ...tag,
        summary: "List owners",
        querystring: listQuery,
        response: answers(z.array(ownerBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const query = request.query;
      const { where: filter, params } = contactFilter(tenantId, query);
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "owners",
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
    "/api/owners/:owner_id",
    {
      schema: { ...tag, summary: "Get an owner", params: ownerParams, response: answers(ownerBody) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const found = await readOwner(sql, tenantOf(request), request.params.owner_id);
      if (!found) throw notFound("Owner", request.params.owner_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
