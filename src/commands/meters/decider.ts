import {
  evolveMeter,
  type MeterAnomaly,
  type MeterEvent,
  type MeterFields,
  type MeterState,
  noMeter,
  type ReadingSource,
  type RecordedReading,
} from "../../events/meters.ts";
import { consumptionAnomaly, consumptionBetween, daysBetween, fromMilli, toMilli } from "../../law/meters.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError, conflict, notFound, validationError } from "../../platform/errors.ts";

/** A meter's commands (docs/charges.md, "Meters"): the routes look facts up, the decider judges. */

export interface ReadingInput {
  reading_id: string;
  value: number;
  read_on: string;
  source: ReadingSource;
  media_id: string | null;
}

export type MeterCommand =
  | {
      type: "InstallMeter";
      meter_id: string;
      place_id: string;
      estate_id: string | null;
      fields: MeterFields;
    }
  | { type: "UpdateMeter"; meter_id: string; changes: Partial<MeterFields> }
  | { type: "RemoveMeter"; meter_id: string; sub_meters: number }
  /** One reading (POST .../readings: a refusal is the answer) or a batch (bulk: refusals are per item). */
  | { type: "RecordReadings"; meter_id: string; readings: ReadingInput[]; today: string }
  | {
      type: "ReplaceMeter";
      meter_id: string;
      replacement_id: string;
      on: string;
      final_index: number;
      new_serial: string | null;
      initial_index: number;
      today: string;
    };

export type ReadingOutcome =
  | {
      reading_id: string;
      status: "accepted" | "flagged";
      reading: RecordedReading;
      anomaly: MeterAnomaly | null;
    }
  | { reading_id: string; status: "rejected"; error: ApiError };

const refused = (status: "ValidationError" | "UnprocessableEntity", field: string, message: string) =>
  new ApiError(status, message, [{ field, message }]);

/** The index a new reading or replacement counts from, or the refusal of its date. */
function checkDate(state: MeterState, on: string, today: string, field: string): ApiError | null {
  if (on > today)
    return refused("ValidationError", field, `Must not be after today (${today}, Europe/Paris)`);
  if (state.baseline && on <= state.baseline.on)
    return refused(
      "UnprocessableEntity",
      field,
      `Must be after the meter's last reading or replacement (${state.baseline.on}): readings are recorded in date order`,
    );
  return null;
}

/**
 * Each reading judged in turn on the meter as the ones before it left it: accepted, flagged as an
 * anomaly (recorded all the same), or rejected with its reason (nothing recorded for it).
 */
export function judgeReadings(
  state: MeterState,
  meterId: string,
  readings: readonly ReadingInput[],
  today: string,
): { outcomes: ReadingOutcome[]; state: MeterState } {
  const outcomes: ReadingOutcome[] = [];
  let current = state;
  for (const input of readings) {
    const fields = current.fields;
    if (current.status !== "INSTALLED" || !fields) {
      outcomes.push({ reading_id: input.reading_id, status: "rejected", error: notFound("Meter", meterId) });
      continue;
    }
    const error = checkDate(current, input.read_on, today, "read_on");
    if (error) {
      outcomes.push({ reading_id: input.reading_id, status: "rejected", error });
      continue;
    }
    const value = toMilli(input.value);
    const rollover = fields.rollover_at === null ? null : toMilli(fields.rollover_at);
    if (rollover !== null && value > rollover) {
      outcomes.push({
        reading_id: input.reading_id,
        status: "rejected",
        error: refused(
          "UnprocessableEntity",
          "value",
          `Index ${input.value} is above the meter's rollover_at ${fields.rollover_at}`,
        ),
      });
      continue;
    }
    let consumption: number | null = null;
    let days: number | null = null;
    let anomaly: MeterAnomaly | null = null;
    if (current.baseline) {
      const judged = consumptionBetween(current.baseline.milli, value, rollover);
      if (judged.status === "FAIL") {
        outcomes.push({
          reading_id: input.reading_id,
          status: "rejected",
          error: refused("UnprocessableEntity", "value", judged.message),
        });
        continue;
      }
      consumption = judged.details.consumption as number;
      days = daysBetween(current.baseline.on, input.read_on);
      const judgedDaily = consumptionAnomaly(consumption, days, current.history);
      if (judgedDaily.status === "FAIL")
        anomaly = {
          meter_id: meterId,
          reading_id: input.reading_id,
          read_on: input.read_on,
          value: fromMilli(value),
          consumption: fromMilli(consumption),
          daily_consumption: judgedDaily.details.daily_consumption as number,
          average_daily_consumption: judgedDaily.details.average_daily_consumption as number,
        };
    }
    const reading: RecordedReading = {
      reading_id: input.reading_id,
      value: fromMilli(value),
      read_on: input.read_on,
      source: input.source,
      media_id: input.media_id,
      consumption: consumption === null ? null : fromMilli(consumption),
      days,
      anomaly: anomaly !== null,
    };
    outcomes.push({
      reading_id: input.reading_id,
      status: anomaly ? "flagged" : "accepted",
      reading,
      anomaly,
    });
    current = evolveMeter(current, {
      type: "MeterReadingsRecorded",
      data: { meter_id: meterId, readings: [reading] },
    });
  }
  return { outcomes, state: current };
}

