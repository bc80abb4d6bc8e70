import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  estateEnergyDiagnosesQuery,
  id,
  type ListEnergyDiagnosesQuery,
  listEnergyDiagnosesQuery,
  placeEnergyDiagnosesQuery,
} from "../commands/energyDiagnoses/schemas.ts";
import type { Sql } from "../platform/db.ts";
import { fieldError, notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { offsetOf, sendPage } from "../platform/http/pagination.ts";
import type { Row } from "../platform/projections/projection.ts";
import { ENERGY_DIAGNOSIS_FIELDS } from "../projections/energyDiagnoses.ts";

/** GET routes of the Energy Diagnosis area: the `energy_diagnoses` read model only. */

const RESPONSE_COLUMNS = ["id", ...ENERGY_DIAGNOSIS_FIELDS, "created_at", "updated_at"] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;
/** The list order: stable, and the tail of every list index. */
const ORDER = "ORDER BY created_at, id";

const iso = (v: unknown) =>
  v instanceof Date ? v.toISOString() : v == null ? null : new Date(String(v)).toISOString();

export function toEnergyDiagnosisResponse(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of RESPONSE_COLUMNS) out[c] = row[c] ?? null;
  out.created_at = iso(row.created_at);
  out.updated_at = iso(row.updated_at);
  return out;
}

export async function readEnergyDiagnosis(
  sql: Sql,
  tenantId: string,
  diagnosisId: string,
): Promise<{ body: Record<string, unknown>; revision: number } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM energy_diagnoses WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      diagnosisId,
    ]),
  );
  return row ? { body: toEnergyDiagnosisResponse(row), revision: Number(row.revision) } : null;
}

/** One page and the total of the rows matching `where` (params start with the tenant as $1). */
async function page(
  sql: Sql,
  tenantId: string,
  where: string,
  params: unknown[],
  paging: { page: number; limit: number },
): Promise<{ items: Record<string, unknown>[]; total: number }> {
  return sql.asTenant(tenantId, async (tx) => {
    const n = params.length;
    const rows = await tx.query<Row>(
      `SELECT ${SELECT} FROM energy_diagnoses WHERE ${where} ${ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, paging.limit, offsetOf(paging)],
    );
    // The count walks the same index as the page.
    const [count] = await tx.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM energy_diagnoses WHERE ${where}`,
      params,
    );
    return { items: rows.map(toEnergyDiagnosisResponse), total: count.total };
  });
}

export function listEnergyDiagnoses(sql: Sql, tenantId: string, query: ListEnergyDiagnosesQuery) {
  const where = ["tenant_id = $1"];
  const params: unknown[] = [tenantId];
  for (const column of ["place_id", "estate_id", "energy_label", "ges_label"] as const) {
    const value = query[column];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  return page(sql, tenantId, where.join(" AND "), params, query);
}

/** The place of the caller's tenant, or null (the places read model). */
async function findPlace(sql: Sql, tenantId: string, placeId: string): Promise<boolean> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query("SELECT 1 FROM places WHERE tenant_id = $1 AND id = $2", [tenantId, placeId]),
  );
  return rows.length > 0;
}

/** The place holding an estate of the caller's tenant, or null when the estate is unknown. */
export async function findEstatePlace(sql: Sql, tenantId: string, estateId: string): Promise<string | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ place_id: string }>("SELECT place_id FROM estates WHERE tenant_id = $1 AND id = $2", [
      tenantId,
      estateId,
    ]),
  );
  return row?.place_id ?? null;
}

const tag = { tags: ["Energy Diagnosis"] };

export async function energyDiagnosisQueryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/energy-diagnoses",
    { schema: { ...tag, querystring: listEnergyDiagnosesQuery } },
    async (request, reply) => {
      const query = request.query as ListEnergyDiagnosesQuery;
      const result = await listEnergyDiagnoses(sql, tenantOf(request), query);
      return sendPage(request, reply, { ...result, page: query.page, limit: query.limit });
    },
  );

  app.get(
    "/api/energy-diagnoses/:id",
    { schema: { ...tag, params: z.strictObject({ id }) } },
    async (request, reply) => {
      const { id: diagnosisId } = request.params as { id: string };
      const found = await readEnergyDiagnosis(sql, tenantOf(request), diagnosisId);
      if (!found) throw notFound("Energy diagnosis", diagnosisId);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  app.get(
    "/api/places/:place_id/energy-diagnoses",
    { schema: { ...tag, params: z.strictObject({ place_id: id }), querystring: placeEnergyDiagnosesQuery } },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId } = request.params as { place_id: string };
      const query = request.query as z.output<typeof placeEnergyDiagnosesQuery>;
      if (!(await findPlace(sql, tenantId, placeId))) throw notFound("Place", placeId);
      // Building-level diagnoses; with include_estates also those of the estates now in the place.
      const where =
        query.include_estates === "true"
          ? `tenant_id = $1 AND (place_id = $2 OR estate_id IN
               (SELECT e.id FROM estates e WHERE e.tenant_id = $1 AND e.place_id = $2))`
          : "tenant_id = $1 AND place_id = $2";
      const result = await page(sql, tenantId, where, [tenantId, placeId], query);
      return sendPage(request, reply, { ...result, page: query.page, limit: query.limit });
    },
  );

  app.get(
    "/api/places/:place_id/estates/:estate_id/energy-diagnoses",
    {
      schema: {
        ...tag,
        params: z.strictObject({ place_id: id, estate_id: id }),
        querystring: estateEnergyDiagnosesQuery,
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId, estate_id: estateId } = request.params as {
        place_id: string;
        estate_id: string;
      };
      const query = request.query as z.output<typeof estateEnergyDiagnosesQuery>;
      if (!(await findPlace(sql, tenantId, placeId))) throw notFound("Place", placeId);
      const estatePlace = await findEstatePlace(sql, tenantId, estateId);
      if (!estatePlace) throw notFound("Estate", estateId);
      if (estatePlace !== placeId) {
        throw fieldError(
          "place_id",
          `Estate ${estateId} does not belong to place ${placeId}`,
          `Estate ${estateId} does not belong to place ${placeId}`,
        );
      }
      const result = await page(
        sql,
        tenantId,
        "tenant_id = $1 AND estate_id = $2",
        [tenantId, estateId],
        query,
      );
      return sendPage(request, reply, { ...result, page: query.page, limit: query.limit });
    },
  );
}
