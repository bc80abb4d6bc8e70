import { describe, expect, it } from "vitest";
import {
  consumptionAnomaly,
  consumptionBetween,
  subMetersWithinParent,
  toMilli,
} from "../../src/law/meters.ts";

/** Consumption, rollover, anomaly and sub-meter rules (docs/charges.md, "Meters"), at their boundaries. */

const m = toMilli;

describe("consumptionBetween", () => {
  it.each([
    ["the same index", 100, 100, null, 0],
    ["a higher index", 100, 250.5, null, 150.5],
    ["99,900 then 50 with rollover_at 99,999 (docs/design.md §7.4)", 99900, 50, 99999, 150],
    ["rollover_at then 0 is one unit", 99999, 0, 99999, 1],
    ["a higher index on a meter with rollover_at", 10, 20, 99999, 10],
  ])("%s", (_, previous, current, rollover, expected) => {
    const v = consumptionBetween(m(previous), m(current), rollover === null ? null : m(rollover));
    expect(v.status).toBe("PASS");
    expect(v.details.consumption).toBe(m(expected));
  });

  it("refuses a lower index without rollover_at, with a clear message", () => {
    const v = consumptionBetween(m(1000), m(999.999), null);
    expect(v.status).toBe("FAIL");
    expect(v.message).toMatch(/999.999 is lower than the previous index 1000.*never negative/);
  });

  it("refuses an index above rollover_at", () => {
    expect(consumptionBetween(m(99999), m(5), m(9999)).status).toBe("FAIL");
  });
});

describe("consumptionAnomaly: more than 50 % off the average daily consumption", () => {
  // History: 100 over 10 days, 10 a day.
  const history = { consumption_milli: m(100), days: 10 };
  it.each([
    ["exactly +50 % (15 a day) is not an anomaly", 150, 10, "PASS"],
    ["just over +50 % is one", 150.001, 10, "FAIL"],
    ["exactly -50 % (5 a day) is not an anomaly", 50, 10, "PASS"],
    ["just under -50 % is one", 49.999, 10, "FAIL"],
    ["nothing at all is one", 0, 10, "FAIL"],
    ["the average itself", 30, 3, "PASS"],
  ])("%s", (_, consumption, days, status) => {
    expect(consumptionAnomaly(m(consumption), days, history).status).toBe(status);
  });

  it("has nothing to compare with before any history", () => {
    expect(consumptionAnomaly(m(999), 1, { consumption_milli: 0, days: 0 }).status).toBe("NOT_APPLICABLE");
  });

  it("after a history of zero, any consumption is an anomaly and none is not", () => {
    const flat = { consumption_milli: 0, days: 30 };
    expect(consumptionAnomaly(m(0.001), 1, flat).status).toBe("FAIL");
    expect(consumptionAnomaly(0, 1, flat).status).toBe("PASS");
  });
});

describe("subMetersWithinParent", () => {
  const child = (c: number | null) => ({ meter_id: "c", consumption_milli: c === null ? null : m(c) });
  it.each([
    ["children equal to the parent", 100, [60, 40], "PASS"],
    ["children over the parent by a thousandth", 100, [60, 40.001], "FAIL"],
    ["a child without readings counts nothing", 100, [null, 40], "PASS"],
  ])("%s", (_, parent, children, status) => {
    expect(subMetersWithinParent(m(parent), children.map(child)).status).toBe(status);
  });

  it("is UNKNOWN when the parent has no consumption over the period", () => {
    expect(subMetersWithinParent(null, [child(1)]).status).toBe("UNKNOWN");
  });
});
