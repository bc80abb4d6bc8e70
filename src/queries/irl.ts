import { cents, euros, toEuros } from "../law/money.ts";
import { IRL_CAPPED_NOTE, indexCapCents, irlCapped } from "../law/rent.ts";
import type { Sql } from "../platform/db.ts";
import { offsetOf } from "../platform/http/pagination.ts";
import { quarter } from "./rentRegulationSchemas.ts";

/** The IRL (indice de référence des loyers, docs/rent-regulation.md): its values and the revision of a rent. */

/** An IRL value of a quarter. */
export interface IrlPoint {
  quarter: string;
  value: number;
}

export interface IrlValue extends IrlPoint {
  /** INSEE's publication day: the published one's, else the shipped one's where confirmed; null: not confirmed. */
  published_on: string | null;
  /** "shipped" (migration 060) or "published" (PUT by the platform administrator). */
  source: "shipped" | "published";
  note: string | null;
  /** Where a shipped value was confirmed (migration 127); null for a value PUT by the administrator. */
  source_reference?: string | null;
}

/** Shipped values, overridden by published ones; one row per quarter. */
const IRL_SELECT = `SELECT coalesce(v.quarter, s.quarter) AS quarter, coalesce(v.value, s.value) AS value,
    coalesce(v.published_on, s.published_on) AS published_on,
    CASE WHEN v.quarter IS NULL THEN 'shipped' ELSE 'published' END AS source,
    s.note, CASE WHEN v.quarter IS NULL THEN s.source_reference END AS source_reference, v.revision
  FROM irl_shipped s FULL JOIN irl_values v ON v.quarter = s.quarter`;

export const toIrl = (r: Record<string, unknown>): IrlValue => ({
  quarter: String(r.quarter),
  value: Number(r.value),
  published_on: (r.published_on as string | null) ?? null,
  source: r.source as IrlValue["source"],
  note: (r.note as string | null) ?? null,
  source_reference: (r.source_reference as string | null) ?? null,
});

/** The IRL of a quarter, or null when neither shipped nor published. Platform data: no tenant. */
export async function readIrl(sql: Sql, q: string): Promise<(IrlValue & { revision: number | null }) | null> {
  const [row] = await sql.query(`SELECT * FROM (${IRL_SELECT}) irl WHERE quarter = $1`, [q]);
  return row ? { ...toIrl(row), revision: row.revision == null ? null : Number(row.revision) } : null;
}

export async function listIrl(sql: Sql, paging: { page: number; limit: number }) {
  const rows = await sql.query(
    `SELECT *, count(*) OVER () AS total FROM (${IRL_SELECT}) irl ORDER BY quarter LIMIT $1 OFFSET $2`,
    [paging.limit, offsetOf(paging)],
  );
  const total =
    rows.length > 0
      ? Number(rows[0].total)
      : Number((await sql.query(`SELECT count(*)::int AS n FROM (${IRL_SELECT}) irl`))[0].n);
  return { items: rows.map(toIrl), total };
}

/** Every IRL value known, in quarter order (a few dozen rows of platform data). */
export async function readAllIrl(sql: Sql): Promise<IrlValue[]> {
  return (await sql.query(`SELECT * FROM (${IRL_SELECT}) irl ORDER BY quarter`)).map(toIrl);
}

/**
 * The day an IRL value counts as published: its recorded `published_on`, else INSEE's usual
 * calendar, the 15th of the month after the quarter (Q4 in January of the next year). Shipped values
 * carry no date (docs/decisions.md).
 */
export function irlPublishedOn(v: Pick<IrlValue, "quarter" | "published_on">): string {
  if (v.published_on) return String(v.published_on).slice(0, 10);
  const year = Number(v.quarter.slice(0, 4));
  const q = Number(v.quarter.slice(6));
  return q === 4 ? `${year + 1}-01-15` : `${year}-${String(q * 3 + 1).padStart(2, "0")}-15`;
}

/** The latest IRL published on or before a day (the index a new lease signed that day refers to). */
export function latestIrlOn(values: readonly IrlValue[], date: string): IrlPoint | null {
  const known = values.filter((v) => irlPublishedOn(v) <= date);
  const last = known.reduce<IrlValue | null>((a, v) => (a === null || v.quarter > a.quarter ? v : a), null);
  return last ? { quarter: last.quarter, value: last.value } : null;
}

/** The calculation of an IRL revision: loi n° 89-462, art. 17-1. */
export interface RentRevision {
  rent: number;
  reference: IrlPoint;
  new: IrlPoint;
  /** The highest revised rent, rent × new / reference, rounded down to the cent. */
  capped_rent: number;
  increase: number;
  formula: string;
  legal_reference: string;
  note: string | null;
}

/**
 * The capped rent of an IRL revision (loi n° 89-462, art. 17-1: the revised rent may not exceed
 * rent × IRL of the new quarter / IRL of the reference quarter). Computed in whole cents and
 * hundredths of index points, rounded down: one cent more is above the cap.
 */
export function rentRevision(reference: IrlPoint, next: IrlPoint, rent: number): RentRevision {
  const capped = indexCapCents(rent, reference.value, next.value);
  const capNote = irlCapped(next.quarter) ? IRL_CAPPED_NOTE(next.quarter) : null;
  return {
    rent,
    reference: { quarter: reference.quarter, value: reference.value },
    new: { quarter: next.quarter, value: next.value },
    capped_rent: toEuros(capped),
    increase: toEuros(capped - BigInt(cents(rent))),
    formula: `${rent.toFixed(2)} × ${next.value.toFixed(2)} / ${reference.value.toFixed(2)} = ${euros(capped)} (rounded down to the cent)`,
    legal_reference: "Loi n° 89-462 du 6 juillet 1989, art. 17-1",
    note: capNote,
  };
}

/** The revision from the IRL data, or why it cannot be computed (an unknown quarter). */
export async function irlRentRevision(
  sql: Sql,
  referenceQuarter: string,
  newQuarter: string,
  rent: number,
): Promise<{ status: "ok"; revision: RentRevision } | { status: "unknown"; reason: string }> {
  for (const q of [referenceQuarter, newQuarter]) {
    if (!quarter.safeParse(q).success) return { status: "unknown", reason: `${q} is not a quarter YYYY-Qn` };
  }
  const [reference, next] = await Promise.all([readIrl(sql, referenceQuarter), readIrl(sql, newQuarter)]);
  const missing = (q: string) =>
    `No IRL value for ${q}: INSEE has not published it yet, or its value is not confirmed here (never estimated)`;
  if (!next) return { status: "unknown", reason: missing(newQuarter) };
  if (!reference) return { status: "unknown", reason: missing(referenceQuarter) };
  return { status: "ok", revision: rentRevision(reference, next, rent) };
}
