import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Decider } from "../decider.ts";
import { notFound } from "../errors.ts";
import { tenantOf } from "../http/auth.ts";
import { setEtag } from "../http/etag.ts";
import { handleCommand, newResourceId, readHistory } from "../http/handleCommand.ts";
import { afterQuery, itemColumns, type ListSource, pageSql, runCachedJsonPage } from "../http/jsonPage.ts";
import { pageQuery, sendJsonCursorPage, sendJsonPage, sendSlice } from "../http/pagination.ts";
import { replyWithResource } from "../http/replyWithResource.ts";
import { answers, createdAnswers, deletedAnswers, historyBody, updatedAnswers } from "../http/responses.ts";
import { uuid } from "../http/schemas.ts";
import { type Facts, notUnderParent, type ResourceCommand, type ResourceState } from "./decider.ts";
import { readResource } from "./read.ts";
import {
  applyFilters,
  type CreateInput,
  mounts,
  type Resource,
  type ResourceEvent,
  type UpdateInput,
} from "./resource.ts";

/**
 * The standard routes of a resource (docs/architecture.md, "How to add an area"): POST, PUT
 * (omitted keeps, null removes) and DELETE in `src/commands/<area>/`, GET list (paging, filters),
 * GET one and history in `src/queries/<area>.ts`. ETag, If-Match and read-your-writes come from
 * handleCommand and replyWithResource, Idempotency-Key from the platform's hook.
 */

type Params = Record<string, string>;
/** Runs first on every route of the resource, e.g. 404 unless the parent of the path exists. */
export type Within = (request: FastifyRequest, params: Params) => Promise<unknown>;

/** `:name` params of a path, each a UUID (lower-cased). */
const paramsOf = (path: string, extra: string[] = []) => {
  const names = [...[...path.matchAll(/:(\w+)/g)].map((m) => m[1]), ...extra];
  return names.length > 0
    ? { params: z.strictObject(Object.fromEntries(names.map((n) => [n, uuid()]))) }
    : {};
};
const fill = (path: string, params: Params) => path.replace(/:(\w+)/g, (_, name: string) => params[name]);

type Extra<X extends Facts, K extends keyof Facts> = X[K] extends object ? X[K] : object;
interface Context {
  tenantId: string;
  id: string;
  params: Params;
}

export interface CommandRouteOptions<R extends Resource, X extends Facts> {
  within?: Within;
  /** Facts from other areas' queries for each command (the decider's rules read them). */
  facts?: {
    create?: (request: FastifyRequest, c: Context & { input: CreateInput<R> }) => Promise<Extra<X, "create">>;
    update?: (request: FastifyRequest, c: Context & { input: UpdateInput<R> }) => Promise<Extra<X, "update">>;
    delete?: (request: FastifyRequest, c: Context) => Promise<Extra<X, "delete">>;
  };
  /**
   * A create whose body is not JSON (media's multipart upload): the OpenAPI of its body (`uploadBody`),
   * and `create` reading the request into the command's input and running `record` with it (null: it
   * has answered, e.g. an Idempotency-Key replay).
   */
  upload?: {
    body: object;
    create: <T>(
      request: FastifyRequest,
      reply: FastifyReply,
      id: string,
      record: (input: CreateInput<R>) => Promise<T>,
    ) => Promise<T | null>;
  };
}

/** POST, PUT and DELETE of a resource. */
export function resourceCommandRoutes<R extends Resource, X extends Facts = Facts>(
  resource: R,
  decider: Decider<ResourceState<R>, ResourceCommand<R, X>, ResourceEvent<R>>,
  options: CommandRouteOptions<R, X> = {},
) {
  const { path, idKey, parentKey, label, access, summaries, commands } = resource;
  const item = `${path}/:${idKey}`;
  const tags = [resource.tag];
  const bodyConfig = resource.invalidBodyMessage ? { invalidBodyMessage: resource.invalidBodyMessage } : {};
  const facts = options.facts ?? {};
  const { upload } = options;

  return async (app: FastifyInstance) => {
    const { sql } = app.platform;
    /** The command of the request (its type, the path's ids, the body, the facts), run. */
    const run = async (request: FastifyRequest, id: string, kind: keyof Facts, body = request.body) => {
      const params = request.params as Params;
      const tenantId = tenantOf(request);
      await options.within?.(request, params);
      const input = body as CreateInput<R> & UpdateInput<R>;
      const parent = parentKey ? { [parentKey]: params[parentKey] } : {};
      const found = (await facts[kind]?.(request, { tenantId, id, params, input })) ?? {};
      const command = { type: commands[kind], [idKey]: id, ...parent, input, ...found };
      const result = await handleCommand(
        request,
        resource.stream(id),
        decider,
        command as unknown as ResourceCommand<R, X>,
        // A create's id and every command's event ids come from the request (its Idempotency-Key).
        kind === "create" ? {} : { notFound: () => notFound(label, id) },
      );
      const read = () => readResource(sql, resource, tenantId, id);
      return { id, position: result.position, read, params };
    };
    const schema = (kind: keyof Facts, url: string) => ({
      tags,
      summary: summaries?.[kind],
      ...paramsOf(url),
    });
    const idOf = (request: FastifyRequest) => (request.params as Params)[idKey];

    if (mounts(resource, "create"))
      app.post(
        path,
        {
          schema: {
            ...schema("create", path),
            ...(upload ? upload.body : { body: resource.createSchema }),
            response: createdAnswers(resource.body),
          },
          config: { access: access.write, ...bodyConfig },
        },
        async (request, reply) => {
          const id = newResourceId(request);
          const ran = upload
            ? await upload.create(request, reply, id, (input) => run(request, id, "create", input))
            : await run(request, id, "create");
          if (!ran) return reply;
          const { params, ...done } = ran;
          return replyWithResource(request, reply, 201, {
            ...done,
            location: `${fill(path, params)}/${done.id}`,
          });
        },
      );

    if (mounts(resource, "update"))
      app.put(
        item,
        {
          schema: {
            ...schema("update", item),
            body: resource.updateSchema,
            response: updatedAnswers(resource.body),
          },
          config: { access: access.write, ...bodyConfig },
        },
        async (request, reply) => {
          const { params: _, ...done } = await run(request, idOf(request), "update");
          return replyWithResource(request, reply, 200, done);
        },
      );

    if (mounts(resource, "delete"))
      app.delete(
        item,
        {
          schema: { ...schema("delete", item), response: deletedAnswers },
          config: { access: access.delete },
        },
        async (request, reply) => {
          const { id, position } = await run(request, idOf(request), "delete");
          return replyWithResource(request, reply, 204, { id, position });
        },
      );
  };
}

