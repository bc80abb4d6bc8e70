import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { offsetOf, sendPage } from "../platform/http/pagination.ts";
import { answers, rowShape, timestamp } from "../platform/http/responses.ts";
import { id } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { estateDiagnosticColumns } from "../projections/estateDiagnostics.ts";
import { findEstatePlace } from "./energyDiagnoses.ts";
import { createEstateDiagnosticBody, listEstateDiagnosticsQuery } from "./estateDiagnosticsSchemas.ts";

/** GET routes of the Estate Diagnostics area: the `estate_diagnostics` read model. */

const RESPONSE_COLUMNS = estateDiagnosticColumns.filter((c) => c !== "tenant_id" && c !== "revision");
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;

/** A diagnostic as the API shows it: the create body's fields (null when unset) and its life. */
export const estateDiagnosticBody = z
  .strictObject({
    id,
    estate_id: id,
    ...rowShape(createEstateDiagnosticBody.shape),
    active: z.boolean(),
    replaced_by: id.nullable(),
    deactivated_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "EstateDiagnostic" });

export function toEstateDiagnosticResponse(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of RESPONSE_COLUMNS) out[c] = row[c] ?? null;
  for (const c of ["deactivated_at", "created_at", "updated_at"]) out[c] = iso(row[c]);
  return out;
}

export async function readEstateDiagnostic(
  sql: Sql,
  tenantId: string,
  estateId: string,
  diagnosticId: string,
): Promise<{ body: Record<string, unknown>; revision: number } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT ${SELECT} FROM estate_diagnostics WHERE tenant_id = $1 AND estate_id = $2 AND id = $3`,
      [tenantId, estateId, diagnosticId],
    ),
  );
  return row ? { body: toEstateDiagnosticResponse(row), revision: Number(row.revision) } : null;
}

const tag = { tags: ["Estate Diagnostics"] };

export async function estateDiagnosticQueryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/estates/:estate_id/diagnostics",
    {
      schema: {
        summary: "List the diagnostics of an estate",
        ...tag,
        params: z.strictObject({ estate_id: id }),
        querystring: listEstateDiagnosticsQuery,
        response: answers(z.array(estateDiagnosticBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { estate_id: estateId } = request.params as { estate_id: string };
      const query = request.query as z.output<typeof listEstateDiagnosticsQuery>;
      if (!(await findEstatePlace(sql, tenantId, estateId))) throw notFound("Estate", estateId);
      const where = ["tenant_id = $1", "estate_id = $2"];
      const params: unknown[] = [tenantId, estateId];
      if (query.active !== undefined) {
        params.push(query.active === "true");
        where.push(`active = $${params.length}`);
      }
      if (query.type !== undefined) {
        params.push(query.type);
        where.push(`type = $${params.length}`);
      }
      const filter = where.join(" AND ");
      const { items, total } = await sql.asTenant(tenantId, async (tx) => {
        const n = params.length;
        const rows = await tx.query<Row>(
          `SELECT ${SELECT} FROM estate_diagnostics WHERE ${filter} ORDER BY created_at, id LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, query.limit, offsetOf(query)],
        );
        const [count] = await tx.query<{ total: number }>(
          `SELECT count(*)::int AS total FROM estate_diagnostics WHERE ${filter}`,
          params,
        );
        return { items: rows.map(toEstateDiagnosticResponse), total: count.total };
      });
      return sendPage(request, reply, { items, total, page: query.page, limit: query.limit });
    },
  );

  app.get(
    "/api/estates/:estate_id/diagnostics/:id",
    {
      schema: {
        summary: "Get a diagnostic of an estate",
        ...tag,
        params: z.strictObject({ estate_id: id, id }),
        response: answers(estateDiagnosticBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { estate_id: estateId, id: diagnosticId } = request.params as { estate_id: string; id: string };
      if (!(await findEstatePlace(sql, tenantId, estateId))) throw notFound("Estate", estateId);
      const found = await readEstateDiagnostic(sql, tenantId, estateId, diagnosticId);
      if (!found) throw notFound("Estate diagnostic", diagnosticId);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