/** The events of the readings judged: one event for the batch, one per anomaly beside it. */
export function readingEvents(meterId: string, outcomes: readonly ReadingOutcome[]): MeterEvent[] {
  const readings = outcomes.flatMap((o) => (o.status === "rejected" ? [] : [o.reading]));
  if (readings.length === 0) return [];
  const anomalies = outcomes.flatMap((o): MeterEvent[] =>
    o.status !== "rejected" && o.anomaly
      ? [{ type: "MeterConsumptionAnomalyDetected", data: o.anomaly }]
      : [],
  );
  return [{ type: "MeterReadingsRecorded", data: { meter_id: meterId, readings } }, ...anomalies];
}

function installed(state: MeterState, meterId: string): MeterFields {
  if (state.status !== "INSTALLED" || !state.fields) throw notFound("Meter", meterId);
  return state.fields;
}

function replace(command: Extract<MeterCommand, { type: "ReplaceMeter" }>, state: MeterState): MeterEvent[] {
  const fields = installed(state, command.meter_id);
  const error = checkDate(state, command.on, command.today, "on");
  if (error) throw error;
  const final = toMilli(command.final_index);
  const rollover = fields.rollover_at === null ? null : toMilli(fields.rollover_at);
  let consumption: number | null = null;
  if (state.baseline) {
    const judged = consumptionBetween(state.baseline.milli, final, rollover);
    if (judged.status === "FAIL") throw refused("UnprocessableEntity", "final_index", judged.message);
    consumption = fromMilli(judged.details.consumption as number);
  }
  if (rollover !== null && toMilli(command.initial_index) > rollover)
    throw refused(
      "UnprocessableEntity",
      "initial_index",
      `Above the meter's rollover_at ${fields.rollover_at}`,
    );
  return [
    {
      type: "MeterReplaced",
      data: {
        meter_id: command.meter_id,
        replacement_id: command.replacement_id,
        on: command.on,
        final_index: fromMilli(final),
        consumption,
        old_serial: fields.serial,
        new_serial: command.new_serial,
        initial_index: fromMilli(toMilli(command.initial_index)),
      },
    },
  ];
}

export const meterDecider: Decider<MeterState, MeterCommand, MeterEvent> = {
  initialState: noMeter,
  evolve: evolveMeter,
  decide(command, state) {
    switch (command.type) {
      case "InstallMeter": {
        if (state.status !== "NONE") throw conflict(`Meter ${command.meter_id} already exists`);
        const { meter_id, place_id, estate_id, fields } = command;
        return [{ type: "MeterInstalled", data: { meter_id, place_id, estate_id, ...fields } }];
      }
      case "UpdateMeter": {
        const fields = installed(state, command.meter_id);
        if (command.changes.type !== undefined && command.changes.type !== fields.type && state.readings > 0)
          throw validationError("Invalid meter data", [
            { field: "type", message: "Cannot be changed once the meter has readings" },
          ]);
        if (
          command.changes.rollover_at != null &&
          state.baseline &&
          toMilli(command.changes.rollover_at) < state.baseline.milli
        )
          throw validationError("Invalid meter data", [
            {
              field: "rollover_at",
              message: `Must not be below the last index (${fromMilli(state.baseline.milli)})`,
            },
          ]);
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(
            ([k, v]) =>
              v !== undefined && JSON.stringify(v) !== JSON.stringify(fields[k as keyof MeterFields]),
          ),
        ) as Partial<MeterFields>;
        return [{ type: "MeterUpdated", data: { meter_id: command.meter_id, changes } }];
      }
      case "RemoveMeter":
        installed(state, command.meter_id);
        if (command.sub_meters > 0)
          throw conflict(
            `Meter ${command.meter_id} has ${command.sub_meters} sub-meter(s): remove or re-attach them first`,
          );
        return [{ type: "MeterRemoved", data: { meter_id: command.meter_id } }];
      case "RecordReadings": {
        installed(state, command.meter_id);
        const { outcomes } = judgeReadings(state, command.meter_id, command.readings, command.today);
        return readingEvents(command.meter_id, outcomes);
      }
      case "ReplaceMeter":
        return replace(command, state);
    }
  },
};