/** GET list (paging and the declared filters, under the parent of the path), GET one, history. */
export function resourceQueryRoutes(resource: Resource, options: { within?: Within } = {}) {
  const { path, idKey, parentKey, label, access, summaries } = resource;
  const item = `${path}/:${idKey}`;
  const tags = [resource.tag];
  const filters = Object.entries(resource.filters ?? {});
  const listQuery = z.strictObject({
    ...pageQuery,
    ...Object.fromEntries(filters.map(([name, f]) => [name, f.schema])),
    after: afterQuery,
  });
  const source: ListSource = {
    table: resource.table,
    // In the response schema's order: its serialiser's, which GET one answers with.
    item: itemColumns(Object.keys(resource.body.shape), { numeric: resource.numericColumns }),
  };
  const config = { access: access.read };

  return async (app: FastifyInstance) => {
    const { sql } = app.platform;

    if (mounts(resource, "list"))
      app.get(
        path,
        {
          schema: {
            tags,
            summary: summaries?.list,
            ...paramsOf(path),
            querystring: listQuery,
            response: answers(z.array(resource.body)),
          },
          config,
        },
        async (request, reply) => {
          const tenantId = tenantOf(request);
          const params = request.params as Params;
          await options.within?.(request, params);
          const query = request.query as Record<string, string> & {
            page: number;
            limit: number;
            after?: string;
          };
          const where = ["tenant_id = $1"];
          const values: unknown[] = [tenantId];
          if (parentKey) {
            values.push(params[parentKey]);
            where.push(`${parentKey} = $${values.length}`);
          }
          const keys = where.length;
          applyFilters(resource.filters ?? {}, query, where, values);
          // One statement: the total and the page as JSON (docs/performance.md, "Lists at scale");
          // without a filter the total is the maintained count of the tenant's (parent's) rows.
          const filter = where.join(" AND ");
          const count =
            where.length === keys
              ? `SELECT coalesce(sum(n), 0)::int AS total FROM ${resource.table}_counts
               WHERE tenant_id = $1 AND ${parentKey ? "parent_id = $2" : "parent_id IS NULL"}`
              : `SELECT count(*)::int AS total FROM ${resource.table} WHERE ${filter}`;
          // Cached (readCache.ts): the table and its counts are the resource's projection's.
          const { json, total, next } = await runCachedJsonPage(
            app,
            tenantId,
            resource.table,
            pageSql(source, filter, values, count, query),
          );
          const { page, limit } = query;
          if (query.after !== undefined)
            return sendJsonCursorPage(request, reply, { json, total, next, limit });
          return sendJsonPage(request, reply, { json, total, page, limit });
        },
      );

    if (mounts(resource, "get"))
      app.get(
        item,
        {
          schema: { tags, summary: summaries?.get, ...paramsOf(item), response: answers(resource.body) },
          config,
        },
        async (request, reply) => {
          const params = request.params as Params;
          await options.within?.(request, params);
          const id = params[idKey];
          const found = await readResource(sql, resource, tenantOf(request), id);
          if (!found) throw notFound(label, id);
          if (parentKey && found.parent_id !== params[parentKey])
            throw notUnderParent(resource, id, params[parentKey]);
          setEtag(reply, found.revision);
          return found.body;
        },
      );

    if (!resource.history || !mounts(resource, "history")) return;
    app.get(
      `${item}/history`,
      {
        schema: {
          tags,
          summary: summaries?.history,
          ...paramsOf(item),
          querystring: z.strictObject(pageQuery),
          response: answers(historyBody),
        },
        config,
      },
      async (request, reply) => {
        const params = request.params as Params;
        await options.within?.(request, params);
        const id = params[idKey];
        const history = await readHistory(request, resource.stream(id), () => notFound(label, id));
        return sendSlice(request, reply, history, request.query as { page: number; limit: number });
      },
    );
  };
}
