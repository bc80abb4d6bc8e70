/** Timestamps and dates as the API writes them (docs/conventions.md, "Shared kit"). */

/** A timestamp as ISO 8601 UTC (read models give Date objects); null stays null. */
export const iso = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : v instanceof Date
      ? v.toISOString()
      : new Date(String(v)).toISOString();

/** A date column (string or Date) as YYYY-MM-DD; null stays null. */
export const isoDay = (v: unknown): string | null =>
  v == null ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10);

// Built once: a DateTimeFormat costs about a third of a millisecond to construct.
const inParis = new Intl.DateTimeFormat("en-CA", {
  timeZone: "Europe/Paris",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/**
 * SQL for a timestamptz column as the text `iso` gives for it (UTC, milliseconds truncated as a
 * JS Date truncates them), so a read that only passes rows on need not build Date objects.
 */
export const isoSql = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Today's date in France, where the properties are: "future" and "current year" mean there. */
export function parisDate(at: Date | string = new Date()): string {
  return inParis.format(typeof at === "string" ? new Date(at) : at);
}
