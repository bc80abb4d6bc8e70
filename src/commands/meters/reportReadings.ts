import { legalToday } from "../../law/calendar.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { markReportReadingsRecorded, pendingReportReadings } from "../../queries/meters.ts";
import { recordReadings } from "./bulk.ts";

/**
 * Readings taken in condition reports (docs/charges.md, "Readings of condition reports"): once a
 * report is signed, each reading of a named meter is recorded on that meter as a MANUAL reading of
 * the report's date, judged as any other (consumption, rollover, anomaly) and refused the same way.
 * Its id derives from (report, meter): run again after a crash, the meter refuses the same date
 * twice, so a reading is never recorded twice.
 */
const BATCH = 50;

export async function recordReportReadings(deps: { sql: Sql; store: EventStore }): Promise<number> {
  const pending = await pendingReportReadings(deps.sql, BATCH);
  for (const report of pending) {
    const { outcomes } = await recordReadings(
      {
        store: deps.store,
        tenantId: report.tenant_id,
        metadata: {
          tenant_id: report.tenant_id,
          actor_key_id: null,
          correlation_id: `condition-report-${report.report_id}`,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      },
      report.readings.map((r) => ({
        meter_id: r.meter_id,
        reading_id: deterministicUuid("condition-report-reading", report.report_id, r.meter_id),
        value: r.value,
        read_on: report.read_on,
        source: "MANUAL" as const,
        media_id: null,
      })),
      legalToday(),
    );
    await markReportReadingsRecorded(
      deps.sql,
      report.report_id,
      outcomes.map((o, i) => ({
        meter_id: report.readings[i].meter_id,
        status: o.status,
        error: o.status === "rejected" ? o.error.message : null,
      })),
    );
  }
  return pending.length;
}

export const reportReadingsLoop: WorkerLoop = {
  name: "condition-report-readings",
  open: ({ sql, store }) => ({ run: () => recordReportReadings({ sql, store }) }),
};
