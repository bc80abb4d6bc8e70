import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { METER_BILLINGS, METER_TYPES, READING_SOURCES } from "../events/meters.ts";
import { subMetersWithinParent, toMilli } from "../law/meters.ts";
import type { Sql } from "../platform/db.ts";
import { notFound, validationError } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import { answers, timestamp, verdictBody } from "../platform/http/responses.ts";
import { isoDate, uuid } from "../platform/http/schemas.ts";
import { readEstate } from "./estates.ts";
import { requirePlace } from "./places.ts";

/** GET routes of meters and readings (docs/charges.md, "Meters"), and the look-ups of the meter commands. */

const tags = ["Meters"];
const read = { access: "PropertiesRead" as const };

export const replacementBody = z.strictObject({
  replacement_id: uuid(),
  on: isoDate,
  final_index: z.number(),
  consumption: z.number().nullable(),
  old_serial: z.string().nullable(),
  new_serial: z.string().nullable(),
  initial_index: z.number(),
});

export const meterBody = z
  .strictObject({
    id: uuid(),
    place_id: uuid(),
    estate_id: uuid().nullable(),
    type: z.enum(METER_TYPES),
    billing: z.enum(METER_BILLINGS),
    label: z.string().nullable(),
    serial: z.string().nullable(),
    unit: z.string(),
    rollover_at: z.number().nullable(),
    parent_meter_id: uuid().nullable(),
    lease_ids: z.array(uuid()),
    last_index: z.number().nullable(),
    last_read_on: isoDate.nullable(),
    readings_count: z.number().int(),
    anomalies_count: z.number().int(),
    replacements: z.array(replacementBody),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Meter" });

export const readingBody = z
  .strictObject({
    id: uuid(),
    meter_id: uuid(),
    value: z.number(),
    read_on: isoDate,
    source: z.enum(READING_SOURCES),
    media_id: uuid().nullable(),
    consumption: z
      .number()
      .nullable()
      .describe("Index minus the previous one (across a rollover); null for the first"),
    days: z.number().int().nullable(),
    daily_consumption: z.number().nullable(),
    anomaly: z
      .boolean()
      .describe("Daily consumption more than 50 % off the average of the earlier non-estimated readings"),
    created_at: timestamp,
  })
  .meta({ id: "MeterReading" });

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

export function toMeter(row: Row) {
  return {
    id: String(row.id),
    place_id: String(row.place_id),
    estate_id: (row.estate_id as string | null) ?? null,
    type: row.type,
    billing: row.billing,
    label: row.label ?? null,
    serial: row.serial ?? null,
    unit: row.unit,
    rollover_at: row.rollover_at ?? null,
    parent_meter_id: row.parent_meter_id ?? null,
    lease_ids: row.lease_ids,
    last_index: row.last_index ?? null,
    last_read_on: row.last_read_on ?? null,
    readings_count: Number(row.readings_count),
    anomalies_count: Number(row.anomalies_count),
    replacements: row.replacements,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  } as z.infer<typeof meterBody>;
}

export function toReading(row: Row) {
  const consumption = (row.consumption as number | null) ?? null;
  const days = row.days === null || row.days === undefined ? null : Number(row.days);
  return {
    id: String(row.id),
    meter_id: String(row.meter_id),
    value: Number(row.value),
    read_on: String(row.read_on),
    source: row.source,
    media_id: (row.media_id as string | null) ?? null,
    consumption,
    days,
    daily_consumption: consumption !== null && days ? Math.round((consumption / days) * 1000) / 1000 : null,
    anomaly: Boolean(row.anomaly),
    created_at: iso(row.created_at),
  } as z.infer<typeof readingBody>;
}

/** The meter's read-model row, or null when the tenant has none of that id. */
export async function findMeterRow(sql: Sql, tenantId: string, id: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT * FROM meters WHERE tenant_id = $1 AND id = $2", [tenantId, id]),
  );
  return row ?? null;
}

export async function readMeter(sql: Sql, tenantId: string, id: string) {
  const row = await findMeterRow(sql, tenantId, id);
  return row ? toMeter(row) : null;
}

export async function readReadings(sql: Sql, tenantId: string, meterId: string, ids: string[]) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT * FROM meter_readings WHERE tenant_id = $1 AND meter_id = $2 AND id = ANY($3::uuid[]) ORDER BY read_on, id",
      [tenantId, meterId, ids],
    ),
  );
  return rows.map(toReading);
}

