import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { LESSEE_CATEGORIES, LESSEE_FIELDS, type LesseeCategory, lesseeStream } from "../events/lessees.ts";
import type { Sql } from "../platform/db.ts";
import { notFound, validationError } from "../platform/errors.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { iso, isoSql } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { readHistory } from "../platform/http/handleCommand.ts";
import { wildcardParam } from "../platform/http/openapi.ts";
import { pageQuery, readPage, sendPage, sendSlice } from "../platform/http/pagination.ts";
import { answers, historyBody, timestamp } from "../platform/http/responses.ts";
import type { Row } from "../platform/projections/projection.ts";
import { applyFilters, contactSearch } from "../platform/resource/resource.ts";
import { lesseesProjection } from "../projections/lessees.ts";
import { createLesseeSchema, INVALID_CATEGORY, isLesseeCategory, uuidSchema } from "./lesseesSchemas.ts";

/** GET routes of the Lessees area: read models only, except the audit history (the event log). */

const RESPONSE_COLUMNS = ["id", ...LESSEE_FIELDS, "created_at", "updated_at", "erased_at"] as const;
const SELECT = `${RESPONSE_COLUMNS.join(", ")}, revision`;
/**
 * A row that is already the answer: the response's columns in its order, timestamps as ISO text.
 * Lists and the bulk answer send these rows as they come, without a Date per timestamp nor a
 * copy per row (docs/performance.md, "List lessees").
 */
const SELECT_BODY = [
  "id",
  ...LESSEE_FIELDS,
  `${isoSql("created_at")} AS created_at`,
  `${isoSql("updated_at")} AS updated_at`,
  `${isoSql("erased_at")} AS erased_at`,
].join(", ");

/** A lessee as the API shows it: the fields of the create body (null when unset), id, timestamps. */
export const lesseeBody = z
  .strictObject({
    id: uuidSchema,
    // In the read model's column order: the serialiser writes keys in the schema's order.
    ...(Object.fromEntries(
      LESSEE_FIELDS.map((f) => [f, createLesseeSchema.shape[f]]),
    ) as typeof createLesseeSchema.shape),
    // Null once the lessee's personal data was erased (docs/personal-data.md).
    email: createLesseeSchema.shape.email.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    erased_at: timestamp
      .nullable()
      .describe("When the personal data was erased (GDPR art. 17); null otherwise"),
  })
  .meta({ id: "Lessee" });
export type LesseeBody = z.output<typeof lesseeBody>;

/** A read-model row as the API shows it: the documented fields, timestamps ISO, no tenant or revision. */
export function toLesseeResponse(row: Row): LesseeBody {
  const out: Record<string, unknown> = {};
  for (const c of RESPONSE_COLUMNS) out[c] = row[c] ?? null;
  out.created_at = iso(row.created_at);
  out.updated_at = iso(row.updated_at);
  out.erased_at = row.erased_at ? iso(row.erased_at) : null;
  return out as LesseeBody;
}

/**
 * The lessee as its read model holds it once the projector has applied `events` (its whole
 * stream, in order): the projection's own fold, so a command answers without reading the row
 * back (docs/performance.md, "Answers folded in memory"). Null when the stream ends deleted.
 */
export function lesseeFromEvents(
  events: readonly RecordedEvent[],
): { body: LesseeBody; revision: number } | null {
  const row = lesseesProjection.fold(events);
  return row ? { body: toLesseeResponse(row), revision: Number(row.revision) } : null;
}

export async function readLessee(
  sql: Sql,
  tenantId: string,
  id: string,
): Promise<{ body: LesseeBody; revision: number } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM lessees WHERE tenant_id = $1 AND id = $2`, [tenantId, id], {
      prepare: true,
    }),
  );
  return row ? { body: toLesseeResponse(row), revision: Number(row.revision) } : null;
}

/** Several lessees in the order of `ids` (bulk create answers); null when one is not projected yet. */
export async function readLessees(sql: Sql, tenantId: string, ids: string[]): Promise<LesseeBody[] | null> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<LesseeBody>(
      `SELECT ${SELECT_BODY} FROM lessees WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
      [tenantId, ids],
      { prepare: true },
    ),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  if (ids.some((id) => !byId.has(id))) return null;
  return ids.map((id) => byId.get(id)!);
}

