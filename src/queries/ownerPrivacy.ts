import { z } from "zod";
import type { OwnerErasureFacts } from "../law/retention.ts";
import type { Sql } from "../platform/db.ts";
import { uuid } from "../platform/http/schemas.ts";
import { countEstates } from "./estates.ts";
import { ACTIVE_LEASE_STATUSES } from "./leases.ts";

/** The facts an owner's erasure is judged on (src/law/retention.ts): its estates and their leases in progress. */
export async function ownerErasureFacts(
  sql: Sql,
  tenantId: string,
  ownerId: string,
): Promise<OwnerErasureFacts> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM leases l JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
        WHERE l.tenant_id = $1 AND e.owner_id = $2 AND l.status = ANY($3::text[])`,
      [tenantId, ownerId, ACTIVE_LEASE_STATUSES],
    ),
  );
  return {
    estate_count: await countEstates(sql, tenantId, "owner_id", ownerId),
    active_lease_count: Number(row?.n ?? 0),
  };
}

/** The estates an owner owns, or owned before their last transfer (ids and names: the export's). */
export const ownerEstatesShape = {
  estates: z
    .array(z.strictObject({ estate_id: uuid(), place_id: uuid(), name: z.string(), owned: z.boolean() }))
    .describe("The estates it owns (owned) or owned before their last transfer"),
};

export async function ownerEstates(sql: Sql, tenantId: string, ownerId: string) {
  const estates = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ estate_id: string; place_id: string; name: string; owned: boolean }>(
      `SELECT id AS estate_id, place_id, name, owner_id IS NOT DISTINCT FROM $2 AS owned FROM estates
        WHERE tenant_id = $1 AND (owner_id = $2 OR previous_owner_id = $2) ORDER BY created_at, id`,
      [tenantId, ownerId],
    ),
  );
  return { estates };
}
