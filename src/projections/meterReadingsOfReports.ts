import type { ConditionReportEvent } from "../events/conditionReports.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `condition_report_meter_readings`: one row per condition report, its readings of named meters
 * (`meter_id` set) and whether it is signed. The meters' worker records the readings of a signed
 * report on their meters and stamps `recorded_at`; the projection never writes that column or
 * `outcomes`, so a live batch cannot undo them (docs/charges.md, "Readings of condition reports").
 */
const HANDLED = [
  "ConditionReportDrafted",
  "ConditionReportRevised",
  "ConditionReportSigned",
] as const satisfies readonly ConditionReportEvent["type"][];

type Handled = Extract<ConditionReportEvent, { type: (typeof HANDLED)[number] }>;

export const meterReadingsOfReportsProjection = rowProjection<Handled>({
  name: "condition_report_meter_readings",
  version: 1,
  table: "condition_report_meter_readings",
  columns: ["tenant_id", "id", "read_on", "readings", "signed"],
  schema: `
CREATE TABLE condition_report_meter_readings (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  read_on date NOT NULL,
  readings jsonb NOT NULL,
  signed boolean NOT NULL,
  recorded_at timestamptz,
  outcomes jsonb
);
CREATE INDEX condition_report_meter_readings_pending ON condition_report_meter_readings (id)
  WHERE signed AND recorded_at IS NULL;
${tenantPolicy("condition_report_meter_readings")}`,
  handles: HANDLED,
  creates: ["ConditionReportDrafted"],
  idOf: (event) => event.data.report_id,
  evolve: (row, event) => {
    switch (event.type) {
      case "ConditionReportDrafted":
      case "ConditionReportRevised":
        return {
          read_on: event.data.date,
          readings: event.data.meter_readings.filter((r) => r.meter_id !== null),
          signed: false,
        };
      case "ConditionReportSigned":
        return row ? { ...row, signed: true } : null;
    }
  },
});
