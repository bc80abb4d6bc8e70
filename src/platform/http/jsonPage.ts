import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Sql } from "../db.ts";
import { offsetOf } from "./pagination.ts";
import { projectionVersion, readCacheOf, textBytes } from "./readCache.ts";

/**
 * Lists at scale (docs/performance.md, "Lists at scale"): one prepared statement answers a page
 * and the total of the rows it pages over, the page as the JSON array the answer sends, written
 * by PostgreSQL (no row parsed and serialised again in node). Offset pages skip inside the
 * order's index, from the end for a page past the middle; keyset pages (`after`) start at their
 * cursor, so a deep page costs what the first does.
 */

/** A statement and its parameters, as `tx.query` takes them. */
export interface Statement {
  text: string;
  params: unknown[];
}

/** What a list pages over: a read-model table and how an answer item is written from its row. */
export interface ListSource {
  table: string;
  /** The item's columns over the row aliased `d`, in the answer's order (itemColumns). */
  item: string;
}

/** `to_char` pattern rendering a UTC timestamp exactly as `Date.prototype.toISOString` does. */
const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The item's SQL columns: `row_to_json` of them is the item fast-json-stringify writes from the
 * row pg parses. Timestamps as `toISOString` writes them, numerics as float8 (as pg's parser,
 * `parseFloat`, reads them); dates YYYY-MM-DD, uuids, text, booleans and jsonb as they are.
 */
export function itemColumns(
  columns: readonly string[],
  kinds: { numeric?: string[]; timestamps?: string[] },
) {
  const numeric = new Set(kinds.numeric ?? []);
  const timestamps = new Set(["created_at", "updated_at", ...(kinds.timestamps ?? [])]);
  return columns
    .map((c) =>
      timestamps.has(c)
        ? `to_char(d.${c} AT TIME ZONE 'UTC', ${ISO_UTC}) AS ${c}`
        : numeric.has(c)
          ? `d.${c}::float8 AS ${c}`
          : `d.${c}`,
    )
    .join(", ");
}

/** `after`: a keyset cursor, `<created_at in µs since 1970>_<id>` (16 digits at most: no time out of range). */
export const afterQuery = z
  .string()
  .regex(/^$|^-?\d{1,16}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
    error: 'must be empty or the cursor of a rel="next" link',
  })
  .optional()
  .describe(
    'Keyset paging: the page after this cursor (empty: the first page); the Link header\'s rel="next" gives the next cursor. `page` is then ignored. A deep page costs no more than the first.',
  );

/** The page's rows as one JSON array (list order), the total beside it. */
const answer = (total: string, keep = "") =>
  `SELECT ${total} AS total,
  coalesce('[' || string_agg(row_to_json(item)::text, ',' ORDER BY p.created_at, p.id)${keep} || ']', '[]') AS items`;
const join = (source: ListSource) => `FROM ids p JOIN ${source.table} d ON d.id = p.id AND d.tenant_id = $1
CROSS JOIN LATERAL (SELECT ${source.item}) item`;

/**
 * An offset page of the rows matching `where` (parameters $1..$n, $1 the tenant), ordered by
 * `created_at, id`. `countText` answers their number as `total`, over the same parameters.
 * Ids first: the offset is skipped inside the index of `(tenant_id, <filter>, created_at, id)`,
 * then only the page's rows are read by primary key; a page in the second half of the list is
 * taken from the end (the index scanned backward), so at most half of the entries are walked.
 * The total that picks the direction is computed in the same statement: one snapshot.
 */
