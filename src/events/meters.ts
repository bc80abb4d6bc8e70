import { daysBetween, toMilli } from "../law/meters.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Meters (docs/design.md §7.4, docs/charges.md "Meters"): one stream per meter, `meter-<uuid>`, holding
 * the meter's description, its readings (a batch of a meter's readings is one event), its
 * replacements and the anomalies its readings raised. `evolveMeter` is the one fold.
 */

export const METER_TYPES = ["ELECTRICITY", "GAS", "WATER_HOT", "WATER_COLD", "HEATING", "COOLING"] as const;
export type MeterType = (typeof METER_TYPES)[number];
export const METER_BILLINGS = ["INDIVIDUAL", "COLLECTIVE", "SHARED", "INCLUDED"] as const;
export type MeterBilling = (typeof METER_BILLINGS)[number];
export const READING_SOURCES = ["MANUAL", "AUTOMATIC", "PHOTO", "ESTIMATED"] as const;
export type ReadingSource = (typeof READING_SOURCES)[number];

/** The unit a meter reads in when none is given. */
export const DEFAULT_UNITS: Record<MeterType, string> = {
  ELECTRICITY: "kWh",
  GAS: "m3",
  WATER_HOT: "m3",
  WATER_COLD: "m3",
  HEATING: "kWh",
  COOLING: "kWh",
};

export const meterStream = (id: string) => `meter-${id}`;

/** What a client sets and changes on a meter. */
export interface MeterFields {
  type: MeterType;
  billing: MeterBilling;
  label: string | null;
  serial: string | null;
  unit: string;
  /** The highest index: the counter goes from it to 0 in one unit. */
  rollover_at: number | null;
  parent_meter_id: string | null;
  lease_ids: string[];
}

/** A reading as recorded, with what the service judged of it. */
export interface RecordedReading {
  reading_id: string;
  value: number;
  read_on: string;
  source: ReadingSource;
  media_id: string | null;
  /** Index minus the previous one (across a rollover); null for the meter's first reading. */
  consumption: number | null;
  /** Days since the previous reading (or replacement); null for the first reading. */
  days: number | null;
  anomaly: boolean;
}

export interface MeterReplacement {
  replacement_id: string;
  on: string;
  final_index: number;
  /** What the old meter counted since the last reading; null when it had none. */
  consumption: number | null;
  old_serial: string | null;
  new_serial: string | null;
  initial_index: number;
}

export interface MeterAnomaly {
  meter_id: string;
  reading_id: string;
  read_on: string;
  value: number;
  consumption: number;
  daily_consumption: number;
  average_daily_consumption: number;
}

export type MeterEvent =
  | {
      type: "MeterInstalled";
      data: { meter_id: string; place_id: string; estate_id: string | null } & MeterFields;
    }
  | { type: "MeterUpdated"; data: { meter_id: string; changes: Partial<MeterFields> } }
  | { type: "MeterRemoved"; data: { meter_id: string } }
  | { type: "MeterReadingsRecorded"; data: { meter_id: string; readings: RecordedReading[] } }
  | { type: "MeterReplaced"; data: { meter_id: string } & MeterReplacement }
  /** One per anomalous reading, beside it: the alert's source (webhook `meter.anomaly`). */
  | { type: "MeterConsumptionAnomalyDetected"; data: MeterAnomaly };

export const meterEventTypes = allEventTypes<MeterEvent["type"]>()([
  "MeterInstalled",
  "MeterUpdated",
  "MeterRemoved",
  "MeterReadingsRecorded",
  "MeterReplaced",
  "MeterConsumptionAnomalyDetected",
]);

/**
 * A meter as its commands need it. Indexes in thousandths (src/law/meters.ts). `baseline` is the
 * index the next reading's consumption counts from (the last reading, or a replacement's initial
 * index); `history` what the non-estimated readings consumed and over how many days (the anomaly
 * rule's average).
 */
export interface MeterState {
  status: "NONE" | "INSTALLED" | "REMOVED";
  place_id: string | null;
  estate_id: string | null;
  fields: MeterFields | null;
  baseline: { milli: number; on: string } | null;
  history: { consumption_milli: number; days: number };
  readings: number;
}

export const noMeter = (): MeterState => ({
  status: "NONE",
  place_id: null,
  estate_id: null,
  fields: null,
  baseline: null,
  history: { consumption_milli: 0, days: 0 },
  readings: 0,
});

const milli = toMilli;

export function evolveMeter(state: MeterState, event: MeterEvent): MeterState {
  switch (event.type) {
    case "MeterInstalled": {
      const { meter_id: _, place_id, estate_id, ...fields } = event.data;
      return { ...state, status: "INSTALLED", place_id, estate_id, fields };
    }
    case "MeterUpdated":
      return state.fields ? { ...state, fields: { ...state.fields, ...event.data.changes } } : state;
    case "MeterRemoved":
      return { ...state, status: "REMOVED" };
    case "MeterReadingsRecorded": {
      let { baseline, history } = state;
      for (const r of event.data.readings) {
        if (r.source !== "ESTIMATED" && r.consumption !== null && r.days !== null)
          history = {
            consumption_milli: history.consumption_milli + milli(r.consumption),
            days: history.days + r.days,
          };
        baseline = { milli: milli(r.value), on: r.read_on };
      }
      return { ...state, baseline, history, readings: state.readings + event.data.readings.length };
    }
    case "MeterReplaced": {
      const { on, consumption, new_serial, initial_index } = event.data;
      const days = state.baseline ? daysBetween(state.baseline.on, on) : 0;
      const history =
        consumption !== null && days > 0
          ? {
              consumption_milli: state.history.consumption_milli + milli(consumption),
              days: state.history.days + days,
            }
          : state.history;
      return {
        ...state,
        fields: state.fields ? { ...state.fields, serial: new_serial } : state.fields,
        baseline: { milli: milli(initial_index), on },
        history,
      };
    }
    case "MeterConsumptionAnomalyDetected":
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
