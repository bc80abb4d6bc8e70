import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ENERGY_DIAGNOSIS_FIELDS } from "../events/energyDiagnoses.ts";
import type { Sql } from "../platform/db.ts";
import { fieldError, notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import {
  itemColumns,
  type JsonPage,
  type ListSource,
  offsetPageSql,
  pageSql,
  runCachedJsonPage,
  runJsonPage,
  type Statement,
} from "../platform/http/jsonPage.ts";
import { sendJsonCursorPage, sendJsonPage } from "../platform/http/pagination.ts";
import { answers, rowShape, timestamp } from "../platform/http/responses.ts";
import { id } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import {
  createEnergyDiagnosisBody,
  estateEnergyDiagnosesQuery,
  type ListEnergyDiagnosesQuery,
  listEnergyDiagnosesQuery,
  placeEnergyDiagnosesQuery,
} from "./energyDiagnosesSchemas.ts";

/** GET routes of the Energy Diagnosis area: the `energy_diagnoses` read model only. */

const RESPONSE_COLUMNS = ["id", ...ENERGY_DIAGNOSIS_FIELDS, "created_at", "updated_at"] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;

/** A DPE as the API shows it: the create body's fields (null when unset), id, timestamps. */
export const energyDiagnosisBody = z
  .strictObject({
    id,
    ...rowShape(createEnergyDiagnosisBody.shape),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: "EnergyDiagnosis",
    description: "An energy diagnosis (DPE) of a place (building) or an estate (unit)",
  });
const energyDiagnosisList = answers(z.array(energyDiagnosisBody));

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

/** The list's table and items (docs/performance.md, "Lists at scale"). */
const SOURCE: ListSource = {
  table: "energy_diagnoses",
  item: itemColumns(RESPONSE_COLUMNS, {
    numeric: ["energy_consumption", "final_energy_consumption", "ges_emission", "heated_area"],
  }),
};

/** The number of rows matching `where` (walks the filter's index). */
const countSql = (where: string) => `SELECT count(*)::int AS total FROM energy_diagnoses WHERE ${where}`;

/**
 * The two statements of GET /api/energy-diagnoses: `page` (the page and the total, jsonPage.ts)
 * and `count` (the total alone, which `page` runs inside). Exported for the bench, which
 * EXPLAINs exactly what the route runs.
 */
export function listEnergyDiagnosesSql(
  tenantId: string,
  query: ListEnergyDiagnosesQuery,
): { count: Statement; page: Statement } {
  const where = ["tenant_id = $1"];
  const params: unknown[] = [tenantId];
  for (const column of ["place_id", "estate_id", "energy_label", "ges_label"] as const) {
    const value = query[column];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  const filter = where.join(" AND ");
  // Without a place or estate filter the total is a sum over at most 49 label-pair counters.
  const count =
    query.place_id === undefined && query.estate_id === undefined
      ? `SELECT coalesce(sum(n), 0)::int AS total FROM energy_diagnosis_counts WHERE ${filter}`
      : countSql(filter);
  return { count: { text: count, params }, page: pageSql(SOURCE, filter, params, count, query) };
}

/** One page of the rows matching `where` (params start with the tenant as $1) and their total. */
function page(
  sql: Sql,
  tenantId: string,
  where: string,
  params: unknown[],
  paging: { page: number; limit: number },
): Promise<JsonPage> {
  return runJsonPage(sql, tenantId, offsetPageSql(SOURCE, where, params, countSql(where), paging));
}

export function listEnergyDiagnoses(sql: Sql, tenantId: string, query: ListEnergyDiagnosesQuery) {
  return runJsonPage(sql, tenantId, listEnergyDiagnosesSql(tenantId, query).page);
}

/** listEnergyDiagnoses through the read cache: its tables are the `energy_diagnoses` projection's. */
const listEnergyDiagnosesCached = (app: FastifyInstance, tenantId: string, query: ListEnergyDiagnosesQuery) =>
  runCachedJsonPage(app, tenantId, "energy_diagnoses", listEnergyDiagnosesSql(tenantId, query).page);

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
 * event touching the estate, this evaluates "valid" (the legal validity, the earlier of the
 * certificate's valid_until and the end of pre-2021 certificates, docs/dpe.md, on or after today
 * in Paris) when the query runs, so an expiry with no event since is seen too. Two index probes
 * per estate. `current_dpe_valid_until` is that legal validity.
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

/** A DPE as the lease rules need it: its labels and its dates (valid_until is the legal one). */
export interface DpeFact {
  id: string;
  energy_label: string;
  ges_label: string;
  diagnosis_date: string;
  certificate_valid_until: string;
  valid_until: string;
  /** kWh/m²/year of final energy; null: not recorded. */
  final_energy_consumption: number | null;
  source: "estate" | "place";
}

/**
 * The DPE that covered an estate on `date` (YYYY-MM-DD), for the lease rules ("DPE present and
 * valid at the lease start", the F/G rent freeze): the estate's own newest diagnosis made on or
 * before that day and legally valid on it, else its place's; null when none.
 */
export async function readDpeOn(
  sql: Sql,
  tenantId: string,
  estateId: string,
  date: string,
): Promise<DpeFact | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ dpe: DpeFact | null }>(
      `SELECT ${dpeOnSql("$1", "$2", "$3::date")} AS dpe`,
      [tenantId, estateId, date],
      {
        prepare: true,
      },
    ),
  );
  return row?.dpe ?? null;
}

