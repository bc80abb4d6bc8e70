import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyPluginAsync, LightMyRequestResponse } from "fastify";
import { z } from "zod";
import { type Config, loadConfig } from "../../src/platform/config.ts";
import type { Sql } from "../../src/platform/db.ts";
import type { Decider } from "../../src/platform/decider.ts";
import { conflict, notFound } from "../../src/platform/errors.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { iso } from "../../src/platform/formatDates.ts";
import { tenantOf } from "../../src/platform/http/auth.ts";
import { buildApp } from "../../src/platform/http/buildApp.ts";
import { setEtag } from "../../src/platform/http/etag.ts";
import { handleCommand, replyAfterProjection } from "../../src/platform/http/handleCommand.ts";
import { offsetOf, pageQuery, sendPage } from "../../src/platform/http/pagination.ts";
import { startJobs } from "../../src/platform/jobs.ts";
import type { Platform } from "../../src/platform/platform.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../../src/platform/projections/projection.ts";
import { runProjections } from "../../src/platform/projections/runProjections.ts";
import { ALL_PERMISSIONS, createApiKey, createTenant } from "../../src/platform/tenants/tenants.ts";
import { silentLog } from "./counterProjection.ts";
import { TEST_ADMIN_KEY, type TestTenant } from "./testApp.ts";
import { createTestDatabase, type DatabaseKind } from "./testDatabase.ts";

/**
 * A service assembled by hand from the platform parts (runtime, jobs, buildApp) with a test-only
 * area, "widgets", so the platform suites do not depend on the real areas. Widgets are the
 * smallest resource that exercises every HTTP convention: create (201 + Location, Idempotency-Key),
 * list (pagination), get (ETag), rename (If-Match), delete.
 */

type WidgetEvent =
  | { type: "WidgetCreated"; data: { name: string } }
  | { type: "WidgetRenamed"; data: { name: string } }
  | { type: "WidgetDeleted"; data: Record<string, never> };
type WidgetCommand =
  | { type: "CreateWidget"; id: string; name: string }
  | { type: "RenameWidget"; id: string; name: string }
  | { type: "DeleteWidget"; id: string };
interface WidgetState {
  status: "none" | "live" | "deleted";
  name: string | null;
}

export const widgetStream = (id: string) => `widget-${id}`;

export const widgetDecider: Decider<WidgetState, WidgetCommand, WidgetEvent> = {
  initialState: () => ({ status: "none", name: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case "WidgetCreated":
      case "WidgetRenamed":
        return { status: "live", name: event.data.name };
      case "WidgetDeleted":
        return { ...state, status: "deleted" };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "CreateWidget":
        if (state.status !== "none") throw conflict(`Widget ${command.id} exists already`);
        return [{ type: "WidgetCreated", data: { name: command.name } }];
      case "RenameWidget":
        if (state.status !== "live") throw notFound("Widget", command.id);
        return state.name === command.name ? [] : [{ type: "WidgetRenamed", data: { name: command.name } }];
      case "DeleteWidget":
        if (state.status !== "live") throw notFound("Widget", command.id);
        return [{ type: "WidgetDeleted", data: {} }];
    }
  },
};

export const widgetProjection: Projection = rowProjection<WidgetEvent>({
  name: "test_widgets",
  version: 1,
  table: "test_widgets",
  columns: ["tenant_id", "id", "name", "revision", "created_at", "updated_at"],
  schema: `
CREATE TABLE test_widgets (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  name text NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
${tenantPolicy("test_widgets")}`,
  handles: ["WidgetCreated", "WidgetRenamed", "WidgetDeleted"],
  idOf: (e) => e.stream_name.slice("widget-".length),
  evolve: (row, e) =>
    e.type === "WidgetDeleted"
      ? null
      : {
          name: e.data.name,
          revision: Number(e.stream_revision),
          created_at: row?.created_at ?? e.metadata.occurred_at,
          updated_at: e.metadata.occurred_at,
        },
});

