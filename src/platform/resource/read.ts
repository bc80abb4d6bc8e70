import type { FastifyRequest } from "fastify";
import type { Sql } from "../db.ts";
import { iso } from "../formatDates.ts";
import { stateOf } from "../http/handleCommand.ts";
import type { Found } from "../http/replyWithResource.ts";
import type { Row } from "../projections/projection.ts";
import { resourceDecider } from "./decider.ts";
import type { Resource } from "./resource.ts";

/** Picks `columns` of a row, timestamps ISO; nothing internal (tenant, revision) leaks. */
export function pick(
  row: Row,
  columns: readonly string[],
  timestamps: readonly string[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) out[c] = row[c] ?? null;
  for (const c of ["created_at", "updated_at", ...timestamps]) if (c in out) out[c] = iso(row[c]);
  return out;
}

export const selectOf = (resource: Resource) => `${resource.responseColumns.join(", ")}, revision`;

/** A resource of the tenant from its read model: the response body, its revision, its parent. */
export async function readResource(
  sql: Sql,
  resource: Resource,
  tenantId: string,
  id: string,
): Promise<(Found & { parent_id: string | null }) | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${selectOf(resource)} FROM ${resource.table} WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]),
  );
  if (!row) return null;
  const parent_id = resource.parentKey ? String(row[resource.parentKey]) : null;
  return { body: pick(row, resource.responseColumns), revision: Number(row.revision), parent_id };
}

/** Whether the tenant has the resource (read model): for other areas' facts. */
export async function resourceExists(sql: Sql, resource: Resource, tenantId: string, id: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(`SELECT 1 FROM ${resource.table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return rows.length > 0;
}

/** Whether the tenant's stream records the resource live: a fact for other areas' commands (a read model may lag). */
export const resourceRecorded = async (request: FastifyRequest, resource: Resource, id: string) =>
  (await stateOf(request, resource.stream(id), resourceDecider(resource))).status === "active";