const listQuery = z.strictObject({
  ...pageQuery,
  q: z.string().trim().min(1).max(255).optional().describe("Contained in the name, legal name or email"),
  category: z
    .string()
    .optional()
    .describe(`One of ${LESSEE_CATEGORIES.join(", ")}`),
  email: z.string().trim().min(1).max(254).optional().describe("Exact email, case-insensitive"),
});
type ListQuery = z.output<typeof listQuery>;
/** The SQL of the list's filters: the resource kit's, as owners and contacts have them. */
const LESSEE_FILTERS = contactSearch(z.enum(LESSEE_CATEGORIES));

const categoryError = (field: string) =>
  validationError(INVALID_CATEGORY, [{ field, message: `Must be one of ${LESSEE_CATEGORIES.join(", ")}` }]);

async function listLessees(
  sql: Sql,
  tenantId: string,
  query: ListQuery,
  category: LesseeCategory | undefined,
) {
  const where = ["tenant_id = $1"];
  const params: unknown[] = [tenantId];
  applyFilters(LESSEE_FILTERS, { ...query, category }, where, params);
  const { rows, total } = await readPage<LesseeBody>(sql, tenantId, {
    table: "lessees",
    select: SELECT_BODY,
    where: where.join(" AND "),
    params,
    page: query.page,
    limit: query.limit,
    prepare: true,
  });
  return { items: rows, total, page: query.page, limit: query.limit };
}

const idParams = z.strictObject({ id: uuidSchema });

const tag = { tags: ["Lessees"] };

export async function lesseeQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/lessees",
    {
      schema: {
        ...tag,
        summary: "List lessees",
        querystring: listQuery,
        response: answers(z.array(lesseeBody)),
      },
      config: { access: "LesseeRead" },
    },
    async (request, reply) => {
      const { category } = request.query;
      if (category !== undefined && !isLesseeCategory(category)) throw categoryError("category");
      return sendPage(request, reply, await listLessees(sql, tenantOf(request), request.query, category));
    },
  );

  // A wildcard, because `company/other` holds a slash (sent as is or as company%2Fother).
  api.get(
    "/api/lessees/type/*",
    {
      schema: {
        ...tag,
        summary: "List lessees of one category (individual, company/other, guarantor)",
        ...wildcardParam(
          "type",
          z.enum(LESSEE_CATEGORIES).describe("company/other may be sent as company%2Fother"),
        ),
        querystring: listQuery.omit({ category: true }),
        response: answers(z.array(lesseeBody)),
      },
      config: { access: "LesseeRead" },
    },
    async (request, reply) => {
      const type = categoryOfPath(request);
      return sendPage(request, reply, await listLessees(sql, tenantOf(request), { ...request.query }, type));
    },
  );

  api.get(
    "/api/lessees/:id",
    {
      schema: { ...tag, summary: "Get a lessee", params: idParams, response: answers(lesseeBody) },
      config: { access: "LesseeRead" },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const found = await readLessee(sql, tenantOf(request), id);
      if (!found) throw notFound("Lessee", id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/lessees/:id/history",
    {
      schema: {
        ...tag,
        summary: "The lessee's events, oldest first (audit; paginated)",
        params: idParams,
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: { access: "LesseeRead" },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const history = await readHistory(request, lesseeStream(id), () => notFound("Lessee", id));
      // A registration fenced off before it happened never existed for clients.
      if (history[0]?.type === "LesseeRegistrationAbandoned") throw notFound("Lessee", id);
      return sendSlice(request, reply, history, request.query);
    },
  );
}

/** The router has already percent-decoded the wildcard, `company%2Fother` included. */
function categoryOfPath(request: FastifyRequest): LesseeCategory {
  const type = ((request.params as Record<string, string>)["*"] ?? "").replace(/\/+$/, "");
  if (!isLesseeCategory(type)) throw categoryError("type");
  return type;
}
