import {
  type CompletedElement,
  type ConditionReportEvent,
  type ConditionReportState,
  evolveConditionReport,
  type ReportContent,
} from "../../events/conditionReports.ts";
import { completionWindowVerdict, DECRET_2016_382 } from "../../law/conditionReports.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, enforce, fieldError, notFound } from "../../platform/errors.ts";

/**
 * Condition reports (docs/moving.md): drafted and revised freely, signed once, then frozen; a
 * signed ENTRY report may be completed by the tenant within the window of art. 3-2.
 * The route has checked the lease, the rooms and the media of the body (400 / 404).
 */
export type ConditionReportCommand =
  | { type: "DraftConditionReport"; report_id: string; lease_id: string; content: ReportContent }
  | { type: "ReviseConditionReport"; report_id: string; lease_id: string; content: ReportContent }
  | { type: "SignConditionReport"; report_id: string; lease_id: string; signed_on: string }
  | {
      type: "CompleteEntryReport";
      report_id: string;
      lease_id: string;
      received_on: string;
      elements: CompletedElement[];
    };

type Live = Exclude<ConditionReportState, { status: "absent" }>;

/** The report of the path's lease, else 404 (another lease's report is unknown under this one). */
function existing(command: ConditionReportCommand, state: ConditionReportState): Live {
  if (state.status === "absent" || state.lease_id !== command.lease_id)
    throw notFound("Condition report", command.report_id);
  return state;
}

const frozen = (id: string) =>
  conflict(`Condition report ${id} is SIGNED: a signed report is frozen (${DECRET_2016_382})`);

function complete(command: Extract<ConditionReportCommand, { type: "CompleteEntryReport" }>, report: Live) {
  if (report.status !== "SIGNED" || report.signed_on === null)
    throw conflict(`Condition report ${command.report_id} is DRAFT: change it with PUT until it is signed`);
  if (report.content.type !== "ENTRY")
    throw conflict("Only an entry report may be completed by the tenant (loi n° 89-462 art. 3-2)");
  const names = new Set(report.content.rooms.map((r) => r.name.trim().toLowerCase()));
  command.elements.forEach((e, i) => {
    if (!names.has(e.room_name.trim().toLowerCase()))
      throw fieldError(`elements[${i}].room_name`, `The report has no room named ${e.room_name}`);
  });
  for (const e of command.elements)
    enforce(
      completionWindowVerdict({
        signed_on: report.signed_on,
        received_on: command.received_on,
        heating: e.heating,
      }),
    );
  return [
    {
      type: "ConditionReportCompleted" as const,
      data: {
        report_id: command.report_id,
        lease_id: command.lease_id,
        received_on: command.received_on,
        elements: command.elements,
      },
    },
  ];
}

export const conditionReportDecider: Decider<
  ConditionReportState,
  ConditionReportCommand,
  ConditionReportEvent
> = {
  initialState: () => ({ status: "absent" }),
  evolve: evolveConditionReport,
  decide(command, state) {
    const ids = { report_id: command.report_id, lease_id: command.lease_id };
    switch (command.type) {
      case "DraftConditionReport":
        if (state.status !== "absent") throw conflict(`Condition report ${command.report_id} already exists`);
        return [{ type: "ConditionReportDrafted", data: { ...ids, ...command.content } }];
      case "ReviseConditionReport":
        if (existing(command, state).status !== "DRAFT") throw frozen(command.report_id);
        return [{ type: "ConditionReportRevised", data: { ...ids, ...command.content } }];
      case "SignConditionReport": {
        const report = existing(command, state);
        if (report.status !== "DRAFT") throw frozen(command.report_id);
        if (command.signed_on < report.content.date)
          throw fieldError("signed_on", `Must not be before the report's date ${report.content.date}`);
        return [{ type: "ConditionReportSigned", data: { ...ids, signed_on: command.signed_on } }];
      }
      case "CompleteEntryReport":
        return complete(command, existing(command, state));
      default: {
        const exhaustive: never = command;
        return exhaustive;
      }
    }
  },
};
