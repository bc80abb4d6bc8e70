import { addDays, addMonths } from "./calendar.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Condition reports, état des lieux (docs/moving.md): loi n° 89-462 art. 3-2 and décret n° 2016-382
 * du 30 mars 2016. Pure: dates are YYYY-MM-DD days of Paris.
 */

export const DECRET_2016_382 = "décret n° 2016-382 du 30 mars 2016";
export const ART_3_2 = `${LOI_89}, art. 3-2`;

/** The condition scale, best first (the same as equipment's). */
export const CONDITION_RANK = { NEW: 0, GOOD: 1, FAIR: 2, POOR: 3 } as const;
export type ConditionGrade = keyof typeof CONDITION_RANK;

/**
 * The heating season is set by no text: 15 October is its usual start (to 15 April), the day
 * docs/decisions.md ("Heating season") takes. Its first month runs to 14 November.
 */
export const HEATING_SEASON_START = { month: 10, day: 15 } as const;

/** The first month of the first heating season whose first month has not ended by `signedOn`. */
export function heatingWindow(signedOn: string): { from: string; to: string } {
  const year = Number(signedOn.slice(0, 4));
  const startOf = (y: number) =>
    `${String(y).padStart(4, "0")}-${String(HEATING_SEASON_START.month).padStart(2, "0")}-${String(HEATING_SEASON_START.day).padStart(2, "0")}`;
  const windowOf = (from: string) => ({ from, to: addDays(addMonths(from, 1), -1) });
  const thisYear = windowOf(startOf(year));
  return thisYear.to >= signedOn ? thisYear : windowOf(startOf(year + 1));
}

export interface CompletionFacts {
  /** The day the entry report was signed (established by both parties). */
  signed_on: string;
  /** The day the tenant's request to complete it was received. */
  received_on: string;
  /** The element is part of the heating (radiator, boiler...): the heating season's window applies too. */
  heating: boolean;
}

const RULE = "ENTRY_REPORT_COMPLETION_WINDOW";

/**
 * Art. 3-2 al. 4 : the tenant may ask the lessor to complete the entry report within ten days
 * of its establishment, and for the heating elements during the first month of the heating
 * season. Ten days counted from the signing day: signed on the 1st, the 11th is the last day.
 */
export function completionWindowVerdict(facts: CompletionFacts): Verdict {
  const deadline = addDays(facts.signed_on, 10);
  const heating = facts.heating ? heatingWindow(facts.signed_on) : null;
  const details = {
    signed_on: facts.signed_on,
    received_on: facts.received_on,
    deadline,
    heating_window: heating,
  };
  if (facts.received_on < facts.signed_on)
    return verdict(
      RULE,
      "FAIL",
      `The request of ${facts.received_on} is before the report was signed on ${facts.signed_on}`,
      ART_3_2,
      {
        ...details,
        errors: [{ field: "received_on", message: `Must not be before the signing day ${facts.signed_on}` }],
      },
    );
  if (facts.received_on <= deadline)
    return verdict(
      RULE,
      "PASS",
      `Received within ten days of the signing (until ${deadline})`,
      ART_3_2,
      details,
    );
  if (heating && facts.received_on >= heating.from && facts.received_on <= heating.to)
    return verdict(
      RULE,
      "PASS",
      `A heating element, received in the first month of the heating season (${heating.from} to ${heating.to})`,
      ART_3_2,
      details,
    );
  const late = heating
    ? `after the ten days (until ${deadline}) and outside the first month of the heating season (${heating.from} to ${heating.to})`
    : `after the ten days following the signing (until ${deadline})`;
  return verdict(
    RULE,
    "FAIL",
    `The entry report can no longer be completed: received on ${facts.received_on}, ${late} (${ART_3_2})`,
    ART_3_2,
    {
      ...details,
      errors: [{ field: "received_on", message: `Too late: the ten days ended on ${deadline}` }],
    },
  );
}

export type Change = "WORSE" | "SAME" | "BETTER" | "ONLY_AT_ENTRY" | "ONLY_AT_EXIT";

