import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { notFound } from "../errors.ts";
import { positionToString } from "../eventstore/eventStore.ts";
import { listQuarantine, type QuarantinedEvent } from "../projections/quarantine.ts";
import { chooseForQuarantined } from "../projections/quarantineCommands.ts";
import {
  createApiKey,
  createTenant,
  createWorkerKey,
  findTenant,
  listApiKeys,
  listTenants,
  listWorkerKeys,
  revokeApiKey,
  revokeWorkerKey,
} from "../tenants/tenants.ts";
import { PERMISSIONS } from "./auth.ts";
import { offsetOf, pageQuery, sendPage } from "./pagination.ts";
import { answers, errorResponses, noContent, timestamp } from "./responses.ts";

/** Admin lists are short (tenants, a tenant's keys): page them in memory. */
function sendSlice<T>(request: FastifyRequest, reply: FastifyReply, all: T[]) {
  const q = request.query as { page: number; limit: number };
  const items = all.slice(offsetOf(q), offsetOf(q) + q.limit);
  return sendPage(request, reply, { items, total: all.length, page: q.page, limit: q.limit });
}

const tenantBody = z.strictObject({ id: z.guid(), name: z.string(), created_at: timestamp });
const permissions = z.array(z.string()).describe("Permissions, e.g. LesseeRead, PropertiesWrite");
const apiKeyBody = z.strictObject({
  id: z.guid(),
  tenant_id: z.guid(),
  name: z.string(),
  permissions,
  key_prefix: z.string(),
  created_at: timestamp,
  revoked_at: timestamp.nullable(),
});
const createdKeyBody = z
  .strictObject({ id: z.guid(), name: z.string(), permissions, key: z.string(), created_at: timestamp })
  .describe("The key's secret is shown here once");
const workerKeyBody = apiKeyBody.omit({ permissions: true });
const createdWorkerKeyBody = createdKeyBody
  .omit({ permissions: true })
  .describe("The key's secret is shown here once");
const quarantinedBody = z
  .strictObject({
    event_id: z.guid(),
    stream_name: z.string(),
    tenant_id: z.guid(),
    event_type: z.string(),
    position: z.string(),
    error: z.string(),
    held_by: z.guid().nullable().describe("The earlier event of the same stream this one waits behind"),
    attempts: z.number().int(),
    quarantined_at: z.date(),
  })
  .describe("An event the projection could not apply, set aside for its tenant");
const projectionBody = z.strictObject({
  name: z.string(),
  version: z.number().int(),
  checkpoint: z.string(),
  events_applied: z.number().int(),
  lag: z.number().nullable().describe("Events behind the head of the log"),
  status: z.string(),
  last_error: z.string().nullable(),
  updated_at: z.date(),
  quarantine: z.array(quarantinedBody).describe("Events set aside, in log order (the first 100)"),
  quarantined: z.number().int().describe("Events in the quarantine"),
});
const quarantineChoiceBody = z.strictObject({
  projection: z.string(),
  event_id: z.guid(),
  status: z
    .enum(["applied", "skipped", "quarantined", "accepted"])
    .describe("accepted: the projector has not acted on the choice yet"),
  error: z.string().nullable(),
});
const rebuildBody = z.strictObject({
  projection: z.string(),
  job_id: z.string(),
  status: z.literal("queued"),
});

const idParam = z.object({ id: z.uuid() });
const tenantParam = z.object({ tenant_id: z.uuid() });

const tags = ["Admin"];

/**
 * Platform administration, behind PMS_ADMIN_API_KEY (docs/architecture.md §5): tenants, their
 * API and worker keys, projections. Registered in this order (the API description's order).
 */
export async function adminRoutes(app: FastifyInstance) {
  tenantRoutes(app);
  apiKeyRoutes(app);
  workerKeyRoutes(app);
  projectionRoutes(app);
}

function tenantRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.post(
    "/api/admin/tenants",
    {
      schema: {
        tags,
        body: z.strictObject({ name: z.string().trim().min(1).max(255) }),
        response: { 201: tenantBody, ...errorResponses },
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { name } = request.body as { name: string };
      const tenant = await createTenant(sql, name);
      return reply.status(201).header("location", `/api/admin/tenants/${tenant.id}`).send(tenant);
    },
  );

  // Lists follow docs/architecture.md §4 like every other list: page/limit, X-Total-Count, Link.
  app.get(
    "/api/admin/tenants",
    {
      schema: { tags, querystring: z.object(pageQuery), response: answers(z.array(tenantBody)) },
      config: { access: "admin" },
    },
    async (request, reply) => sendSlice(request, reply, await listTenants(sql)),
  );

  // The Location of a created tenant.
  app.get(
    "/api/admin/tenants/:tenant_id",
    { schema: { tags, params: tenantParam, response: answers(tenantBody) }, config: { access: "admin" } },
    async (request) => {
      const { tenant_id } = request.params as { tenant_id: string };
      const tenant = await findTenant(sql, tenant_id);
      if (!tenant) throw notFound("Tenant", tenant_id);
      return tenant;
    },
  );
}

function apiKeyRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.post(
    "/api/admin/tenants/:tenant_id/api-keys",
    {
      schema: {
        tags,
        params: tenantParam,
        body: z.strictObject({
          name: z.string().trim().min(1).max(255),
          permissions: z.array(z.enum(PERMISSIONS)).min(1),
        }),
        response: { 201: createdKeyBody, ...errorResponses },
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { tenant_id } = request.params as { tenant_id: string };
      const body = request.body as { name: string; permissions: (typeof PERMISSIONS)[number][] };
      const tenant = await findTenant(sql, tenant_id);
      if (!tenant) throw notFound("Tenant", tenant_id);
      const key = await createApiKey(sql, tenant.id, body.name, body.permissions);
      return reply.status(201).send({
        id: key.id,
        name: key.name,
        permissions: key.permissions,
        key: key.key,
        created_at: key.created_at,
      });
    },
  );

  app.get(
    "/api/admin/tenants/:tenant_id/api-keys",
    {
      schema: {
        tags,
        params: tenantParam,
        querystring: z.object(pageQuery),
        response: answers(z.array(apiKeyBody)),
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { tenant_id } = request.params as { tenant_id: string };
      if (!(await findTenant(sql, tenant_id))) throw notFound("Tenant", tenant_id);
      return sendSlice(request, reply, await listApiKeys(sql, tenant_id));
    },
  );

  app.delete(
    "/api/admin/api-keys/:id",
    {
      schema: { tags, params: idParam, response: { 204: noContent, ...errorResponses } },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!(await revokeApiKey(sql, id))) throw notFound("API key", id);
      return reply.status(204).send();
    },
  );
}

