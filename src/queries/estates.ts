import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ENERGY_LABELS } from "../events/energyDiagnoses.ts";
import { ESTATE_CONTRACT_FIELDS, estateFold, estateStream } from "../events/estates.ts";
import type { Sql } from "../platform/db.ts";
import { fieldError, notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { etagOf, setEtag } from "../platform/http/etag.ts";
import { readHistory, stateOf } from "../platform/http/handleCommand.ts";
import { offsetOf, pageQuery, sendPage, sendSlice } from "../platform/http/pagination.ts";
import { answers, historyBody, rowShape, timestamp } from "../platform/http/responses.ts";
import { text, uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { currentDpeJoin } from "./energyDiagnoses.ts";
import { createEstateSchema } from "./estatesSchemas.ts";
import { type Found, pick, placeParams, requirePlace } from "./places.ts";

/** GET routes of the Estates area (nested under places and flat), and the look-ups commands make. */

const RESPONSE_COLUMNS = [
  "id",
  "place_id",
  "name",
  "estate_type_id",
  "area",
  "number_of_room",
  "orientation",
  "building",
  "floor",
  "owner_id",
  "previous_owner_id",
  "lot_number",
  "fiscal_identifier",
  "housing_tax",
  "property_tax",
  "acquisition_price",
  "rent_amount",
  "rental_status",
  "construction_date",
  "renovation_date",
  "address",
  "other_detail",
  ...ESTATE_CONTRACT_FIELDS,
  "current_dpe_id",
  "current_dpe_energy_label",
  "current_dpe_ges_label",
  "current_dpe_diagnosis_date",
  "current_dpe_valid_until",
  "created_at",
  "updated_at",
] as const;

const rentalStatuses = ["VACANT", "RENTED", "NOTICE"] as const;
const dpeLabel = z.enum(ENERGY_LABELS).nullable();

/**
 * An estate as the API shows it: the create body's fields (null when unset), then what the
 * service maintains (rental status, previous owner, the current DPE joined at read time).
 */
export const estateBody = z
  .strictObject({
    id: uuid(),
    ...rowShape(createEstateSchema.shape),
    construction_date: timestamp.nullable(),
    renovation_date: timestamp.nullable(),
    rental_status: z.enum(rentalStatuses),
    previous_owner_id: uuid().nullable(),
    current_dpe_id: uuid().nullable(),
    current_dpe_energy_label: dpeLabel,
    current_dpe_ges_label: dpeLabel,
    current_dpe_diagnosis_date: z.iso.date().nullable(),
    current_dpe_valid_until: z.iso.date().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: "Estate",
    description:
      "An estate (a rentable unit of a place), with what the service maintains: rental status, previous owner, current DPE",
  });

const ownershipTransfersBody = z.array(
  z.strictObject({
    estate_id: uuid(),
    previous_owner_id: uuid().nullable(),
    new_owner_id: uuid().nullable(),
    transferred_at: timestamp,
    revision: z.number().int(),
  }),
);

const toEstate = (row: Row) => pick(row, RESPONSE_COLUMNS, ["construction_date", "renovation_date"]);

/**
 * The current DPE (the estate's own newest valid one, else its place's) is joined at read time
 * from the energy-diagnosis area's read model, so validity is judged against today's date.
 */
const SELECT_ESTATES = `SELECT ${RESPONSE_COLUMNS.filter((c) => !c.startsWith("current_dpe_"))
  .map((c) => `e.${c}`)
  .join(", ")},
    current_dpe.current_dpe_id, current_dpe.current_dpe_energy_label, current_dpe.current_dpe_ges_label,
    current_dpe.current_dpe_diagnosis_date, current_dpe.current_dpe_valid_until, e.revision
  FROM estates e ${currentDpeJoin("e")}`;

export interface EstateFound extends Found {
  place_id: string;
  rental_status: string;
  rent_amount: number | null;
}

/** The estate as the API shows it, or null when the tenant has no such estate. */
export async function readEstate(sql: Sql, tenantId: string, id: string): Promise<EstateFound | null> {
  const [row] = await sql.asTenant(tenantId, async (tx) =>
    tx.query<Row>(`${SELECT_ESTATES} WHERE e.tenant_id = $1 AND e.id = $2`, [tenantId, id]),
  );
  if (!row) return null;
  const body = toEstate(row);
  const revision = Number(row.revision);
  return {
    body,
    revision,
    // Rental status, rent and the current DPE change without an estate event.
    etag: etagOf(revision, body),
    place_id: String(row.place_id),
    rental_status: String(row.rental_status),
    rent_amount: (row.rent_amount as number | null) ?? null,
  };
}

export const notInPlace = (estateId: string, placeId: string) =>
  fieldError(
    "place_id",
    `Estate ${estateId} does not belong to place ${placeId}`,
    `Estate ${estateId} does not belong to place ${placeId}`,
  );

/** The nested-route rules: unknown place 404, unknown estate 404, estate of another place 400. */
export async function readEstateInPlace(sql: Sql, tenantId: string, placeId: string, id: string) {
  await requirePlace(sql, tenantId, placeId);
  const found = await readEstate(sql, tenantId, id);
  if (!found) throw notFound("Estate", id);
  if (found.place_id !== placeId) throw notInPlace(id, placeId);
  return found;
}

/** Counts the delete rules need: rooms, leases not TERMINATED or EXPIRED. */
export async function estateDependents(sql: Sql, tenantId: string, estateId: string) {
  return sql.asTenant(tenantId, async (tx) => {
    const [rooms] = await tx.query(
      "SELECT count(*)::int AS n FROM rooms WHERE tenant_id = $1 AND estate_id = $2",
      [tenantId, estateId],
    );
    const [leases] = await tx.query(
      `SELECT count(*)::int AS n FROM estate_lease_status
       WHERE tenant_id = $1 AND estate_id = $2 AND status NOT IN ('TERMINATED', 'EXPIRED')`,
      [tenantId, estateId],
    );
    return { room_count: Number(rooms.n), open_lease_count: Number(leases.n) };
  });
}

/** Estates of a place (place delete) or of an owner (owner delete). */
export async function countEstates(sql: Sql, tenantId: string, by: "place_id" | "owner_id", id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query(`SELECT count(*)::int AS n FROM estates WHERE tenant_id = $1 AND ${by} = $2`, [tenantId, id]),
  );
  return Number(row.n);
}

const listQuery = z.strictObject({
  ...pageQuery,
  owner_id: uuid().optional(),
  estate_type_id: uuid().optional(),
  rental_status: z.enum(rentalStatuses).optional(),
  q: text(255).optional().describe("Contained in the name, lot number or fiscal identifier"),
});
const flatListQuery = listQuery.extend({ place_id: uuid().optional() });
type ListQuery = z.output<typeof flatListQuery>;

async function listEstates(sql: Sql, tenantId: string, query: ListQuery) {
  const where = ["e.tenant_id = $1"];
  const params: unknown[] = [tenantId];
  for (const field of ["place_id", "owner_id", "estate_type_id", "rental_status"] as const) {
    if (query[field] === undefined) continue;
    params.push(query[field]);
    where.push(`e.${field} = $${params.length}`);
  }
  if (query.q) {
    params.push(query.q.toLowerCase());
    const p = `$${params.length}`;
    where.push(`(strpos(lower(e.name), ${p}) > 0 OR strpos(lower(coalesce(e.lot_number, '')), ${p}) > 0
      OR strpos(lower(e.fiscal_identifier), ${p}) > 0)`);
  }
  const filter = where.join(" AND ");
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(
      `SELECT count(*)::int AS total FROM estates e WHERE ${filter}`,
      params,
    );
    const rows = await tx.query<Row>(
      `${SELECT_ESTATES} WHERE ${filter} ORDER BY e.created_at, e.id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, offsetOf(query)],
    );
    return { items: rows.map(toEstate), total, page: query.page, limit: query.limit };
  });
}

export const estateParams = z.strictObject({ id: uuid() });
export const nestedEstateParams = placeParams.extend({ estate_id: uuid() });
const tag = { tags: ["Estates"] };

export async function estateQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/places/:place_id/estates",
    {
      schema: {
        ...tag,
        summary: "List the estates of a place",
        params: placeParams,
        querystring: listQuery,
        response: answers(z.array(estateBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      return sendPage(request, reply, await listEstates(sql, tenantId, { ...request.query, place_id }));
    },
  );

  api.get(
    "/api/places/:place_id/estates/:estate_id",
    {
      schema: {
        ...tag,
        summary: "Get an estate of a place",
        params: nestedEstateParams,
        response: answers(estateBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { place_id, estate_id } = request.params;
      const found = await readEstateInPlace(sql, tenantOf(request), place_id, estate_id);
      setEtag(reply, found.revision, found.etag);
      return found.body;
    },
  );

  api.get(
    "/api/estates",
    {
      schema: {
        ...tag,
        summary: "List estates of every place",
        querystring: flatListQuery,
        response: answers(z.array(estateBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) =>
      sendPage(request, reply, await listEstates(sql, tenantOf(request), request.query)),
  );

  api.get(
    "/api/estates/:id",
    {
      schema: { ...tag, summary: "Get an estate", params: estateParams, response: answers(estateBody) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const found = await readEstate(sql, tenantOf(request), request.params.id);
      if (!found) throw notFound("Estate", request.params.id);
      setEtag(reply, found.revision, found.etag);
      return found.body;
    },
  );

  api.get(
    "/api/estates/:id/history",
    {
      schema: {
        ...tag,
        summary: "The estate's events, oldest first (audit; paginated)",
        params: estateParams,
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { id } = request.params;
      const events = await readHistory(request, estateStream(id), () => notFound("Estate", id));
      return sendSlice(request, reply, events, request.query);
    },
  );

  api.get(
    "/api/estates/:id/ownership-history",
    {
      schema: {
        ...tag,
        summary: "Ownership transfers of the estate, oldest first",
        params: estateParams,
        response: answers(ownershipTransfersBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { id } = request.params;
      if (!(await readEstate(sql, tenantId, id))) throw notFound("Estate", id);
      const rows = await sql.asTenant(tenantId, (tx) =>
        tx.query<Row>(
          `SELECT estate_id, previous_owner_id, new_owner_id, transferred_at, revision
           FROM estate_ownership_transfers WHERE tenant_id = $1 AND estate_id = $2 ORDER BY revision`,
          [tenantId, id],
        ),
      );
      return rows.map((r) => ({
        estate_id: r.estate_id,
        previous_owner_id: r.previous_owner_id,
        new_owner_id: r.new_owner_id,
        transferred_at: iso(r.transferred_at),
        revision: Number(r.revision),
      }));
    },
  );
}

/** Fact for other areas' commands, from the stream (not a read model that may lag). */
export const estateRecorded = async (request: FastifyRequest, id: string) =>
  (await stateOf(request, estateStream(id), estateFold)).status === "active";
