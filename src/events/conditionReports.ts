import { allEventTypes } from "../platform/decider.ts";
import type { Condition } from "./equipment.ts";

/**
 * Condition reports, états des lieux (docs/design.md §7.3, docs/moving.md): one stream
 * `condition_report-<uuid>` per report of a lease, DRAFT until signed, then frozen; a signed entry
 * report may only be completed by the tenant (loi n° 89-462 art. 3-2).
 */

export const conditionReportStream = (id: string) => `condition_report-${id}`;

export const REPORT_TYPES = ["ENTRY", "EXIT"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export type ReportStatus = "DRAFT" | "SIGNED";

export interface ReportElement {
  element: string;
  condition: Condition;
  comment: string | null;
  media_ids: string[];
}

export interface ReportRoom {
  room_id: string | null;
  name: string;
  elements: ReportElement[];
}

/** What the parties write down (décret n° 2016-382 art. 2): rooms and elements, meters, keys. */
export interface ReportContent {
  type: ReportType;
  date: string;
  rooms: ReportRoom[];
  meter_readings: { meter_id: string | null; kind: string; value: number }[];
  keys: { kind: string; count: number }[];
}

/** An element the tenant completes a signed entry report with (a room of the report, by name). */
export interface CompletedElement extends ReportElement {
  room_name: string;
  heating: boolean;
}

export type ConditionReportEvent =
  | { type: "ConditionReportDrafted"; data: { report_id: string; lease_id: string } & ReportContent }
  | { type: "ConditionReportRevised"; data: { report_id: string; lease_id: string } & ReportContent }
  | { type: "ConditionReportSigned"; data: { report_id: string; lease_id: string; signed_on: string } }
  | {
      type: "ConditionReportCompleted";
      data: { report_id: string; lease_id: string; received_on: string; elements: CompletedElement[] };
    };

export const conditionReportEventTypes = allEventTypes<ConditionReportEvent["type"]>()([
  "ConditionReportDrafted",
  "ConditionReportRevised",
  "ConditionReportSigned",
  "ConditionReportCompleted",
]);

export type ConditionReportState =
  | { status: "absent" }
  | {
      status: ReportStatus;
      lease_id: string;
      content: ReportContent;
      signed_on: string | null;
      completions: { received_on: string; elements: CompletedElement[] }[];
    };

/** The one fold of a report, used by its decider and its projection. */
export function evolveConditionReport(
  state: ConditionReportState,
  event: ConditionReportEvent,
): ConditionReportState {
  switch (event.type) {
    case "ConditionReportDrafted": {
      const { report_id: _, lease_id, ...content } = event.data;
      return { status: "DRAFT", lease_id, content, signed_on: null, completions: [] };
    }
    case "ConditionReportRevised": {
      if (state.status === "absent") return state;
      const { report_id: _, lease_id: __, ...content } = event.data;
      return { ...state, content };
    }
    case "ConditionReportSigned":
      return state.status === "absent"
        ? state
        : { ...state, status: "SIGNED", signed_on: event.data.signed_on };
    case "ConditionReportCompleted":
      return state.status === "absent"
        ? state
        : {
            ...state,
            completions: [
              ...state.completions,
              { received_on: event.data.received_on, elements: event.data.elements },
            ],
          };
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** The rooms as completed by the tenant: a completed element replaces the one of that name, else is added. */
export function completedRooms(
  rooms: readonly ReportRoom[],
  completions: readonly { elements: readonly CompletedElement[] }[],
): ReportRoom[] {
  const out = rooms.map((r) => ({ ...r, elements: [...r.elements] }));
  const key = (s: string) => s.trim().toLowerCase();
  for (const c of completions)
    for (const { room_name, heating: _, ...element } of c.elements) {
      const room = out.find((r) => key(r.name) === key(room_name));
      if (!room) continue;
      const at = room.elements.findIndex((e) => key(e.element) === key(element.element));
      if (at >= 0) room.elements[at] = element;
      else room.elements.push(element);
    }
  return out;
}