const toWidget = (r: Row) => ({
  id: r.id,
  name: r.name,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

async function readWidget(sql: Sql, tenantId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query("SELECT * FROM test_widgets WHERE tenant_id = $1 AND id = $2", [tenantId, id]),
  );
  return row ? { body: toWidget(row), revision: Number(row.revision) } : null;
}

const widgetBody = z.strictObject({ name: z.string().trim().min(1).max(100) });
const idParams = z.object({ id: z.uuid() });
const tags = ["Widgets"];

export async function widgetRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.post(
    "/api/widgets",
    { schema: { tags, body: widgetBody }, config: { access: "PropertiesWrite" } },
    async (request, reply) => {
      const id = randomUUID();
      const { name } = request.body as z.output<typeof widgetBody>;
      const result = await handleCommand(request, widgetStream(id), widgetDecider, {
        type: "CreateWidget",
        id,
        name,
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id,
        location: `/api/widgets/${id}`,
        revision: result.revision,
        read: async () => (await readWidget(sql, tenantOf(request), id))?.body,
      });
    },
  );

  app.get(
    "/api/widgets",
    { schema: { tags, querystring: z.object(pageQuery) }, config: { access: "PropertiesRead" } },
    async (request, reply) => {
      const q = request.query as { page: number; limit: number };
      const tenant = tenantOf(request);
      const [rows, [{ n }]] = await sql.asTenant(tenant, async (tx) => [
        await tx.query(
          "SELECT * FROM test_widgets WHERE tenant_id = $1 ORDER BY name, id LIMIT $2 OFFSET $3",
          [tenant, q.limit, offsetOf(q)],
        ),
        await tx.query("SELECT count(*)::int AS n FROM test_widgets WHERE tenant_id = $1", [tenant]),
      ]);
      return sendPage(request, reply, { items: rows.map(toWidget), total: n, page: q.page, limit: q.limit });
    },
  );

  app.get(
    "/api/widgets/:id",
    { schema: { tags, params: idParams }, config: { access: "PropertiesRead" } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const found = await readWidget(sql, tenantOf(request), id);
      if (!found) throw notFound("Widget", id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  app.put(
    "/api/widgets/:id",
    { schema: { tags, params: idParams, body: widgetBody }, config: { access: "PropertiesWrite" } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { name } = request.body as z.output<typeof widgetBody>;
      const result = await handleCommand(
        request,
        widgetStream(id),
        widgetDecider,
        { type: "RenameWidget", id, name },
        { notFound: () => notFound("Widget", id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id,
        revision: result.revision,
        read: async () => (await readWidget(sql, tenantOf(request), id))?.body,
      });
    },
  );

  app.delete(
    "/api/widgets/:id",
    { schema: { tags, params: idParams }, config: { access: "PropertiesDelete" } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const result = await handleCommand(
        request,
        widgetStream(id),
        widgetDecider,
        { type: "DeleteWidget", id },
        { notFound: () => notFound("Widget", id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        read: async () => null,
      });
    },
  );

  // An unexpected failure (bad SQL): must answer 500 in the error shape, with no SQL or stack.
  app.post(
    "/api/widgets/:id/explode",
    { schema: { tags, params: idParams }, config: { access: "PropertiesWrite" } },
    async () => {
      await sql.query("SELECT secret_column FROM no_such_table_xyz");
      return {};
    },
  );
}

export interface PlatformApp {
  kind: DatabaseKind;
  app: FastifyInstance;
  platform: Platform;
  sql: Sql;
  store: EventStore;
  url?: string;
  tenant: TestTenant;
  other: TestTenant;
  newTenant(name?: string, permissions?: readonly string[]): Promise<TestTenant & { keyId: string }>;
  request(
    method: string,
    url: string,
    options?: {
      body?: unknown;
      as?: TestTenant | null;
      headers?: Record<string, string>;
      rawBody?: string | Buffer;
    },
  ): Promise<LightMyRequestResponse>;
  /** Another HTTP app over the same platform with other settings (e.g. a rate limit). */
  withConfig(overrides: Partial<Config>): Promise<FastifyInstance>;
  close(): Promise<void>;
}

let counter = 0;

export async function startPlatformApp(
  kind: DatabaseKind,
  options: {
    env?: Record<string, string>;
    projections?: Projection[];
    routes?: FastifyPluginAsync[];
    /** An existing database (not dropped on close). */
    database?: { sql: Sql; url?: string };
  } = {},
): Promise<PlatformApp> {
  const db = options.database
    ? { ...options.database, drop: async () => {} }
    : await createTestDatabase(kind);
  const config = loadConfig({
    LOG_LEVEL: "silent",
    PMS_ADMIN_API_KEY: TEST_ADMIN_KEY,
    PMS_RATE_LIMIT_PER_MINUTE: "0",
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...options.env,
  });
  const { sql } = db;
  const store = createPostgresEventStore(sql);
  const projections = [widgetProjection, ...(options.projections ?? [])];
  const runtime = runProjections({ sql, store, projections, log: silentLog });
  const jobs = await startJobs({ sql, store, projections, work: true, log: silentLog });
  const platform: Platform = { config, sql, store, projections: runtime, jobs, erasures: [] };
  const routes = [widgetRoutes, ...(options.routes ?? [])];
  const app = await buildApp(platform, routes);
  await app.ready();
  const extraApps: FastifyInstance[] = [];

  const newTenant = async (name = `tenant-${process.pid}-${++counter}`, permissions = ALL_PERMISSIONS) => {
    const t = await createTenant(sql, name);
    const k = await createApiKey(sql, t.id, "test", permissions as typeof ALL_PERMISSIONS);
    return { id: t.id, key: k.key, keyId: k.id };
  };
  const tenant = await newTenant();
  const other = await newTenant();
  return {
    kind,
    app,
    platform,
    sql,
    store,
    url: db.url,
    tenant,
    other,
    newTenant,
    request(method, url, opts = {}) {
      const as = opts.as === undefined ? tenant : opts.as;
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (as) headers.authorization = `Bearer ${as.key}`;
      let payload: string | Buffer | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        payload = JSON.stringify(opts.body);
        headers["content-type"] ??= "application/json";
      }
      return app.inject({ method: method as "GET", url, headers, payload });
    },
    async withConfig(overrides) {
      const other = await buildApp({ ...platform, config: { ...config, ...overrides } }, routes);
      await other.ready();
      extraApps.push(other);
      return other;
    },
    async close() {
      for (const a of extraApps) await a.close();
      await app.close();
      await jobs.stop();
      await runtime.stop();
      await store.close();
      await db.drop();
    },
  };
}
