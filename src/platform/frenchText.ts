/**
 * Dates and times as a French reader reads them in a document (docs/documents.md): "1er décembre
 * 2026", "1er décembre 2026 à 22 h 52" (Europe/Paris, where the dwellings are).
 */

const MONTHS = [
  "janvier",
  "février",
  "mars",
  "avril",
  "mai",
  "juin",
  "juillet",
  "août",
  "septembre",
  "octobre",
  "novembre",
  "décembre",
];

const DAY = /^(\d{4})-(\d{2})-(\d{2})/;

/** `2026-12-01` -> `1er décembre 2026`; anything else -> null. */
export function frenchDate(day: string | null | undefined): string | null {
  const m = typeof day === "string" ? DAY.exec(day) : null;
  if (!m) return null;
  const d = Number(m[3]);
  return `${d === 1 ? "1er" : d} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

// Built once: a DateTimeFormat costs about a third of a millisecond to construct.
const inParis = new Intl.DateTimeFormat("en-CA", {
  timeZone: "Europe/Paris",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** An instant (ISO 8601) -> `1er décembre 2026 à 22 h 52`, in Paris time; null when not one. */
export function frenchDateTime(at: string | Date | null | undefined): string | null {
  if (at === null || at === undefined) return null;
  const date = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(date.getTime())) return null;
  const parts = Object.fromEntries(inParis.formatToParts(date).map((p) => [p.type, p.value]));
  return `${frenchDate(`${parts.year}-${parts.month}-${parts.day}`)} à ${Number(parts.hour)} h ${parts.minute}`;
}
