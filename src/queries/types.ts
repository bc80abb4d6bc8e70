import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type TypeKind, typeKinds } from "../events/types.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import { answers, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";

/**
 * GET routes of the Types area: the global catalog (static table `types_catalog`) and the
 * tenant's own types (`tenant_types`), global first. Also the look-ups estates and rooms make.
 */

const UNION = `
  SELECT id, kind, code, name, 'global' AS scope, created_at, 0 AS scope_order
  FROM types_catalog WHERE tenant_id IS NULL AND kind = $2
  UNION ALL
  SELECT id, kind, code, name, 'tenant' AS scope, created_at, 1 AS scope_order
  FROM tenant_types WHERE tenant_id = $1 AND kind = $2`;

/** A type, global (the catalog) or the tenant's; catalog rows are data, not request bodies. */
export const typeBody = z.strictObject({
  id: z.guid(),
  kind: z.enum(typeKinds),
  code: z.string(),
  name: z.string(),
  scope: z.enum(["global", "tenant"]),
  created_at: timestamp,
});

const toType = (r: Row) => ({
  id: r.id,
  kind: r.kind,
  code: r.code,
  name: r.name,
  scope: r.scope,
  created_at: iso(r.created_at),
});

/** True when the id is a global type of the kind or one of the tenant's. */
export async function typeExists(sql: Sql, tenantId: string, kind: TypeKind, id: string): Promise<boolean> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(`SELECT 1 FROM (${UNION}) t WHERE id = $3`, [tenantId, kind, id]),
  );
  return rows.length > 0;
}

export async function globalCodeExists(sql: Sql, kind: TypeKind, code: string): Promise<boolean> {
  const rows = await sql.query(
    "SELECT 1 FROM types_catalog WHERE tenant_id IS NULL AND kind = $1 AND code = $2",
    [kind, code],
  );
  return rows.length > 0;
}

/**
 * A type's row as a scalar SQL expression (jsonb with code and name, or null) over SQL
 * expressions for the tenant, the kind and the id, for a statement that reads more with it.
 */
export const typeSql = (tenant: string, kind: string, id: string) =>
  `(SELECT jsonb_build_object('id', t.id, 'code', t.code, 'name', t.name) FROM (${UNION.replaceAll("$1", tenant).replaceAll("$2", kind)}) t WHERE t.id = ${id})`;

export async function readType(sql: Sql, tenantId: string, kind: TypeKind, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM (${UNION}) t WHERE id = $3`, [tenantId, kind, id], { prepare: true }),
  );
  return row ? toType(row) : null;
}

/** Path segment of each kind: /api/types/estates|rooms|equipment. */
export const typeSegments: Record<TypeKind, string> = {
  estate: "estates",
  room: "rooms",
  equipment: "equipment",
};
const typeLabels: Record<TypeKind, string> = {
  estate: "Estate type",
  room: "Room type",
  equipment: "Equipment type",
};

const listQuery = z.strictObject({
  ...pageQuery,
  scope: z
    .enum(["global", "tenant"])
    .optional()
    .describe("Only the global catalog or only the tenant's types"),
});
const typeParams = z.strictObject({ type_id: uuid() });

export async function typeQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  for (const [kind, segment] of Object.entries(typeSegments) as [TypeKind, string][]) {
    const tag = { tags: ["Types"] };
    api.get(
      `/api/types/${segment}`,
      {
        schema: {
          ...tag,
          summary: `List ${kind} types (global catalog, then the tenant's)`,
          querystring: listQuery,
          response: answers(z.array(typeBody)),
        },
        config: { access: "PropertiesRead" },
      },
      async (request, reply) => {
        const tenantId = tenantOf(request);
        const { scope, page, limit } = request.query;
        const params: unknown[] = [tenantId, kind];
        const filter = scope ? `WHERE scope = $3` : "";
        if (scope) params.push(scope);
        const result = await sql.asTenant(tenantId, async (tx) => {
          const [{ total }] = await tx.query(
            `SELECT count(*)::int AS total FROM (${UNION}) t ${filter}`,
            params,
          );
          const rows = await tx.query<Row>(
            `SELECT * FROM (${UNION}) t ${filter} ORDER BY scope_order, name, id
             LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
            [...params, limit, offsetOf({ page, limit })],
          );
          return { items: rows.map(toType), total, page, limit };
        });
        return sendPage(request, reply, result);
      },
    );

    api.get(
      `/api/types/${segment}/:type_id`,
      {
        schema: { ...tag, summary: `Get a ${kind} type`, params: typeParams, response: answers(typeBody) },
        config: { access: "PropertiesRead" },
      },
      async (request) => {
        const found = await readType(sql, tenantOf(request), kind, request.params.type_id);
        if (!found) throw notFound(typeLabels[kind], request.params.type_id);
        return found;
      },
    );
  }
}
