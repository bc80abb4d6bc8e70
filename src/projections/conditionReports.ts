import {
  type ConditionReportEvent,
  conditionReportEventTypes,
  evolveConditionReport,
} from "../events/conditionReports.ts";
import { type Projection, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `condition_reports`: one row per report, its content as JSON, status, signing day and the
 * tenant's completions (the fold of src/events/conditionReports.ts, kept in `state`).
 */
export const conditionReportsProjection: Projection = rowProjection<ConditionReportEvent>({
  name: "condition_reports",
  version: 1,
  table: "condition_reports",
  columns: [
    "tenant_id",
    "id",
    "lease_id",
    "type",
    "date",
    "status",
    "signed_on",
    "state",
    "revision",
    "created_at",
    "updated_at",
  ],
  schema: `
CREATE TABLE condition_reports (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  type text NOT NULL,
  date date NOT NULL,
  status text NOT NULL,
  signed_on date,
  state jsonb NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX condition_reports_lease ON condition_reports (tenant_id, lease_id, date, created_at);
${tenantPolicy("condition_reports")}`,
  handles: conditionReportEventTypes,
  creates: ["ConditionReportDrafted"],
  idOf: (event) => event.data.report_id,
  evolve: (row, event) => {
    const before = (row?.state as Parameters<typeof evolveConditionReport>[0] | undefined) ?? {
      status: "absent" as const,
    };
    const state = evolveConditionReport(before, event);
    if (state.status === "absent") return row;
    const at = event.metadata.occurred_at;
    return {
      lease_id: state.lease_id,
      type: state.content.type,
      date: state.content.date,
      status: state.status,
      signed_on: state.signed_on,
      state,
      revision: Number(event.stream_revision),
      created_at: row?.created_at ?? at,
      updated_at: at,
    };
  },
});
