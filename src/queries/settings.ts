import { type Configuration, defaultConfiguration, type TemplateCode } from "../events/settings.ts";
import type { Sql } from "../platform/db.ts";
import { iso } from "../platform/formatDates.ts";
import type { Row } from "../platform/projections/projection.ts";

/**
 * The settings as other areas read them (docs/settings.md): receipts, reminders, arrears and
 * the outbox call `readConfiguration` and `readTemplate`; the routes below answer the API.
 */

/** The saved configuration of the tenant with its revision, or null when it saved none. */
export async function findConfiguration(
  sql: Sql,
  tenantId: string,
): Promise<{ configuration: Configuration; revision: number; updated_at: string | null } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT reminder_levels, receipt_numbering, sender, revision, updated_at FROM configurations WHERE tenant_id = $1 AND id = $1",
      [tenantId],
    ),
  );
  if (!row) return null;
  const configuration = {
    reminder_levels: row.reminder_levels,
    receipt_numbering: row.receipt_numbering,
    sender: { address: null, ...(row.sender as object) },
  } as Configuration;
  return { configuration, revision: Number(row.revision), updated_at: iso(row.updated_at) };
}

/** The tenant's name: the sender's name until the tenant names one. */
async function tenantName(sql: Sql, tenantId: string): Promise<string> {
  const [row] = await sql.query<{ name: string }>("SELECT name FROM tenants WHERE id = $1", [tenantId]);
  return row?.name ?? "";
}

/** The configuration the tenant saved, else the defaults (J+5, J+15, formal notice J+30; prefix Q). */
export async function readConfiguration(sql: Sql, tenantId: string): Promise<Configuration> {
  const found = await findConfiguration(sql, tenantId);
  return found?.configuration ?? defaultConfiguration(await tenantName(sql, tenantId));
}

export const defaultConfigurationOf = async (sql: Sql, tenantId: string) =>
  defaultConfiguration(await tenantName(sql, tenantId));

export interface TemplateRow {
  code: TemplateCode;
  /** null: the built-in default applies (never saved, or reset). */
  source: string | null;
  revision: number;
  updated_at: string | null;
}

/** The tenant's template rows, by code (codes never saved are absent). */
export async function findTemplates(sql: Sql, tenantId: string, code?: TemplateCode): Promise<TemplateRow[]> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT code, source, revision, updated_at FROM templates
       WHERE tenant_id = $1 AND ($2::text IS NULL OR code = $2) ORDER BY code`,
      [tenantId, code ?? null],
    ),
  );
  return rows.map((r) => ({
    code: r.code as TemplateCode,
    source: (r.source as string | null) ?? null,
    revision: Number(r.revision),
    updated_at: iso(r.updated_at),
  }));
}

/** The tenant's own source of a template, or null: the caller then uses its built-in default. */
export async function readTemplate(sql: Sql, tenantId: string, code: TemplateCode): Promise<string | null> {
  const [row] = await findTemplates(sql, tenantId, code);
  return row?.source ?? null;
}
