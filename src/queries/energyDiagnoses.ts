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

/**
 * One page and the total of the rows matching `where` (params start with the tenant as $1).
 * `countFrom` answers the total from another query (the per-label counts); by default the
 * count walks the same index as the page.
 */
async function page(
  sql: Sql,
  tenantId: string,
  where: string,
  params: unknown[],
  paging: { page: number; limit: number },
  countFrom?: { text: string; params: unknown[] },
): Promise<{ items: Record<string, unknown>[]; total: number }> {
  return sql.asTenant(tenantId, async (tx) => {
    const n = params.length;
    // Deferred join: the offset is skipped inside the index (an index-only scan of the filter's
    // index), and only the page's rows are read from the table.
    const rows = await tx.query<Row>(
      `SELECT ${SELECT.split(", ")
        .map((c) => `d.${c}`)
        .join(", ")}
       FROM (SELECT id, created_at FROM energy_diagnoses WHERE ${where} ${ORDER} LIMIT $${n + 1} OFFSET $${n + 2}) p
       JOIN energy_diagnoses d ON d.id = p.id
       ORDER BY p.created_at, p.id`,
      [...params, paging.limit, offsetOf(paging)],
    );
    const [count] = await tx.query<{ total: number }>(
      countFrom?.text ?? `SELECT count(*)::int AS total FROM energy_diagnoses WHERE ${where}`,
      countFrom?.params ?? params,
    );
    return { items: rows.map(toEnergyDiagnosisResponse), total: Number(count.total) };
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
  // Without a place or estate filter the total is a sum over at most 49 label-pair counters.
  const byLabelsOnly = query.place_id === undefined && query.estate_id === undefined;
  const countFrom = byLabelsOnly
    ? {
        text: `SELECT coalesce(sum(n), 0)::bigint AS total FROM energy_diagnosis_counts WHERE ${where.join(" AND ")}`,
        params,
      }
    : undefined;
  return page(sql, tenantId, where.join(" AND "), params, query, countFrom);
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

/**
 * For the estate queries: a LEFT JOIN LATERAL adding `current_dpe_id`, `current_dpe_energy_label`,
 * `current_dpe_ges_label`, `current_dpe_diagnosis_date`, `current_dpe_valid_until` and
 * `current_dpe_source` ('estate' | 'place') to rows of an estates table aliased `alias` (columns
 * tenant_id, id, place_id). Unlike the `estate_current_dpe` table, which is exact as of the last
 * event touching the estate, this evaluates "valid" (valid_until on or after today in Paris) when
 * the query runs, so an expiry with no event since is seen too. Two index probes per estate.
 */
export function currentDpeJoin(alias = "e"): string {
  const newest = "ORDER BY d.diagnosis_date DESC, d.recorded_at DESC, d.id DESC LIMIT 1";
  const today = "(now() AT TIME ZONE 'Europe/Paris')::date";
  const cols = "d.id, d.energy_label, d.ges_label, d.diagnosis_date, d.valid_until";
  return `LEFT JOIN LATERAL (
    SELECT c.id AS current_dpe_id, c.energy_label AS current_dpe_energy_label,
      c.ges_label AS current_dpe_ges_label, c.diagnosis_date AS current_dpe_diagnosis_date,
      c.valid_until AS current_dpe_valid_until, c.source AS current_dpe_source
    FROM (
      (SELECT ${cols}, 'estate' AS source, 0 AS rank FROM estate_dpe_diagnoses d
       WHERE d.estate_id = ${alias}.id AND d.tenant_id = ${alias}.tenant_id AND d.valid_until >= ${today} ${newest})
      UNION ALL
      (SELECT ${cols}, 'place' AS source, 1 AS rank FROM estate_dpe_diagnoses d
       WHERE d.place_id = ${alias}.place_id AND d.tenant_id = ${alias}.tenant_id AND d.valid_until >= ${today} ${newest})
    ) c ORDER BY c.rank LIMIT 1
  ) current_dpe ON true`;
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
