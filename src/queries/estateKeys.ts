import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { estateKeyResource, KEY_DIRECTIONS } from "../events/estateKeys.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import { answers } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";
import { readEstate } from "./estates.ts";

/** Keys of an estate and their handovers (docs/moving.md "Keys"). */

const tags = ["Moving in and out"];

/** 404 unless the tenant has the estate of the path. */
export async function estateOfPath(request: FastifyRequest, params: Record<string, string>) {
  const estate = await readEstate(request.server.platform.sql, tenantOf(request), params.estate_id);
  if (!estate) throw notFound("Estate", params.estate_id);
  return estate;
}

/** The estate's key sets: count by kind. */
export async function readKeySets(
  sql: Sql,
  tenantId: string,
  estateId: string,
): Promise<Map<string, number>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ kind: string; count: number }>(
      "SELECT kind, count FROM estate_keys WHERE tenant_id = $1 AND estate_id = $2",
      [tenantId, estateId],
    ),
  );
  const sets = new Map<string, number>();
  for (const r of rows) sets.set(r.kind, (sets.get(r.kind) ?? 0) + Number(r.count));
  return sets;
}

export const handoverBody = z
  .strictObject({
    id: uuid(),
    estate_id: uuid(),
    lease_id: uuid(),
    direction: z.enum(KEY_DIRECTIONS),
    on: z.iso.date(),
    sets: z.array(z.strictObject({ kind: z.string(), count: z.number().int() })),
    recorded_at: z.string(),
  })
  .meta({ id: "KeyHandover" });

const SELECT = `SELECT id, estate_id, lease_id, direction, to_char(on_date, 'YYYY-MM-DD') AS on, sets,
  to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at FROM key_handovers`;

export async function readHandover(sql: Sql, tenantId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`${SELECT} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return (row as z.output<typeof handoverBody> | undefined) ?? null;
}

export async function listHandovers(sql: Sql, tenantId: string, estateId: string, leaseId?: string) {
  return (await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `${SELECT} WHERE tenant_id = $1 AND estate_id = $2 AND ($3::uuid IS NULL OR lease_id = $3)
       ORDER BY on_date, recorded_at, id`,
      [tenantId, estateId, leaseId ?? null],
    ),
  )) as z.output<typeof handoverBody>[];
}

/**
 * The day a lease's keys came back (the last RETURNED handover), which starts the deposit's clock
 * (loi n° 89-462 art. 22); null when none is recorded.
 */
export async function keysReturnedOn(sql: Sql, tenantId: string, leaseId: string): Promise<string | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ on: string | null }>(
      `SELECT to_char(max(on_date), 'YYYY-MM-DD') AS on FROM key_handovers
       WHERE tenant_id = $1 AND lease_id = $2 AND direction = 'RETURNED'`,
      [tenantId, leaseId],
    ),
  );
  return row?.on ?? null;
}

const keyQueries = resourceQueryRoutes(estateKeyResource, { within: estateOfPath });

async function handoverQueries(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/estates/:estate_id/keys/handovers",
    {
      schema: {
        tags,
        summary: "The keys handed over and returned for the estate, oldest first",
        params: z.strictObject({ estate_id: uuid() }),
        querystring: z.strictObject({ ...pageQuery, lease_id: uuid().optional() }),
        response: answers(z.array(handoverBody)),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      await estateOfPath(request, request.params);
      const rows = await listHandovers(
        sql,
        tenantOf(request),
        request.params.estate_id,
        request.query.lease_id,
      );
      return sendSlice(request, reply, rows, request.query);
    },
  );
}

async function handoverQuery(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/estates/:estate_id/keys/handovers/:handover_id",
    {
      schema: {
        tags,
        summary: "One handover or return of keys",
        params: z.strictObject({ estate_id: uuid(), handover_id: uuid() }),
        response: answers(handoverBody),
      },
      config: { access: "PropertiesRead" },
    },
    async (request) => {
      await estateOfPath(request, request.params);
      const found = await readHandover(sql, tenantOf(request), request.params.handover_id);
      if (!found || found.estate_id !== request.params.estate_id)
        throw notFound("Key handover", request.params.handover_id);
      return found;
    },
  );
}

export async function estateKeyQueries(app: FastifyInstance): Promise<void> {
  await handoverQueries(app);
  await handoverQuery(app);
  await keyQueries(app);
}
