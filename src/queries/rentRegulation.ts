import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ConstructionPeriod, ReferenceRent } from "../events/rentRegulation.ts";
import type { Sql } from "../platform/db.ts";
import { fieldError, notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { groupReads } from "../platform/groupReads.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { pageQuery, sendPage } from "../platform/http/pagination.ts";
import { answers, timestamp } from "../platform/http/responses.ts";
import { isUuid } from "../platform/ids.ts";
import { findEstatePlace } from "./energyDiagnoses.ts";
import { listIrl, readIrl } from "./irl.ts";
import { requirePlace } from "./places.ts";
import { irlParams, referenceRent } from "./rentRegulationSchemas.ts";

// The IRL's values and the revision of a rent live in irl.ts; imported from here by other areas.
export {
  type IrlPoint,
  type IrlValue,
  irlPublishedOn,
  irlRentRevision,
  latestIrlOn,
  listIrl,
  type RentRevision,
  readAllIrl,
  readIrl,
  rentRevision,
} from "./irl.ts";

/** Rent regulation data (docs/rent-regulation.md): reference rents and the routes; the IRL and the revision cap in irl.ts. */

// ---------------------------------------------------------------- reference rents

export interface RentRegulation {
  high_demand_zone: boolean | null;
  reference_rents: ReferenceRent[];
  order_reference: string | null;
  effective_from: string | null;
  updated_at: string | null;
}

const NONE: RentRegulation = {
  high_demand_zone: null,
  reference_rents: [],
  order_reference: null,
  effective_from: null,
  updated_at: null,
};

const REGULATION_COLS =
  "high_demand_zone, reference_rents, order_reference, effective_from, updated_at, revision";

function toRegulation(
  row: Record<string, unknown> | undefined,
): RentRegulation & { revision: number | null } {
  if (!row) return { ...NONE, revision: null };
  return {
    high_demand_zone: row.high_demand_zone as boolean,
    reference_rents: row.reference_rents as ReferenceRent[],
    order_reference: (row.order_reference as string | null) ?? null,
    effective_from: (row.effective_from as string | null) ?? null,
    // A Date from a column, an ISO string from jsonb (estateRegulationSql).
    updated_at: iso(row.updated_at),
    revision: Number(row.revision),
  };
}

async function readRow(sql: Sql, tenantId: string, table: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query(`SELECT ${REGULATION_COLS} FROM ${table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return toRegulation(row);
}

/** A place's rent regulation (high_demand_zone null when never set). */
export const readPlaceRentRegulation = (sql: Sql, tenantId: string, placeId: string) =>
  readRow(sql, tenantId, "place_rent_regulation", placeId);

/**
 * The rent regulation that applies to an estate: its own override, else its place's, else none.
 * null when the estate is unknown to the tenant. For lease rules (rent control, re-letting cap).
 */
export async function readEstateRentRegulation(
  sql: Sql,
  tenantId: string,
  estateId: string,
): Promise<
  (RentRegulation & { estate_id: string; place_id: string; source: "estate" | "place" | "none" }) | null
> {
  if (!isUuid(estateId)) return null;
  let lookUp = estateRegulationLookUps.get(sql);
  if (!lookUp) {
    lookUp = groupReads((tenant, estates) => readEstateRegulations(sql, tenant, estates));
    estateRegulationLookUps.set(sql, lookUp);
  }
  const row = await lookUp(tenantId, estateId.toLowerCase());
  return toEstateRegulation(estateId, row ?? null);
}

/**
 * Concurrent look-ups of a tenant share one statement (src/platform/groupReads.ts): a lease
 * notice reads the zone on every status change to NOTICE (docs/performance.md, "Grouped appends").
 */
const estateRegulationLookUps = new WeakMap<
  Sql,
  (tenant: string, estate: string) => Promise<Record<string, unknown> | null | undefined>
>();

async function readEstateRegulations(sql: Sql, tenantId: string, estateIds: string[]) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(
      `SELECT x.id::text AS id, ${estateRegulationSql("$1", "x.id")} AS regulation
       FROM unnest($2::uuid[]) AS x(id)`,
      [tenantId, estateIds],
      { prepare: true },
    ),
  );
  return new Map<string, Record<string, unknown> | null>(rows.map((r) => [r.id, r.regulation ?? null]));
}

/**
 * readEstateRentRegulation's look-up as a scalar SQL expression (jsonb, null for an unknown
 * estate) over SQL expressions for the tenant and the estate; `toEstateRegulation` reads it.
 */
export const estateRegulationSql = (tenant: string, estate: string) => `(
  SELECT jsonb_build_object('place_id', e.place_id) || coalesce(to_jsonb(r), '{}'::jsonb)
  FROM estates e
  LEFT JOIN LATERAL (
    SELECT * FROM (
      SELECT 'estate' AS source, ${REGULATION_COLS} FROM estate_rent_regulation
      WHERE tenant_id = ${tenant} AND id = e.id
      UNION ALL
      SELECT 'place' AS source, ${REGULATION_COLS} FROM place_rent_regulation
      WHERE tenant_id = ${tenant} AND id = e.place_id
    ) both_levels ORDER BY source = 'place' LIMIT 1
  ) r ON true
  WHERE e.tenant_id = ${tenant} AND e.id = ${estate})`;

export function toEstateRegulation(
  estateId: string,
  row: Record<string, unknown> | null,
): (RentRegulation & { estate_id: string; place_id: string; source: "estate" | "place" | "none" }) | null {
  if (!row) return null;
  const found = row.source !== undefined && row.source !== null;
  const { revision: _revision, ...regulation } = toRegulation(found ? row : undefined);
  const source = (found ? row.source : "none") as "estate" | "place" | "none";
  return { estate_id: estateId, place_id: String(row.place_id), source, ...regulation };
}

/** The reference rent line for a dwelling (rooms above 4 count as 4), or null when the order has none. */
export function referenceRentFor(
  regulation: Pick<RentRegulation, "reference_rents">,
  dwelling: { rooms: number; construction_period: ConstructionPeriod; furnished: boolean },
): ReferenceRent | null {
  const rooms = Math.min(Math.max(Math.trunc(dwelling.rooms), 1), 4);
  return (
    regulation.reference_rents.find(
      (r) =>
        r.rooms === rooms &&
        r.construction_period === dwelling.construction_period &&
        r.furnished === dwelling.furnished,
    ) ?? null
  );
}

/** The construction period of a rent-control order for a construction year. */
export function constructionPeriodOf(year: number): ConstructionPeriod {
  if (year < 1946) return "BEFORE_1946";
  if (year <= 1970) return "1946_1970";
  if (year <= 1990) return "1971_1990";
  return "AFTER_1990";
}

// ---------------------------------------------------------------- routes

const uuid = z.guid({ error: "must be a UUID" }).overwrite((v) => v.toLowerCase());
export const placeRegulationParams = z.strictObject({ place_id: uuid });
export const estateRegulationParams = z.strictObject({ place_id: uuid, estate_id: uuid });

/** 404 for an unknown place or estate; 400 when the estate is in another place (docs/design.md §6). */
export async function requireEstateInPlace(sql: Sql, tenantId: string, placeId: string, estateId: string) {
  await requirePlace(sql, tenantId, placeId);
  const estatePlace = await findEstatePlace(sql, tenantId, estateId);
  if (!estatePlace) throw notFound("Estate", estateId);
  if (estatePlace !== placeId) {
    throw fieldError("place_id", `Estate ${estateId} does not belong to place ${placeId}`);
  }
}

export const placeRegulationBody = (placeId: string, r: RentRegulation) => ({ place_id: placeId, ...r });

export async function estateRegulationBody(sql: Sql, tenantId: string, estateId: string) {
  const found = await readEstateRentRegulation(sql, tenantId, estateId);
  if (!found) return null;
  const own = await readRow(sql, tenantId, "estate_rent_regulation", estateId);
  return { body: found, revision: own.revision };
}

// ---------------------------------------------------------------- answers (docs/decisions.md, "Responses in the contract")

/** An IRL quarter as the API shows it (toIrl). */
export const irlBody = z
  .strictObject({
    quarter: z.string(),
    value: z.number(),
    published_on: z.string().nullable(),
    source: z.enum(["shipped", "published"]),
    note: z.string().nullable(),
    source_reference: z
      .string()
      .nullable()
      .describe("Where a shipped value was confirmed (INSEE's publication); null for a value published here"),
  })
  .meta({ id: "Irl", description: "An IRL (indice de référence des loyers) value of a quarter" });

/** The fields of a rent regulation as read (toRegulation): all null and no rents when never set. */
const regulationFields = {
  high_demand_zone: z.boolean().nullable(),
  reference_rents: z.array(referenceRent),
  order_reference: z.string().nullable(),
  effective_from: z.string().nullable(),
  updated_at: timestamp.nullable(),
};

/** A place's rent regulation (placeRegulationBody). */
export const placeRegulationAnswer = z.strictObject({ place_id: z.string(), ...regulationFields });

/** The regulation that applies to an estate, and where it comes from (readEstateRentRegulation). */
export const estateRegulationAnswer = z.strictObject({
  estate_id: z.string(),
  place_id: z.string(),
  source: z.enum(["estate", "place", "none"]),
  ...regulationFields,
});

const tag = { tags: ["Rent Regulation and Rent Control"] };

export async function rentRegulationQueryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/rent-regulation/irl",
    {
      schema: {
        summary: "List IRL values, newest quarter first",
        ...tag,
        querystring: z.strictObject({ ...pageQuery }),
        response: answers(z.array(irlBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const query = request.query as { page: number; limit: number };
      const { items, total } = await listIrl(sql, query);
      return sendPage(request, reply, { items, total, ...query });
    },
  );

  app.get(
    "/api/rent-regulation/irl/:quarter",
    {
      schema: {
        summary: "The IRL value of a quarter",
        ...tag,
        params: irlParams,
        response: answers(irlBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { quarter: q } = request.params as { quarter: string };
      const found = await readIrl(sql, q);
      if (!found) throw notFound("IRL of quarter", q);
      const { revision, ...body } = found;
      setEtag(reply, revision);
      return body;
    },
  );

  app.get(
    "/api/places/:place_id/rent-regulation",
    {
      schema: {
        summary: "A place's rent regulation",
        ...tag,
        params: placeRegulationParams,
        response: answers(placeRegulationAnswer),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId } = request.params as { place_id: string };
      await requirePlace(sql, tenantId, placeId);
      const { revision, ...regulation } = await readPlaceRentRegulation(sql, tenantId, placeId);
      setEtag(reply, revision);
      return placeRegulationBody(placeId, regulation);
    },
  );

  app.get(
    "/api/places/:place_id/estates/:estate_id/rent-regulation",
    {
      schema: {
        summary: "An estate's rent regulation, its own or its place's",
        ...tag,
        params: estateRegulationParams,
        response: answers(estateRegulationAnswer),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId, estate_id: estateId } = request.params as {
        place_id: string;
        estate_id: string;
      };
      await requireEstateInPlace(sql, tenantId, placeId, estateId);
      const found = await estateRegulationBody(sql, tenantId, estateId);
      if (!found) throw notFound("Estate", estateId);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
