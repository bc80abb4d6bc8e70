import type { Sql } from "../db.ts";
import { ApiError } from "../errors.ts";
import { iso } from "../formatDates.ts";

/** A tenant's OpenID Connect provider, whose tokens act for the tenant (docs/security.md). */
export interface IdentityProvider {
  tenant_id: string;
  issuer: string;
  jwks_uri: string;
  audience: string;
  roles_claim: string;
  scope_claim: string;
  created_at: string;
  updated_at: string;
}

export type IdentityProviderInput = Pick<IdentityProvider, "issuer" | "jwks_uri" | "audience"> &
  Partial<Pick<IdentityProvider, "roles_claim" | "scope_claim">>;

const COLUMNS = "tenant_id, issuer, jwks_uri, audience, roles_claim, scope_claim, created_at, updated_at";

const toProvider = (row: Record<string, unknown>): IdentityProvider => ({
  tenant_id: row.tenant_id as string,
  issuer: row.issuer as string,
  jwks_uri: row.jwks_uri as string,
  audience: row.audience as string,
  roles_claim: row.roles_claim as string,
  scope_claim: row.scope_claim as string,
  created_at: iso(row.created_at as Date)!,
  updated_at: iso(row.updated_at as Date)!,
});

/** Registers or replaces the tenant's provider; `created` tells which. An issuer serves one tenant. */
export async function putIdentityProvider(
  sql: Sql,
  tenantId: string,
  input: IdentityProviderInput,
): Promise<{ provider: IdentityProvider; created: boolean }> {
  const [taken] = await sql.query(
    "SELECT tenant_id FROM identity_providers WHERE issuer = $1 AND tenant_id <> $2",
    [input.issuer, tenantId],
  );
  if (taken) throw issuerTaken();
  try {
    const [row] = await sql.query(
      `INSERT INTO identity_providers (tenant_id, issuer, jwks_uri, audience, roles_claim, scope_claim)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id) DO UPDATE SET issuer = EXCLUDED.issuer, jwks_uri = EXCLUDED.jwks_uri,
         audience = EXCLUDED.audience, roles_claim = EXCLUDED.roles_claim,
         scope_claim = EXCLUDED.scope_claim, updated_at = now()
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [
        tenantId,
        input.issuer,
        input.jwks_uri,
        input.audience,
        input.roles_claim ?? "roles",
        input.scope_claim ?? "scope",
      ],
    );
    return { provider: toProvider(row), created: row.created === true };
  } catch (error) {
    // Two tenants registering one issuer at once: the unique index decides.
    if ((error as { code?: string }).code === "23505") throw issuerTaken();
    throw error;
  }
}

const issuerTaken = () =>
  new ApiError(
    "Conflict",
    "This issuer is registered for another tenant: a token's issuer names its tenant",
    [{ field: "issuer", message: "taken" }],
  );

export async function readIdentityProvider(sql: Sql, tenantId: string): Promise<IdentityProvider | null> {
  const [row] = await sql.query(`SELECT ${COLUMNS} FROM identity_providers WHERE tenant_id = $1`, [tenantId]);
  return row ? toProvider(row) : null;
}

/** The provider whose issuer is exactly `issuer` (no normalisation: OIDC compares issuers as strings). */
export async function providerOfIssuer(sql: Sql, issuer: string): Promise<IdentityProvider | null> {
  const [row] = await sql.query(`SELECT ${COLUMNS} FROM identity_providers WHERE issuer = $1`, [issuer]);
  return row ? toProvider(row) : null;
}

export async function deleteIdentityProvider(sql: Sql, tenantId: string): Promise<boolean> {
  const rows = await sql.query("DELETE FROM identity_providers WHERE tenant_id = $1 RETURNING tenant_id", [
    tenantId,
  ]);
  return rows.length > 0;
}