/** Worker keys (docs/security.md): for the Workers area's routes, sent in X-API-Key. */
function workerKeyRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.post(
    "/api/admin/tenants/:tenant_id/worker-keys",
    {
      schema: {
        tags,
        params: tenantParam,
        body: z.strictObject({ name: z.string().trim().min(1).max(255) }),
        response: { 201: createdWorkerKeyBody, ...errorResponses },
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { tenant_id } = request.params as { tenant_id: string };
      const { name } = request.body as { name: string };
      const tenant = await findTenant(sql, tenant_id);
      if (!tenant) throw notFound("Tenant", tenant_id);
      const key = await createWorkerKey(sql, tenant.id, name);
      return reply.status(201).send({ id: key.id, name: key.name, key: key.key, created_at: key.created_at });
    },
  );

  app.get(
    "/api/admin/tenants/:tenant_id/worker-keys",
    {
      schema: {
        tags,
        params: tenantParam,
        querystring: z.object(pageQuery),
        response: answers(z.array(workerKeyBody)),
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { tenant_id } = request.params as { tenant_id: string };
      if (!(await findTenant(sql, tenant_id))) throw notFound("Tenant", tenant_id);
      return sendSlice(request, reply, await listWorkerKeys(sql, tenant_id));
    },
  );

  app.delete(
    "/api/admin/worker-keys/:id",
    {
      schema: { tags, params: idParam, response: { 204: noContent, ...errorResponses } },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      if (!(await revokeWorkerKey(sql, id))) throw notFound("Worker key", id);
      return reply.status(204).send();
    },
  );
}

/** Each projection's checkpoint row, with its lag behind the head of the log. */
async function listProjections(app: FastifyInstance) {
  const head = await app.platform.store.headPosition({ past_other_databases: true });
  const rows = await app.platform.sql.query(
    `SELECT name, version, commit_position::text AS c, prepare_position::text AS p, events_applied,
            status, last_error, updated_at FROM projection_checkpoints ORDER BY name`,
  );
  const quarantine = await listQuarantine(app.platform.sql);
  return Promise.all(
    rows.map(async (r) => ({
      ...quarantineOf(quarantine.filter((q) => q.projection === r.name)),
      name: r.name,
      version: r.version,
      checkpoint: positionToString({ commit: BigInt(r.c), prepare: BigInt(r.p) }),
      events_applied: r.events_applied,
      lag: await app.platform.projections.lagOf(r.name, head),
      status: r.status,
      last_error: r.last_error,
      updated_at: r.updated_at,
    })),
  );
}

function quarantineOf(events: QuarantinedEvent[]) {
  return {
    quarantine: events.slice(0, 100).map(({ projection: _, position, ...q }) => ({
      ...q,
      position: positionToString(position),
    })),
    quarantined: events.length,
  };
}

/**
 * An operator's retry or skip of a quarantined event (docs/operations.md, "Quarantine"): an
 * event of the log, in the quarantined event's tenant, that the projector acts on. The answer
 * waits for it as a command's answer waits for its read model.
 */
function quarantineRoutes(app: FastifyInstance) {
  for (const action of ["retry", "skip"] as const) {
    app.post(
      `/api/admin/projections/:name/quarantine/:event_id/${action}`,
      {
        schema: {
          tags,
          summary: action === "retry" ? "Apply a quarantined event again" : "Drop a quarantined event",
          params: z.object({ name: z.string().min(1).max(100), event_id: z.uuid() }),
          response: { ...answers(quarantineChoiceBody), 202: quarantineChoiceBody },
        },
        config: { access: "admin" },
      },
      async (request, reply) => {
        const { name, event_id } = request.params as { name: string; event_id: string };
        const { platform } = app;
        const [found] = await listQuarantine(platform.sql, { projection: name, event_id });
        if (!found) throw notFound("Quarantined event", event_id);
        const position = await chooseForQuarantined(
          platform.store,
          {
            tenant_id: found.tenant_id,
            actor_key_id: null,
            correlation_id: String(request.id),
            causation_id: found.event_id,
            occurred_at: new Date().toISOString(),
          },
          { action, projection: name, event_id: found.event_id, quarantined: true },
        );
        const answer = { projection: name, event_id: found.event_id };
        const seen =
          !position ||
          (await platform.projections.waitFor(position, platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS));
        if (!seen) return reply.status(202).send({ ...answer, status: "accepted", error: null });
        const [still] = await listQuarantine(platform.sql, { projection: name, event_id });
        if (still) return { ...answer, status: "quarantined", error: still.error };
        return { ...answer, status: action === "retry" ? "applied" : "skipped", error: null };
      },
    );
  }
}

function projectionRoutes(app: FastifyInstance) {
  const projectionsSchema = { tags, response: answers(z.array(projectionBody)) };
  app.get("/api/admin/projections", { schema: projectionsSchema, config: { access: "admin" } }, () =>
    listProjections(app),
  );

  app.post(
    "/api/admin/projections/:name/rebuild",
    {
      schema: {
        tags,
        params: z.object({ name: z.string().min(1).max(100) }),
        response: { 202: rebuildBody, ...errorResponses },
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const job = await app.platform.jobs.requestRebuild(name);
      if (!job) throw notFound("Projection", name);
      return reply.status(202).send({ projection: name, job_id: job, status: "queued" });
    },
  );
  quarantineRoutes(app);
}
