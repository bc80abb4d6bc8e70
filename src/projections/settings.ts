import {
  type ConfigurationEvent,
  configurationEventTypes,
  type TemplateEvent,
  templateEventTypes,
} from "../events/settings.ts";
import { deterministicUuid } from "../platform/ids.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * Read models of the settings (docs/settings.md): one row per tenant that saved its
 * configuration, one per (tenant, template code) ever saved (source null once reset to the
 * default). `revision` is the stream's: the ETag, and the version is revision + 1.
 */

const CONFIGURATIONS_DDL = `
CREATE TABLE configurations (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  reminder_levels jsonb NOT NULL,
  receipt_numbering jsonb NOT NULL,
  sender jsonb NOT NULL,
  rent_messages jsonb,
  alert_emails jsonb,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
${tenantPolicy("configurations")}`;

/** The configuration's row id is its tenant's: one per tenant. */
export const configurationsProjection = rowProjection<ConfigurationEvent>({
  name: "configurations",
  version: 2,
  table: "configurations",
  columns: [
    "tenant_id",
    "id",
    "reminder_levels",
    "receipt_numbering",
    "sender",
    "rent_messages",
    "alert_emails",
    "revision",
    "created_at",
    "updated_at",
  ],
  schema: CONFIGURATIONS_DDL,
  handles: configurationEventTypes,
  idOf: (event) => event.metadata.tenant_id,
  evolve: (row, event) => {
    switch (event.type) {
      case "ConfigurationSaved":
        return {
          ...event.data,
          rent_messages: event.data.rent_messages ?? null,
          alert_emails: event.data.alert_emails ?? null,
          revision: Number(event.stream_revision),
          created_at: row?.created_at ?? event.metadata.occurred_at,
          updated_at: event.metadata.occurred_at,
        };
    }
  },
});

const TEMPLATES_DDL = `
CREATE TABLE templates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  code text NOT NULL,
  source text,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (tenant_id, code)
);
${tenantPolicy("templates")}`;

/** A template's row id: derived from its tenant and code (rows are keyed by a UUID). */
export const templateRowId = (tenantId: string, code: string) =>
  deterministicUuid("template", tenantId, code);

export const templatesProjection = rowProjection<TemplateEvent>({
  name: "templates",
  version: 1,
  table: "templates",
  columns: ["tenant_id", "id", "code", "source", "revision", "created_at", "updated_at"],
  schema: TEMPLATES_DDL,
  handles: templateEventTypes,
  idOf: (event) => templateRowId(event.metadata.tenant_id, event.data.code),
  evolve: (row, event) => {
    const stamp = {
      code: event.data.code,
      revision: Number(event.stream_revision),
      created_at: row?.created_at ?? event.metadata.occurred_at,
      updated_at: event.metadata.occurred_at,
    };
    switch (event.type) {
      case "TemplateSaved":
        return { ...stamp, source: event.data.source };
      case "TemplateReset":
        return { ...stamp, source: null };
    }
  },
});

export const settingsProjections = [configurationsProjection, templatesProjection];