export function offsetPageSql(
  source: ListSource,
  where: string,
  params: unknown[],
  countText: string,
  paging: { page: number; limit: number },
): Statement {
  const n = params.length;
  const limit = `$${n + 1}::int`;
  const offset = `$${n + 2}::int`;
  const total = "(SELECT total FROM total)";
  return {
    text: `WITH total AS MATERIALIZED (${countText}),
ids AS (
  (SELECT id, created_at FROM ${source.table}
   WHERE ${where} AND 2 * ${offset} + ${limit} <= ${total}
   ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset})
  UNION ALL
  -- The outer LIMIT tells the planner the page's size (it cannot estimate a computed one).
  (SELECT * FROM (SELECT id, created_at FROM ${source.table}
     WHERE ${where} AND 2 * ${offset} + ${limit} > ${total}
     ORDER BY created_at DESC, id DESC
     LIMIT greatest(least(${offset} + ${limit}, ${total}) - ${offset}, 0)
     OFFSET greatest(${total} - ${offset} - ${limit}, 0)) backward LIMIT ${limit})
)
${answer(total)}
${join(source)}`,
    params: [...params, paging.limit, offsetOf(paging)],
  };
}

/** A row's keyset cursor: its created_at in microseconds since 1970 and its id. */
const CURSOR = "(extract(epoch FROM d.created_at) * 1000000)::bigint || '_' || d.id";

/**
 * A keyset page (`after`): the `limit` rows following the cursor, read from the index from
 * there, plus one more to tell whether a next page exists; `next` is then the cursor of the
 * page's last row, else null. An empty `after` starts at the beginning.
 */
export function cursorPageSql(
  source: ListSource,
  where: string,
  params: unknown[],
  countText: string,
  paging: { after: string; limit: number },
): Statement {
  const n = params.length;
  const limit = `$${n + 1}::int`;
  const [micros, id] = paging.after === "" ? [null, null] : paging.after.split("_");
  const from =
    micros === null
      ? ""
      : `AND (created_at, id) > (timestamptz 'epoch' + $${n + 2}::bigint * interval '1 microsecond', $${n + 3}::uuid)`;
  return {
    text: `WITH total AS MATERIALIZED (${countText}),
ids AS (
  SELECT id, created_at, row_number() OVER (ORDER BY created_at, id) AS n FROM (
    SELECT id, created_at FROM ${source.table} WHERE ${where} ${from}
    ORDER BY created_at, id LIMIT ${limit} + 1) page
)
${answer("(SELECT total FROM total)", ` FILTER (WHERE p.n <= ${limit})`)},
  CASE WHEN count(*) > ${limit} THEN max(${CURSOR}) FILTER (WHERE p.n = ${limit}) END AS next
${join(source)}`,
    params: micros === null ? [...params, paging.limit] : [...params, paging.limit, micros, id],
  };
}

/** A page as sendJsonPage takes it: the JSON array of the items, the total, a keyset page's next cursor. */
export interface JsonPage {
  json: string;
  total: number;
  next: string | null;
}

/**
 * Runs a page statement on one reader connection, prepared: a list's texts are few (one per
 * filter combination), and planning was a fifth of its PostgreSQL time.
 */
export function runJsonPage(sql: Sql, tenantId: string, page: Statement): Promise<JsonPage> {
  return sql.asTenant(tenantId, async (tx) => {
    const [row] = await tx.query<{ total: number; items: string; next?: string | null }>(
      page.text,
      page.params,
      {
        prepare: true,
      },
    );
    return { json: row.items, total: Number(row.total), next: row.next ?? null };
  });
}

/**
 * runJsonPage through the app's read cache (readCache.ts): the page kept for the statement (its
 * text and parameters: the tenant and the normalised query) while the checkpoint of
 * `projection`, which writes every table the statement reads, has not moved.
 */
export function runCachedJsonPage(
  app: FastifyInstance,
  tenantId: string,
  projection: string,
  page: Statement,
): Promise<JsonPage> {
  const { sql } = app.platform;
  return readCacheOf(app).through(
    tenantId,
    `${page.text}\u0000${JSON.stringify(page.params)}`,
    () => projectionVersion(sql, projection),
    () => runJsonPage(sql, tenantId, page),
    (p) => textBytes(p.json) + 64,
  );
}

/** The offset or keyset page the query asks for. */
export function pageSql(
  source: ListSource,
  where: string,
  params: unknown[],
  countText: string,
  query: { page: number; limit: number; after?: string },
): Statement {
  return query.after === undefined
    ? offsetPageSql(source, where, params, countText, query)
    : cursorPageSql(source, where, params, countText, { after: query.after, limit: query.limit });
}
