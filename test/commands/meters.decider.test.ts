import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  judgeReadings,
  type MeterCommand,
  meterDecider,
  type ReadingInput,
} from "../../src/commands/meters/decider.ts";
import { evolveMeter, type MeterEvent, type MeterFields, noMeter } from "../../src/events/meters.ts";
import { addDays } from "../../src/law/calendar.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** The meter's decider: readings judged on the stream's state, replacements, removal. */

const spec = deciderSpec(meterDecider);
const METER = "6b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
const PLACE = "7b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
const TODAY = "2026-06-15";
const fields = (rollover_at: number | null = null): MeterFields => ({
  type: "WATER_COLD",
  billing: "INDIVIDUAL",
  label: null,
  serial: "W-1",
  unit: "m3",
  rollover_at,
  parent_meter_id: null,
  lease_ids: [],
});
const installed = (rollover_at: number | null = null): MeterEvent => ({
  type: "MeterInstalled",
  data: { meter_id: METER, place_id: PLACE, estate_id: null, ...fields(rollover_at) },
});
const reading = (reading_id: string, value: number, read_on: string): ReadingInput => ({
  reading_id,
  value,
  read_on,
  source: "MANUAL",
  media_id: null,
});
const record = (...readings: ReadingInput[]): MeterCommand => ({
  type: "RecordReadings",
  meter_id: METER,
  readings,
  today: TODAY,
});

describe("meter decider", () => {
  it("records a reading batch as one event, its consumption counted from the one before", () => {
    const events = spec
      .given([installed()])
      .when(record(reading("r1", 10, "2026-01-01"), reading("r2", 30, "2026-01-11")))
      .thenEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "MeterReadingsRecorded",
      data: { readings: [{ consumption: null }, { consumption: 20, days: 10, anomaly: false }] },
    });
  });

  it("flags an anomaly with an event of its own beside the readings", () => {
    const events = spec
      .given([installed()])
      .when(
        record(
          reading("r1", 0, "2026-01-01"),
          reading("r2", 100, "2026-01-11"),
          reading("r3", 400, "2026-01-21"),
        ),
      )
      .thenEvents();
    expect(events.map((e) => e.type)).toEqual(["MeterReadingsRecorded", "MeterConsumptionAnomalyDetected"]);
    expect(events[1].data).toMatchObject({
      meter_id: METER,
      reading_id: "r3",
      daily_consumption: 30,
      average_daily_consumption: 10,
    });
  });

  it("does not count estimated readings in the average", () => {
    const state = [installed()].reduce(evolveMeter, noMeter());
    const { outcomes } = judgeReadings(
      state,
      METER,
      [
        reading("r1", 0, "2026-01-01"),
        { ...reading("r2", 1000, "2026-01-11"), source: "ESTIMATED" },
        reading("r3", 1010, "2026-01-21"),
        reading("r4", 1020, "2026-01-31"),
      ],
      TODAY,
    );
    // The estimate is not in the average: r4 is judged against r3's 1 a day only.
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
  });

  it("refuses a replacement dated before the last reading, and a lower final index", () => {
    const given = spec.given([
      installed(),
      {
        type: "MeterReadingsRecorded",
        data: {
          meter_id: METER,
          readings: [{ ...reading("r1", 50, "2026-03-01"), consumption: null, days: null, anomaly: false }],
        },
      },
    ]);
    const replace = (on: string, final_index: number): MeterCommand => ({
      type: "ReplaceMeter",
      meter_id: METER,
      replacement_id: "x",
      on,
      final_index,
      new_serial: null,
      initial_index: 0,
      today: TODAY,
    });
    given.when(replace("2026-02-01", 60)).thenRefuses(422, /after the meter's last reading/);
    given.when(replace("2026-04-01", 40)).thenRefuses(422, /lower than the previous index/);
    given.when(replace("2026-04-01", 60)).then([
      {
        type: "MeterReplaced",
        data: {
          meter_id: METER,
          replacement_id: "x",
          on: "2026-04-01",
          final_index: 60,
          consumption: 10,
          old_serial: "W-1",
          new_serial: null,
          initial_index: 0,
        },
      },
    ]);
  });

  it("refuses to remove a meter with sub-meters, and anything on a removed meter", () => {
    spec.given([installed()]).when({ type: "RemoveMeter", meter_id: METER, sub_meters: 1 }).thenRefuses(409);
    const removed: MeterEvent = { type: "MeterRemoved", data: { meter_id: METER } };
    spec
      .given([installed(), removed])
      .when(record(reading("r", 1, "2026-01-01")))
      .thenRefuses(404);
  });

  /** Any sequence of readings and replacements, on meters with or without rollover_at. */
  const step = fc.oneof(
    fc.record({
      kind: fc.constant("reading" as const),
      value: fc.integer({ min: 0, max: 99_999_000 }),
      gap: fc.integer({ min: 1, max: 60 }),
      estimated: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant("replacement" as const),
      value: fc.integer({ min: 0, max: 99_999_000 }),
      initial: fc.integer({ min: 0, max: 99_999_000 }),
      gap: fc.integer({ min: 1, max: 60 }),
    }),
  );

  it("never records a negative consumption, over any sequence of readings, rollovers and replacements", () => {
    fc.assert(
      fc.property(
        fc.option(fc.constant(99_999.999)),
        fc.array(step, { maxLength: 40 }),
        (rollover, steps) => {
          let state = [installed(rollover)].reduce(evolveMeter, noMeter());
          let date = "2020-01-01";
          steps.forEach((s, i) => {
            date = addDays(date, s.gap);
            const command: MeterCommand =
              s.kind === "reading"
                ? record({
                    ...reading(`r${i}`, s.value / 1000, date),
                    source: s.estimated ? "ESTIMATED" : "MANUAL",
                  })
                : {
                    type: "ReplaceMeter",
                    meter_id: METER,
                    replacement_id: `x${i}`,
                    on: date,
                    final_index: s.value / 1000,
                    new_serial: null,
                    initial_index: s.initial / 1000,
                    today: TODAY,
                  };
            let events: MeterEvent[] = [];
            try {
              events = meterDecider.decide(command, state);
            } catch {
              // A refusal writes nothing: the state stays.
            }
            for (const e of events) {
              if (e.type === "MeterReadingsRecorded")
                for (const r of e.data.readings) expect(r.consumption ?? 0).toBeGreaterThanOrEqual(0);
              if (e.type === "MeterReplaced") expect(e.data.consumption ?? 0).toBeGreaterThanOrEqual(0);
            }
            state = events.reduce(evolveMeter, state);
            // Without rollover_at a lower index is never accepted.
            expect(state.history.consumption_milli).toBeGreaterThanOrEqual(0);
          });
        },
      ),
    );
  });
});
