import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Sql } from "../db.ts";

/** Query fields every list takes; spread into a route's querystring schema. */
export const pageQuery = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
};

export const offsetOf = (q: { page: number; limit: number }) => (q.page - 1) * q.limit;

/** X-Total-Count and an RFC 8288 Link header (first, prev, next, last), then the array. */
export function sendPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { items: T[]; total: number; page: number; limit: number },
) {
  setPageHeaders(request, reply, page);
  return reply.send(page.items);
}

/**
 * sendPage for a page whose JSON array PostgreSQL wrote (`json`, docs/performance.md, "DPE list
 * at scale"): sent as it is, not parsed into rows and serialised again. The SQL that writes it
 * must give what the route's response schema would (the route's tests compare).
 */
export function sendJsonPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { json: string; total: number; page: number; limit: number },
) {
  setPageHeaders(request, reply, page);
  return reply.header("content-type", "application/json; charset=utf-8").send(page.json);
}

/**
 * A keyset page (`after` cursors): X-Total-Count (all matching rows), and a Link header with
 * `first` (page 1) and, when more rows follow, `next` (this query with `after=<next>`).
 */
export function sendJsonCursorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { json: string; total: number; limit: number; next: string | null },
) {
  const base = new URL(request.url, "http://x");
  base.searchParams.delete("page");
  base.searchParams.set("limit", String(page.limit));
  const link = (after: string | null, rel: string) => {
    if (after === null) base.searchParams.delete("after");
    else base.searchParams.set("after", after);
    return `<${base.pathname}${base.search}>; rel="${rel}"`;
  };
  const links = [link(null, "first")];
  if (page.next !== null) links.push(link(page.next, "next"));
  reply.header("x-total-count", String(page.total));
  reply.header("link", links.join(", "));
  return reply.header("content-type", "application/json; charset=utf-8").send(page.json);
}

function setPageHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { total: number; page: number; limit: number },
) {
  const lastPage = Math.max(1, Math.ceil(page.total / page.limit));
  const base = new URL(request.url, "http://x");
  const link = (p: number, rel: string) => {
    base.searchParams.set("page", String(p));
    base.searchParams.set("limit", String(page.limit));
    return `<${base.pathname}${base.search}>; rel="${rel}"`;
  };
  const links = [link(1, "first")];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, lastPage), "prev"));
  if (page.page < lastPage) links.push(link(page.page + 1, "next"));
  links.push(link(lastPage, "last"));
  reply.header("x-total-count", String(page.total));
  reply.header("link", links.join(", "));
}

/** One page of a list already in memory (e.g. a stream's history), with the same headers. */
export const sendSlice = <T>(
  request: FastifyRequest,
  reply: FastifyReply,
  all: T[],
  q: { page: number; limit: number },
) =>
  sendPage(request, reply, {
    items: all.slice(offsetOf(q), offsetOf(q) + q.limit),
    total: all.length,
    page: q.page,
    limit: q.limit,
  });

/**
 * One page of a read-model table and the total, both read as the tenant (row-level security),
 * ordered by `created_at, id` so pages are stable. `where` uses `params` ($1 is the tenant).
 * `prepare`: both statements as prepared statements (docs/performance.md, "Prepared
 * statements"); for a list whose texts are few (one per filter combination).
 */
export async function readPage<R = Record<string, unknown>>(
  sql: Sql,
  tenantId: string,
  q: {
    table: string;
    select: string;
    where: string;
    params: unknown[];
    page: number;
    limit: number;
    prepare?: boolean;
  },
): Promise<{ rows: R[]; total: number }> {
  const options = { prepare: q.prepare ?? false };
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(
      `SELECT count(*)::int AS total FROM ${q.table} WHERE ${q.where}`,
      q.params,
      options,
    );
    const n = q.params.length;
    // The page is cut first and `select` computed over its rows only, not over the skipped ones
    // (a computed column such as isoSql costs per row). The outer ORDER BY names the table's
    // columns: a bare `created_at` would be the select's own `... AS created_at` (ISO text),
    // sorted without the index, every row of the tenant formatted (docs/performance.md, "List lessees").
    const rows = await tx.query<R>(
      `SELECT ${q.select} FROM (SELECT * FROM ${q.table} WHERE ${q.where} ORDER BY created_at, id
        LIMIT $${n + 1} OFFSET $${n + 2}) AS ${q.table} ORDER BY ${q.table}.created_at, ${q.table}.id`,
      [...q.params, q.limit, offsetOf(q)],
      options,
    );
    return { rows, total };
  });
}