/** The exit's condition against the entry's. */
export function changeOf(entry: ConditionGrade, exit: ConditionGrade): Change {
  const delta = CONDITION_RANK[exit] - CONDITION_RANK[entry];
  return delta > 0 ? "WORSE" : delta < 0 ? "BETTER" : "SAME";
}

export interface ReportRoom {
  room_id?: string | null;
  name: string;
  elements: { element: string; condition: ConditionGrade; comment?: string | null }[];
}

export interface ElementComparison {
  element: string;
  entry_condition: ConditionGrade | null;
  exit_condition: ConditionGrade | null;
  change: Change;
  entry_comment: string | null;
  exit_comment: string | null;
}

export interface RoomComparison {
  room_id: string | null;
  name: string;
  change: Change;
  elements: ElementComparison[];
}

const key = (s: string) => s.trim().toLowerCase();
/** Rooms meet by room_id when both have one, else by name (case and spaces ignored). */
const sameRoom = (a: ReportRoom, b: ReportRoom) =>
  a.room_id && b.room_id ? a.room_id === b.room_id : key(a.name) === key(b.name);

/** A room's change: its worst element's (a room only on one side is ONLY_AT_...). */
function roomChange(elements: ElementComparison[]): Change {
  const changes = new Set(elements.map((e) => e.change));
  for (const c of ["WORSE", "ONLY_AT_ENTRY", "ONLY_AT_EXIT", "BETTER"] as const) if (changes.has(c)) return c;
  return "SAME";
}

/**
 * The exit report against the entry report (décret 2016-382 art. 3 2° : the two are drawn so as to
 * be compared), room by room and element by element, in the entry's order then what the exit adds.
 */
export function compareRooms(entry: readonly ReportRoom[], exit: readonly ReportRoom[]): RoomComparison[] {
  const out: RoomComparison[] = [];
  const exitUsed = new Set<ReportRoom>();
  for (const before of entry) {
    const after = exit.find((r) => !exitUsed.has(r) && sameRoom(before, r)) ?? null;
    if (after) exitUsed.add(after);
    const elements: ElementComparison[] = [];
    const afterElements = after?.elements ?? [];
    const used = new Set<number>();
    for (const e of before.elements) {
      const i = afterElements.findIndex((x, n) => !used.has(n) && key(x.element) === key(e.element));
      const x = i >= 0 ? afterElements[i] : null;
      if (i >= 0) used.add(i);
      elements.push({
        element: e.element,
        entry_condition: e.condition,
        exit_condition: x?.condition ?? null,
        change: x ? changeOf(e.condition, x.condition) : "ONLY_AT_ENTRY",
        entry_comment: e.comment ?? null,
        exit_comment: x?.comment ?? null,
      });
    }
    afterElements.forEach((x, n) => {
      if (!used.has(n))
        elements.push({
          element: x.element,
          entry_condition: null,
          exit_condition: x.condition,
          change: "ONLY_AT_EXIT",
          entry_comment: null,
          exit_comment: x.comment ?? null,
        });
    });
    const change = after ? roomChange(elements) : "ONLY_AT_ENTRY";
    out.push({ room_id: before.room_id ?? after?.room_id ?? null, name: before.name, change, elements });
  }
  for (const after of exit) {
    if (exitUsed.has(after)) continue;
    out.push({
      room_id: after.room_id ?? null,
      name: after.name,
      change: "ONLY_AT_EXIT",
      elements: after.elements.map((x) => ({
        element: x.element,
        entry_condition: null,
        exit_condition: x.condition,
        change: "ONLY_AT_EXIT" as const,
        entry_comment: null,
        exit_comment: x.comment ?? null,
      })),
    });
  }
  return out;
}

/** The exit matches the entry: every element found on both sides in the same condition. */
export const exitMatchesEntry = (rooms: readonly RoomComparison[]): boolean =>
  rooms.every((r) => r.elements.every((e) => e.change === "SAME"));
