import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Sql } from "../db.ts";
import type { Decider } from "../decider.ts";
import { conflict, notFound } from "../errors.ts";
import { tenantOf } from "../http/auth.ts";
import { handleCommand, replyAfterProjection } from "../http/handleCommand.ts";
import { offsetOf, pageQuery, sendPage } from "../http/pagination.ts";
import { answers, createdAnswers } from "../http/responses.ts";
import { uuid } from "../http/schemas.ts";
import { deterministicUuid } from "../ids.ts";
import type { Row } from "../projections/projection.ts";
import { type ResourceCommand, type ResourceState, resourceDecider } from "./decider.ts";
import { pick } from "./read.ts";
import type { Resource, ResourceEvent } from "./resource.ts";

/**
 * A catalog (types): per kind of `kinds`, at `<path>/<segment>`, the global entries of the static
 * table `catalog` (tenant_id NULL) then the tenant's own, created only. An entry has a `code`
 * (from its `name` when absent), unique per kind among the global entries and the tenant's; its
 * id is derived from (tenant, kind, code), so two creations of one code meet on one stream.
 */

/** The global entries of the kind `$2`, then the tenant `$1`'s, each with its `scope`. */
const union = (r: Resource) => {
  const columns = r.responseColumns.filter((c) => c !== "scope").join(", ");
  return `
  SELECT ${columns}, 'global' AS scope, 0 AS scope_order FROM ${r.catalog} WHERE tenant_id IS NULL AND kind = $2
  UNION ALL
  SELECT ${columns}, 'tenant' AS scope, 1 AS scope_order FROM ${r.table} WHERE tenant_id = $1 AND kind = $2`;
};
const kindsOf = (r: Resource) => Object.entries(r.kinds ?? {});
/** Unnamed copies of the kit's schemas: openapi.ts documents an ETag for a named one; entries have none. */
const unnamed = (schema: z.ZodObject) => z.strictObject(schema.shape);
const labelOf = (r: Resource, kind: string) => `${kind[0].toUpperCase()}${kind.slice(1)} ${r.name}`;