/**
 * readDpeOn's look-up as a scalar SQL expression (the DpeFact as jsonb, or null) over SQL
 * expressions for the tenant, the estate and the date, for a statement that reads more with it
 * (a lease contract's facts, src/queries/leaseContractFacts.ts). Dates come out as YYYY-MM-DD.
 */
export function dpeOnSql(tenant: string, estate: string, date: string): string {
  const cols =
    "d.id, d.energy_label, d.ges_label, d.diagnosis_date, d.certificate_valid_until, d.valid_until, d.final_energy_consumption";
  const newest = "ORDER BY d.diagnosis_date DESC, d.recorded_at DESC, d.id DESC LIMIT 1";
  return `(SELECT to_jsonb(c) - 'rank' FROM estate_dpe_estates de CROSS JOIN LATERAL (
         (SELECT ${cols}, 'estate' AS source, 0 AS rank FROM estate_dpe_diagnoses d
          WHERE d.estate_id = de.id AND d.tenant_id = de.tenant_id
            AND d.diagnosis_date <= ${date} AND d.valid_until >= ${date} ${newest})
         UNION ALL
         (SELECT ${cols}, 'place' AS source, 1 AS rank FROM estate_dpe_diagnoses d
          WHERE d.place_id = de.place_id AND d.tenant_id = de.tenant_id
            AND d.diagnosis_date <= ${date} AND d.valid_until >= ${date} ${newest})
       ) c WHERE de.tenant_id = ${tenant} AND de.id = ${estate} ORDER BY c.rank LIMIT 1)`;
}

const tag = { tags: ["Energy Diagnosis"] };

export async function energyDiagnosisQueryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/energy-diagnoses",
    {
      schema: {
        summary: "List energy diagnoses",
        ...tag,
        querystring: listEnergyDiagnosesQuery,
        response: energyDiagnosisList,
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const query = request.query as ListEnergyDiagnosesQuery;
      const { json, total, next } = await listEnergyDiagnosesCached(app, tenantOf(request), query);
      if (query.after !== undefined)
        return sendJsonCursorPage(request, reply, { json, total, next, limit: query.limit });
      return sendJsonPage(request, reply, { json, total, page: query.page, limit: query.limit });
    },
  );

  app.get(
    "/api/energy-diagnoses/:id",
    {
      schema: {
        summary: "Get an energy diagnosis",
        ...tag,
        params: z.strictObject({ id }),
        response: answers(energyDiagnosisBody),
      },
      config: { access: "PropertiesRead" },
    },
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
    {
      schema: {
        summary: "List a place's building-level energy diagnoses (and its estates' with include_estates)",
        ...tag,
        params: z.strictObject({ place_id: id }),
        querystring: placeEnergyDiagnosesQuery,
        response: energyDiagnosisList,
      },
      config: { access: "PropertiesRead" },
    },
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
      return sendJsonPage(request, reply, { ...result, page: query.page, limit: query.limit });
    },
  );

  app.get(
    "/api/places/:place_id/estates/:estate_id/energy-diagnoses",
    {
      schema: {
        summary: "List an estate's energy diagnoses",
        ...tag,
        params: z.strictObject({ place_id: id, estate_id: id }),
        querystring: estateEnergyDiagnosesQuery,
        response: energyDiagnosisList,
      },
      config: { access: "PropertiesRead" },
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
      return sendJsonPage(request, reply, { ...result, page: query.page, limit: query.limit });
    },
  );
}
