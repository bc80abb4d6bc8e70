import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  type Configuration,
  configurationStream,
  defaultConfiguration,
  TEMPLATE_CODES,
  TEMPLATE_SAMPLES,
  type TemplateCode,
  templateStream,
} from "../events/settings.ts";
import type { Sql } from "../platform/db.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { readHistory } from "../platform/http/handleCommand.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers, historyBody } from "../platform/http/responses.ts";
import type { Row } from "../platform/projections/projection.ts";
import { configurationBody, templateBody, templateParams, templateSummary } from "./settingsSchemas.ts";

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
      "SELECT reminder_levels, receipt_numbering, sender, rent_messages, alert_emails, revision, updated_at FROM configurations WHERE tenant_id = $1 AND id = $1",
      [tenantId],
    ),
  );
  if (!row) return null;
  const configuration = {
    reminder_levels: row.reminder_levels,
    receipt_numbering: row.receipt_numbering,
    sender: { address: null, ...(row.sender as object) },
    ...(row.rent_messages ? { rent_messages: row.rent_messages } : {}),
    ...(row.alert_emails ? { alert_emails: row.alert_emails } : {}),
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

// ---------------------------------------------------------------------------------------------
// Routes: GET /api/configurations, /api/templates, /api/templates/{code}, and their history.

const access = { access: "SettingsRead" as const };
const tags = ["Settings"];

/** The configuration as the API shows it: saved or the defaults, with its revision (null: never saved). */
export async function configurationAnswer(sql: Sql, tenantId: string): Promise<Found & { revision: number }> {
  const found = await findConfiguration(sql, tenantId);
  if (!found)
    return {
      body: {
        ...(await defaultConfigurationOf(sql, tenantId)),
        customised: false,
        version: 0,
        updated_at: null,
      },
      revision: -1,
    };
  return {
    body: {
      ...found.configuration,
      customised: true,
      version: found.revision + 1,
      updated_at: found.updated_at,
    },
    revision: found.revision,
  };
}

const templateAnswer = (code: TemplateCode, row: TemplateRow | undefined) => ({
  code,
  source: row?.source ?? null,
  customised: row?.source != null,
  version: row ? row.revision + 1 : 0,
  updated_at: row?.updated_at ?? null,
});

/** A template as the API shows it, with its revision (-1: never saved, no ETag). */
export async function templateFound(sql: Sql, tenantId: string, code: TemplateCode) {
  const [row] = await findTemplates(sql, tenantId, code);
  return { body: templateAnswer(code, row), revision: row ? row.revision : -1 };
}

export const settingsQueries = async (app: FastifyInstance) => {
  const { sql } = app.platform;

  app.get(
    "/api/configurations",
    {
      schema: {
        tags,
        summary: "The tenant's configuration: saved, else the defaults (customised false)",
        response: answers(configurationBody),
      },
      config: access,
    },
    async (request, reply) => {
      const found = await configurationAnswer(sql, tenantOf(request));
      if (found.revision >= 0) setEtag(reply, found.revision);
      return found.body;
    },
  );

  app.get(
    "/api/configurations/history",
    {
      schema: {
        tags,
        summary: "The configuration's versions, oldest first (audit; paginated)",
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: access,
    },
    async (request, reply) =>
      sendSlice(
        request,
        reply,
        await readHistory(request, configurationStream(tenantOf(request)), null),
        request.query as { page: number; limit: number },
      ),
  );

  app.get(
    "/api/templates",
    {
      schema: {
        tags,
        summary: "Every template code with its version and whether the tenant customised it",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(templateSummary)),
      },
      config: access,
    },
    async (request, reply) => {
      const rows = new Map((await findTemplates(sql, tenantOf(request))).map((r) => [r.code, r]));
      const all = TEMPLATE_CODES.map((code) => {
        const { source: _, ...summary } = templateAnswer(code, rows.get(code));
        return summary;
      });
      return sendSlice(request, reply, all, request.query as { page: number; limit: number });
    },
  );

  app.get(
    "/api/templates/:code",
    {
      schema: {
        tags,
        summary: "A template: the tenant's source, or null when the built-in default applies",
        params: templateParams,
        response: answers(templateBody),
      },
      config: access,
    },
    async (request, reply) => {
      const { code } = request.params as { code: TemplateCode };
      const found = await templateFound(sql, tenantOf(request), code);
      if (found.revision >= 0) setEtag(reply, found.revision);
      return found.body;
    },
  );

  app.get(
    "/api/templates/:code/history",
    {
      schema: {
        tags,
        summary: "A template's versions, oldest first (each source saved, each reset; paginated)",
        params: templateParams,
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: access,
    },
    async (request, reply) => {
      const { code } = request.params as { code: TemplateCode };
      const history = await readHistory(request, templateStream(tenantOf(request), code), null);
      return sendSlice(request, reply, history, request.query as { page: number; limit: number });
    },
  );
};

/**
 * The variables of a code's sample view (TEMPLATE_SAMPLES) that `view` lacks, as dotted paths
 * (`call.paid_amount`, `lessees[].email`): an area rendering a tenant's template asserts none in its
 * tests, since a template that passed the check may use any of them (strict rendering).
 */
export function missingVariables(code: TemplateCode, view: unknown): string[] {
  const missing: string[] = [];
  const walk = (sample: unknown, value: unknown, path: string) => {
    if (Array.isArray(sample)) {
      if (!Array.isArray(value)) missing.push(path);
      else if (sample.length > 0 && value.length > 0) walk(sample[0], value[0], `${path}[]`);
      return;
    }
    if (sample === null || typeof sample !== "object") return;
    if (value === null || typeof value !== "object") {
      missing.push(path);
      return;
    }
    for (const [key, inner] of Object.entries(sample)) {
      const at = path ? `${path}.${key}` : key;
      if (!(key in value)) missing.push(at);
      else walk(inner, (value as Record<string, unknown>)[key], at);
    }
  };
  walk(TEMPLATE_SAMPLES[code], view, "");
  return missing;
}
