import type { Sql } from "../platform/db.ts";

/**
 * Facts of the leases area that other areas look up. The leases area adds its GET routes here;
 * `lessee_active_leases` is built by src/projections/leases.ts.
 */

/** Lease statuses during which an association keeps a lessee from being deleted (docs/architecture.md §6). */
export const ACTIVE_LEASE_STATUSES = [
  "DRAFT",
  "PENDING_SIGNATURE",
  "ACTIVE",
  "NOTICE",
  "FINALISATION",
] as const;

/** Active-lease counts of the given lessees of one tenant; lessees without any are absent. */
export async function activeLeaseCounts(
  sql: Sql,
  tenantId: string,
  lesseeIds: string[],
): Promise<Map<string, number>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ lessee_id: string; count: number }>(
      `SELECT lessee_id, count(*)::int AS count FROM lessee_active_leases
        WHERE tenant_id = $1 AND lessee_id = ANY($2::uuid[]) AND NOT ended AND lease_status = ANY($3::text[])
        GROUP BY lessee_id`,
      [tenantId, lesseeIds, ACTIVE_LEASE_STATUSES],
    ),
  );
  return new Map(rows.map((r) => [r.lessee_id, r.count]));
}