/** Live sub-meters of a meter (a meter with some cannot be removed). */
export async function countSubMeters(sql: Sql, tenantId: string, id: string): Promise<number> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT count(*)::int AS n FROM meters WHERE tenant_id = $1 AND parent_meter_id = $2", [
      tenantId,
      id,
    ]),
  );
  return Number(row.n);
}

/** The meter's ancestors, nearest first (a parent may not be one of its own sub-meters). */
export async function ancestorsOf(sql: Sql, tenantId: string, id: string): Promise<string[]> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `WITH RECURSIVE up(id, parent, depth) AS (
         SELECT id, parent_meter_id, 0 FROM meters WHERE tenant_id = $1 AND id = $2
         UNION ALL
         SELECT m.id, m.parent_meter_id, up.depth + 1 FROM meters m JOIN up ON m.id = up.parent
         WHERE m.tenant_id = $1 AND up.depth < 100)
       SELECT id FROM up ORDER BY depth`,
      [tenantId, id],
    ),
  );
  return rows.map((r) => String(r.id));
}

/** Which of `ids` are leases of the tenant. */
export async function existingLeases(sql: Sql, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT id FROM leases WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [tenantId, ids]),
  );
  return new Set(rows.map((r) => String(r.id)));
}

/** Consumption of each meter over a period: the readings dated in (from, to]. */
async function periodConsumption(sql: Sql, tenantId: string, ids: string[], from: string, to: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT meter_id, sum(consumption) AS consumption FROM meter_readings
       WHERE tenant_id = $1 AND meter_id = ANY($2::uuid[]) AND read_on > $3 AND read_on <= $4 AND consumption IS NOT NULL
       GROUP BY meter_id`,
      [tenantId, ids, from, to],
    ),
  );
  return new Map(rows.map((r) => [String(r.meter_id), Number(r.consumption)]));
}

const listQuery = z.strictObject({
  ...pageQuery,
  type: z.enum(METER_TYPES).optional(),
  lease_id: uuid().optional().describe("Meters serving this lease"),
});
const readingsQuery = z.strictObject({
  ...pageQuery,
  from: isoDate.optional().describe("Readings dated on or after"),
  to: isoDate.optional().describe("Readings dated on or before"),
  anomaly: z.enum(["true", "false"]).optional(),
});
const periodQuery = z.strictObject({ from: isoDate, to: isoDate });
const meterVerdictBody = verdictBody.meta({ id: "MeterVerdict" });

async function listMeters(
  sql: Sql,
  tenantId: string,
  where: { column: "place_id" | "estate_id" | null; id: string | null },
  q: z.infer<typeof listQuery>,
) {
  const conditions = ["tenant_id = $1"];
  const values: unknown[] = [tenantId];
  if (where.column) {
    values.push(where.id);
    conditions.push(`${where.column} = $${values.length}`);
  }
  if (q.type) {
    values.push(q.type);
    conditions.push(`type = $${values.length}`);
  }
  if (q.lease_id) {
    values.push(q.lease_id);
    conditions.push(`lease_ids ? $${values.length}`);
  }
  const filter = conditions.join(" AND ");
  return sql.asTenant(tenantId, async (tx) => {
    const [count] = await tx.query<Row>(`SELECT count(*)::int AS n FROM meters WHERE ${filter}`, values);
    const rows = await tx.query<Row>(
      `SELECT * FROM meters WHERE ${filter} ORDER BY created_at, id LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
      values,
    );
    return { items: rows.map(toMeter), total: Number(count.n), page: q.page, limit: q.limit };
  });
}

