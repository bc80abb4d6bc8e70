import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { InventoryItem } from "../events/inventories.ts";
import type { LeaseType } from "../events/leases.ts";
import { furnishedInventoryVerdict } from "../law/furnishedInventory.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers, freeForm, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { requireLease } from "./leases.ts";

/** A lease's furniture inventory (docs/moving.md) and its verdict against décret n° 2015-981 art. 2. */

export const inventoryBody = z
  .strictObject({
    lease_id: uuid(),
    recorded_on: z.string(),
    items: z.array(
      z.strictObject({
        item: z.string(),
        quantity: z.number(),
        description: z.string().nullable(),
        room_name: z.string().nullable(),
        condition: z.string().nullable(),
      }),
    ),
    verdict: z
      .strictObject({
        rule: z.string(),
        status: z.enum(["PASS", "FAIL", "UNKNOWN", "NOT_APPLICABLE"]),
        message: z.string(),
        legal_reference: z.string(),
        details: freeForm,
      })
      .describe("The FURNISHED_INVENTORY check of the lease compliance report"),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "LeaseInventory" });

/** The inventory as recorded, null when the lease has none (the compliance facts read it). */
export async function readInventory(sql: Sql, tenantId: string, leaseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT recorded_on, items, revision, created_at, updated_at FROM lease_inventories WHERE tenant_id = $1 AND id = $2",
      [tenantId, leaseId],
    ),
  );
  if (!row) return null;
  return {
    recorded_on: isoDay(row.recorded_on) as string,
    items: row.items as InventoryItem[],
    revision: Number(row.revision),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
}

/** The inventory with the verdict on the lease's type and start; null when none is recorded. */
export async function readInventoryBody(sql: Sql, tenantId: string, leaseId: string): Promise<Found | null> {
  const lease = await requireLease(sql, tenantId, leaseId);
  const inventory = await readInventory(sql, tenantId, leaseId);
  if (!inventory) return null;
  const { revision, ...rest } = inventory;
  const verdict = furnishedInventoryVerdict({
    lease_type: lease.body.lease_type as LeaseType,
    start_date: String(lease.body.start_date),
    inventory,
  });
  return { body: { lease_id: leaseId, ...rest, verdict }, revision };
}

const params = z.strictObject({ lease_id: uuid() });

export async function inventoryQueries(app: FastifyInstance) {
  const { sql } = app.platform;
  app.get(
    "/api/leases/:lease_id/inventory",
    {
      schema: {
        tags: ["Inventories"],
        summary: "The furniture inventory of a lease and its check against décret n° 2015-981 art. 2",
        params,
        response: answers(inventoryBody),
      },
      config: { access: "LeasesRead" },
    },
    async (request, reply) => {
      const { lease_id } = request.params as z.infer<typeof params>;
      const found = await readInventoryBody(sql, tenantOf(request), lease_id);
      if (!found) throw notFound("Inventory of lease", lease_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
