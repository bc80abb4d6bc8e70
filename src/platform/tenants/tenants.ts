import { randomBytes, randomUUID } from "node:crypto";
import type { Sql } from "../db.ts";
import { ApiError } from "../errors.ts";
import { iso } from "../formatDates.ts";
import { hashKey, PERMISSIONS, type Permission } from "../http/auth.ts";

export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeyInfo {
  id: string;
  tenant_id: string;
  name: string;
  permissions: Permission[];
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export async function createTenant(sql: Sql, name: string): Promise<Tenant> {
  const id = randomUUID();
  const rows = await sql.query(
    "INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id, name, created_at",
    [id, name],
  );
  if (rows.length === 0) {
    throw new ApiError("Conflict", `A tenant named ${name} exists already`, [
      { field: "name", message: "taken" },
    ]);
  }
  return { id: rows[0].id, name: rows[0].name, created_at: iso(rows[0].created_at)! };
}

export async function listTenants(sql: Sql): Promise<Tenant[]> {
  const rows = await sql.query("SELECT id, name, created_at FROM tenants ORDER BY created_at, id");
  return rows.map((r) => ({ id: r.id, name: r.name, created_at: iso(r.created_at)! }));
}

export async function findTenant(sql: Sql, idOrName: string): Promise<Tenant | null> {
  const rows = await sql.query(
    "SELECT id, name, created_at FROM tenants WHERE id::text = $1 OR name = $1 ORDER BY created_at LIMIT 1",
    [idOrName],
  );
  return rows[0] ? { id: rows[0].id, name: rows[0].name, created_at: iso(rows[0].created_at)! } : null;
}

/** The secret is returned once; only its hash is stored. */
export async function createApiKey(
  sql: Sql,
  tenantId: string,
  name: string,
  permissions: readonly Permission[],
): Promise<ApiKeyInfo & { key: string }> {
  const key = `pms_${randomBytes(24).toString("base64url")}`;
  const id = randomUUID();
  const [row] = await sql.query(
    `INSERT INTO api_keys (id, tenant_id, name, permissions, key_hash, key_prefix)
     VALUES ($1, $2, $3, $4::text[], $5, $6) RETURNING created_at`,
    [id, tenantId, name, [...new Set(permissions)], hashKey(key), key.slice(0, 8)],
  );
  return {
    id,
    tenant_id: tenantId,
    name,
    permissions: [...new Set(permissions)],
    key_prefix: key.slice(0, 8),
    created_at: iso(row.created_at)!,
    revoked_at: null,
    key,
  };
}

export async function listApiKeys(sql: Sql, tenantId?: string): Promise<ApiKeyInfo[]> {
  const rows = await sql.query(
    `SELECT id, tenant_id, name, permissions, key_prefix, created_at, revoked_at FROM api_keys
     WHERE $1::uuid IS NULL OR tenant_id = $1::uuid ORDER BY created_at, id`,
    [tenantId ?? null],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)!, revoked_at: iso(r.revoked_at) }));
}

export async function revokeApiKey(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(
    "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id",
    [id],
  );
  return rows.length > 0;
}

export const ALL_PERMISSIONS: readonly Permission[] = PERMISSIONS;

export interface WorkerKeyInfo {
  id: string;
  tenant_id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** A worker's key (`pmw_…`, X-API-Key): shown once, stored as a hash, for one tenant. */
export async function createWorkerKey(
  sql: Sql,
  tenantId: string,
  name: string,
): Promise<WorkerKeyInfo & { key: string }> {
  const key = `pmw_${randomBytes(24).toString("base64url")}`;
  const id = randomUUID();
  const [row] = await sql.query(
    `INSERT INTO worker_keys (id, tenant_id, name, key_hash, key_prefix)
     VALUES ($1, $2, $3, $4, $5) RETURNING created_at`,
    [id, tenantId, name, hashKey(key), key.slice(0, 8)],
  );
  const created_at = iso(row.created_at)!;
  return { id, tenant_id: tenantId, name, key_prefix: key.slice(0, 8), created_at, revoked_at: null, key };
}

export async function listWorkerKeys(sql: Sql, tenantId: string): Promise<WorkerKeyInfo[]> {
  const rows = await sql.query(
    `SELECT id, tenant_id, name, key_prefix, created_at, revoked_at FROM worker_keys
     WHERE tenant_id = $1 ORDER BY created_at, id`,
    [tenantId],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)!, revoked_at: iso(r.revoked_at) }));
}

export async function revokeWorkerKey(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(
    "UPDATE worker_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id",
    [id],
  );
  return rows.length > 0;
}