export async function meterQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const list = answers(z.array(meterBody));

  api.get(
    "/api/meters",
    {
      schema: { tags, summary: "List the tenant's meters", querystring: listQuery, response: list },
      config: read,
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await listMeters(sql, tenantOf(request), { column: null, id: null }, request.query),
      ),
  );

  api.get(
    "/api/places/:place_id/meters",
    {
      schema: {
        tags,
        summary: "List a place's meters (its own and its estates')",
        params: z.strictObject({ place_id: uuid() }),
        querystring: listQuery,
        response: list,
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requirePlace(sql, tenantId, request.params.place_id);
      const page = await listMeters(
        sql,
        tenantId,
        { column: "place_id", id: request.params.place_id },
        request.query,
      );
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/estates/:estate_id/meters",
    {
      schema: {
        tags,
        summary: "List an estate's meters",
        params: z.strictObject({ estate_id: uuid() }),
        querystring: listQuery,
        response: list,
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      if (!(await readEstate(sql, tenantId, request.params.estate_id)))
        throw notFound("Estate", request.params.estate_id);
      const page = await listMeters(
        sql,
        tenantId,
        { column: "estate_id", id: request.params.estate_id },
        request.query,
      );
      return sendPage(request, reply, page);
    },
  );

  const meterParams = z.strictObject({ meter_id: uuid() });

  api.get(
    "/api/meters/:meter_id",
    {
      schema: { tags, summary: "Get a meter", params: meterParams, response: answers(meterBody) },
      config: read,
    },
    async (request, reply) => {
      const row = await findMeterRow(sql, tenantOf(request), request.params.meter_id);
      if (!row) throw notFound("Meter", request.params.meter_id);
      setEtag(reply, Number(row.revision));
      return toMeter(row);
    },
  );

  api.get(
    "/api/meters/:meter_id/readings",
    {
      schema: {
        tags,
        summary: "List a meter's readings, oldest first",
        params: meterParams,
        querystring: readingsQuery,
        response: answers(z.array(readingBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { meter_id } = request.params;
      if (!(await findMeterRow(sql, tenantId, meter_id))) throw notFound("Meter", meter_id);
      const q = request.query;
      const conditions = ["tenant_id = $1", "meter_id = $2"];
      const values: unknown[] = [tenantId, meter_id];
      if (q.from) conditions.push(`read_on >= $${values.push(q.from)}`);
      if (q.to) conditions.push(`read_on <= $${values.push(q.to)}`);
      if (q.anomaly) conditions.push(`anomaly = $${values.push(q.anomaly === "true")}`);
      const filter = conditions.join(" AND ");
      const page = await sql.asTenant(tenantId, async (tx) => {
        const [count] = await tx.query<Row>(
          `SELECT count(*)::int AS n FROM meter_readings WHERE ${filter}`,
          values,
        );
        const rows = await tx.query<Row>(
          `SELECT * FROM meter_readings WHERE ${filter} ORDER BY read_on, id LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
          values,
        );
        return { items: rows.map(toReading), total: Number(count.n), page: q.page, limit: q.limit };
      });
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/meters/:meter_id/sub-meters/check",
    {
      schema: {
        tags,
        summary:
          "Whether the sub-meters consumed more than this meter over a period (readings dated in (from, to])",
        params: meterParams,
        querystring: periodQuery,
        response: answers(meterVerdictBody),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { meter_id } = request.params;
      const { from, to } = request.query;
      if (from >= to)
        throw validationError("Invalid period", [{ field: "to", message: "Must be after from" }]);
      if (!(await findMeterRow(sql, tenantId, meter_id))) throw notFound("Meter", meter_id);
      const children = await sql.asTenant(tenantId, (tx) =>
        tx.query<Row>(
          "SELECT id FROM meters WHERE tenant_id = $1 AND parent_meter_id = $2 ORDER BY created_at, id",
          [tenantId, meter_id],
        ),
      );
      const ids = children.map((c) => String(c.id));
      const used = await periodConsumption(sql, tenantId, [meter_id, ...ids], from, to);
      const parent = used.get(meter_id);
      return subMetersWithinParent(
        parent === undefined ? null : toMilli(parent),
        ids.map((id) => {
          const c = used.get(id);
          return { meter_id: id, consumption_milli: c === undefined ? null : toMilli(c) };
        }),
      );
    },
  );
}

/** Signed condition reports whose readings of named meters are not recorded yet, oldest first. */
export async function pendingReportReadings(sql: Sql, limit: number) {
  return sql.query<{
    tenant_id: string;
    report_id: string;
    read_on: string;
    readings: { meter_id: string; kind: string; value: number }[];
  }>(
    `SELECT tenant_id::text, id::text AS report_id, to_char(read_on, 'YYYY-MM-DD') AS read_on, readings
       FROM condition_report_meter_readings WHERE signed AND recorded_at IS NULL ORDER BY id LIMIT $1`,
    [limit],
  );
}

/** Stamps a report's readings as recorded on their meters, with each one's outcome. */
export async function markReportReadingsRecorded(sql: Sql, reportId: string, outcomes: unknown[]) {
  await sql.query(
    "UPDATE condition_report_meter_readings SET recorded_at = now(), outcomes = $2::jsonb WHERE id = $1",
    [reportId, JSON.stringify(outcomes)],
  );
}
