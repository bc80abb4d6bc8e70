import { type EstateDiagnosticEvent, estateDiagnosticEventTypes } from "../events/estateDiagnostics.ts";
import { type Projection, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

export const estateDiagnosticColumns = [
  "tenant_id",
  "id",
  "estate_id",
  "type",
  "active",
  "diagnosis_date",
  "valid_until",
  "reference",
  "provider",
  "notes",
  "media_id",
  "replaced_by",
  "deactivated_at",
  "created_at",
  "updated_at",
  "revision",
] as const;

/**
 * The `estate_diagnostics` read model: one row per diagnostic. All diagnostics of an estate share
 * one stream, so `revision` (the ETag, checked by If-Match on DELETE) is that stream's current
 * revision on every row of the estate.
 */
export const estateDiagnosticsProjection: Projection = rowProjection<EstateDiagnosticEvent>({
  name: "estate_diagnostics",
  version: 1,
  table: "estate_diagnostics",
  columns: estateDiagnosticColumns,
  schema: `
CREATE TABLE estate_diagnostics (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  type text NOT NULL,
  active boolean NOT NULL,
  diagnosis_date date NOT NULL,
  valid_until date,
  reference text,
  provider text,
  notes text,
  media_id uuid,
  replaced_by uuid,
  deactivated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX estate_diagnostics_estate ON estate_diagnostics (tenant_id, estate_id, created_at, id);
CREATE INDEX estate_diagnostics_estate_active ON estate_diagnostics (tenant_id, estate_id, active, created_at, id);
${tenantPolicy("estate_diagnostics")}`,
  handles: estateDiagnosticEventTypes,
  idOf: (event) => event.data.diagnostic_id,
  evolve(row, event) {
    const stamp = { updated_at: event.metadata.occurred_at, revision: Number(event.stream_revision) };
    switch (event.type) {
      case "EstateDiagnosticRecorded": {
        const { diagnostic_id: _id, ...data } = event.data;
        return {
          ...data,
          active: true,
          replaced_by: null,
          deactivated_at: null,
          created_at: event.metadata.occurred_at,
          ...stamp,
        };
      }
      case "EstateDiagnosticDeactivated":
        return (
          row && {
            ...row,
            active: false,
            replaced_by: event.data.replaced_by,
            deactivated_at: event.metadata.occurred_at,
            ...stamp,
          }
        );
      case "EstateDiagnosticDeleted":
        return null;
      default:
        return row;
    }
  },
  async after(tx, events) {
    const latest = new Map<string, number>();
    for (const e of events) {
      if (e.type.startsWith("EstateDiagnostic")) latest.set(e.data.estate_id, Number(e.stream_revision));
    }
    if (latest.size === 0) return;
    await tx.query(
      `UPDATE estate_diagnostics d SET revision = v.revision
       FROM unnest($1::uuid[], $2::bigint[]) AS v(estate_id, revision)
       WHERE d.estate_id = v.estate_id AND d.revision < v.revision`,
      [[...latest.keys()], [...latest.values()]],
    );
  },
});