export async function readCatalogEntry(sql: Sql, r: Resource, tenantId: string, kind: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM (${union(r)}) t WHERE id = $3`, [tenantId, kind, id], { prepare: true }),
  );
  return row ? pick(row, r.responseColumns) : null;
}

/** An entry as a scalar SQL expression (jsonb of id, code and name, or null) over SQL expressions. */
export const catalogEntrySql = (r: Resource, tenant: string, kind: string, id: string) =>
  `(SELECT jsonb_build_object('id', t.id, 'code', t.code, 'name', t.name) FROM (${union(r).replaceAll("$1", tenant).replaceAll("$2", kind)}) t WHERE t.id = ${id})`;

export async function globalCodeExists(sql: Sql, r: Resource, kind: string, code: string) {
  const rows = await sql.query(
    `SELECT 1 FROM ${r.catalog} WHERE tenant_id IS NULL AND kind = $1 AND code = $2`,
    [kind, code],
  );
  return rows.length > 0;
}

/** "Wine cellar" -> "wine_cellar"; accents folded, other characters become underscores. */
export function codeFromName(name: string, fallback: string): string {
  const code = name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64)
    .replace(/_+$/g, "");
  return code || fallback;
}

/** What the create route adds to the command: the kind of the path, whether the code is global. */
export type CatalogFacts = { create: { kind: string; code_in_global_catalog: boolean } };
type CatalogDecider<R extends Resource> = Decider<
  ResourceState<R>,
  ResourceCommand<R, CatalogFacts>,
  ResourceEvent<R>
>;

/** The kit's decider refusing a code already global or the tenant's: 409 on `code`. */
export const catalogDecider = <R extends Resource>(r: R): CatalogDecider<R> =>
  resourceDecider<R, CatalogFacts>(r, {
    creatable({ kind, code_in_global_catalog, input }, state) {
      if (!code_in_global_catalog && state.status === "absent") return;
      const { code } = input as { code: string };
      throw conflict(`A ${kind} ${r.name} with code ${code} already exists`, [
        { field: "code", message: `Already used by another ${r.name} of this kind` },
      ]);
    },
  });

/** POST of each kind: the tenant's entry. */
export function catalogCommandRoutes<R extends Resource>(r: R, decider: CatalogDecider<R>) {
  return async (app: FastifyInstance) => {
    const { sql } = app.platform;
    for (const [kind, segment] of kindsOf(r)) {
      const schema = { tags: [r.tag], summary: `Create a ${kind} ${r.name} of the tenant` };
      app.post(
        `${r.path}/${segment}`,
        {
          schema: { ...schema, body: unnamed(r.createSchema), response: createdAnswers(unnamed(r.body)) },
          config: { access: r.access.write },
        },
        async (request: FastifyRequest, reply) => {
          const tenantId = tenantOf(request);
          const body = request.body as { code?: string; name: string };
          const code = body.code ?? codeFromName(body.name, r.name);
          const id = deterministicUuid(r.name, tenantId, kind, code);
          const command = {
            type: r.commands.create,
            [r.idKey]: id,
            kind,
            input: { ...body, code },
            code_in_global_catalog: await globalCodeExists(sql, r, kind, code),
          };
          const result = await handleCommand(
            request,
            r.stream(id),
            decider,
            command as unknown as ResourceCommand<R, CatalogFacts>,
          );
          return replyAfterProjection(request, reply, {
            position: result.position,
            status: 201,
            id,
            location: `${r.path}/${segment}/${id}`,
            read: () => readCatalogEntry(sql, r, tenantId, kind, id),
          });
        },
      );
    }
  };
}

/** GET list (global first, then by name; `scope` filters) and GET one of each kind. */
export function catalogQueryRoutes(r: Resource) {
  const tags = [r.tag];
  const config = { access: r.access.read };
  const listQuery = z.strictObject({
    ...pageQuery,
    scope: z
      .enum(["global", "tenant"])
      .optional()
      .describe(`Only the global catalog or only the tenant's ${r.name}s`),
  });
  const params = z.strictObject({ [r.idKey]: uuid() });
  return async (app: FastifyInstance) => {
    const { sql } = app.platform;
    for (const [kind, segment] of kindsOf(r)) {
      app.get(
        `${r.path}/${segment}`,
        {
          schema: {
            tags,
            summary: `List ${kind} ${r.name}s (global catalog, then the tenant's)`,
            querystring: listQuery,
            response: answers(z.array(unnamed(r.body))),
          },
          config,
        },
        async (request, reply) => {
          const tenantId = tenantOf(request);
          const { scope, page, limit } = request.query as z.output<typeof listQuery>;
          const values: unknown[] = [tenantId, kind, ...(scope ? [scope] : [])];
          const filter = scope ? "WHERE scope = $3" : "";
          const result = await sql.asTenant(tenantId, async (tx) => {
            const from = `FROM (${union(r)}) t ${filter}`;
            const [{ total }] = await tx.query(`SELECT count(*)::int AS total ${from}`, values);
            const rows = await tx.query<Row>(
              `SELECT * ${from} ORDER BY scope_order, name, id
               LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
              [...values, limit, offsetOf({ page, limit })],
            );
            return { items: rows.map((row) => pick(row, r.responseColumns)), total, page, limit };
          });
          return sendPage(request, reply, result);
        },
      );

      app.get(
        `${r.path}/${segment}/:${r.idKey}`,
        {
          schema: { tags, summary: `Get a ${kind} ${r.name}`, params, response: answers(unnamed(r.body)) },
          config,
        },
        async (request) => {
          const id = (request.params as Record<string, string>)[r.idKey];
          const found = await readCatalogEntry(sql, r, tenantOf(request), kind, id);
          if (!found) throw notFound(labelOf(r, kind), id);
          return found;
        },
      );
    }
  };
}
