import { type Verdict, verdict } from "./verdict.ts";

/**
 * Meter indexes and consumption (docs/charges.md, "Meters"). Pure: indexes in thousandths of the
 * meter's unit (integers, so no float rounding decides a consumption), dates YYYY-MM-DD.
 *
 * No statute fixes how an index becomes a consumption: these are the service's rules, stated in
 * the verdicts' reference so that nobody takes them for law.
 */

const METER_RULES = 'Service rule (docs/charges.md, "Meters"): no statutory text';

/** An index in thousandths of its unit (3 decimals at most). */
export const toMilli = (value: number): number => Math.round(value * 1000);
export const fromMilli = (milli: number): number => milli / 1000;

/** One unit: a counter at `rollover_at` goes to 0 in one unit (99,999 then 0 is 1). */
const ONE_UNIT = 1000;

/**
 * The consumption between two indexes: the difference, or across a rollover when the new index is
 * lower and the meter has one (99,900 then 50 with rollover_at 99,999 is 150). A lower index on a
 * meter without rollover_at is a FAIL: a meter does not run backwards (record a replacement).
 */
export function consumptionBetween(previous: number, current: number, rolloverAt: number | null): Verdict {
  if (current >= previous)
    return verdict("METER_CONSUMPTION", "PASS", "Index above the previous one", METER_RULES, {
      consumption: current - previous,
      rollover: false,
    });
  if (rolloverAt === null)
    return verdict(
      "METER_CONSUMPTION",
      "FAIL",
      `Index ${fromMilli(current)} is lower than the previous index ${fromMilli(previous)} and the meter has no rollover_at: a consumption is never negative (record a replacement if the meter was changed, or set rollover_at if its counter wrapped)`,
      METER_RULES,
      { errors: [{ field: "value", message: "Lower than the previous index" }] },
    );
  if (current > rolloverAt || previous > rolloverAt)
    return verdict(
      "METER_CONSUMPTION",
      "FAIL",
      `Index ${fromMilli(Math.max(current, previous))} is above the meter's rollover_at ${fromMilli(rolloverAt)}`,
      METER_RULES,
      { errors: [{ field: "value", message: "Above rollover_at" }] },
    );
  return verdict("METER_CONSUMPTION", "PASS", "Counter rolled over", METER_RULES, {
    consumption: rolloverAt - previous + ONE_UNIT + current,
    rollover: true,
  });
}

/** Days from `from` to `to` (dates YYYY-MM-DD, UTC arithmetic: no time of day involved). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** What the earlier non-estimated readings consumed, and over how many days. */
export interface ConsumptionHistory {
  consumption_milli: number;
  days: number;
}

/**
 * A reading is an anomaly when its daily consumption deviates more than 50 % from the average
 * daily consumption of the earlier non-estimated readings (their total consumption over their total
 * days). With no such history yet, nothing to compare: PASS. Compared in integers
 * (|c·D − C·d| · 2 > C·d), so the boundary (exactly 50 %) is not an anomaly.
 */
export function consumptionAnomaly(
  consumptionMilli: number,
  days: number,
  history: ConsumptionHistory,
): Verdict {
  if (history.days <= 0 || days <= 0)
    return verdict(
      "CONSUMPTION_ANOMALY",
      "NOT_APPLICABLE",
      "No earlier consumption to compare with",
      METER_RULES,
    );
  const c = BigInt(consumptionMilli);
  const d = BigInt(days);
  const total = BigInt(history.consumption_milli);
  const span = BigInt(history.days);
  const gap = c * span - total * d;
  const deviates = (gap < 0n ? -gap : gap) * 2n > total * d;
  const daily = consumptionMilli / days / 1000;
  const average = history.consumption_milli / history.days / 1000;
  const details = {
    daily_consumption: round3(daily),
    average_daily_consumption: round3(average),
    deviation_percent: average === 0 ? null : Math.round(((daily - average) / average) * 1000) / 10,
  };
  return deviates
    ? verdict(
        "CONSUMPTION_ANOMALY",
        "FAIL",
        `Daily consumption ${details.daily_consumption} deviates more than 50 % from the average ${details.average_daily_consumption}`,
        METER_RULES,
        details,
      )
    : verdict(
        "CONSUMPTION_ANOMALY",
        "PASS",
        "Daily consumption within 50 % of the average",
        METER_RULES,
        details,
      );
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Sub-meters against their parent over a period: the children's consumption may not exceed the
 * parent's (a sub-meter measures part of what its parent measures). FAIL flags it (a leak, a
 * misread, a wrong parent); UNKNOWN when the parent has no consumption over the period.
 */
export function subMetersWithinParent(
  parentMilli: number | null,
  children: { meter_id: string; consumption_milli: number | null }[],
): Verdict {
  const total = children.reduce((s, c) => s + (c.consumption_milli ?? 0), 0);
  const details = {
    parent_consumption: parentMilli === null ? null : fromMilli(parentMilli),
    children_consumption: fromMilli(total),
    children: children.map((c) => ({
      meter_id: c.meter_id,
      consumption: c.consumption_milli === null ? null : fromMilli(c.consumption_milli),
    })),
  };
  if (parentMilli === null)
    return verdict(
      "SUB_METERS_WITHIN_PARENT",
      "UNKNOWN",
      "The parent meter has no consumption over the period",
      METER_RULES,
      details,
    );
  return total > parentMilli
    ? verdict(
        "SUB_METERS_WITHIN_PARENT",
        "FAIL",
        `Sub-meters consumed ${fromMilli(total)}, more than their parent's ${fromMilli(parentMilli)}`,
        METER_RULES,
        details,
      )
    : verdict(
        "SUB_METERS_WITHIN_PARENT",
        "PASS",
        "Sub-meters within their parent's consumption",
        METER_RULES,
        details,
      );
}
