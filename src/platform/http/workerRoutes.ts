import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { notFound } from "../errors.ts";
import { tenantOf } from "./auth.ts";
import { answers, errorResponses, timestamp } from "./responses.ts";
import { uuid } from "./schemas.ts";

/**
 * The Workers area (docs/specification.md; docs/operations.md, "Workers routes"): background workers queue the
 * service's jobs and read their status with a worker key in X-API-Key. One POST per kind of job,
 * its body the job's own input schema, so the OpenAPI document shows each; the kinds are the
 * platform's and those the areas declare (`app.platform.jobs.kinds`), no area code here.
 */
const tags = ["Workers"];

const jobKindBody = z.strictObject({
  queue: z.string(),
  description: z.string(),
  schedule: z.string().nullable().describe("Cron (UTC) of its scheduled runs, null when on demand only"),
  input: z.record(z.string(), z.unknown()).describe("JSON Schema of the body its POST takes"),
});

const queuedBody = z
  .strictObject({
    job_id: z.string(),
    queue: z.string(),
    state: z.literal("created"),
  })
  .describe("Queued; GET /api/workers/jobs/{queue}/{job_id} follows it");

const jobStatusBody = z.strictObject({
  job_id: z.string(),
  queue: z.string(),
  state: z.enum(["created", "retry", "active", "completed", "cancelled", "failed"]),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  output: z.record(z.string(), z.unknown()).nullable().describe("What the job returned, once completed"),
  error: z.string().nullable().describe("Why it failed (or why the last attempt did, while retrying)"),
});

const noInput = z.strictObject({});

export async function workerRoutes(app: FastifyInstance) {
  const { jobs } = app.platform;

  const kinds = jobs.kinds.map((kind) => ({
    queue: kind.queue,
    description: kind.description,
    schedule: kind.cron ?? null,
    input: z.toJSONSchema(kind.input ?? noInput, { io: "input", unrepresentable: "any" }),
  }));
  app.get(
    "/api/workers/jobs",
    {
      schema: {
        summary: "The kinds of job a worker may queue, with the JSON Schema of each input",
        tags,
        response: answers(z.array(jobKindBody)),
      },
      config: { access: "worker" },
    },
    async () => kinds,
  );

  for (const kind of jobs.kinds) {
    app.post(
      `/api/workers/jobs/${kind.queue}`,
      {
        schema: {
          tags,
          summary: kind.description,
          // No body at all reads as `{}`: a job without input needs none.
          body: z.preprocess((body) => body ?? {}, kind.input ?? noInput),
          response: { 202: queuedBody, ...errorResponses },
        },
        config: { access: "worker" },
      },
      async (request, reply) => {
        const job_id = await jobs.enqueue(kind.queue, request.body, { tenant_id: tenantOf(request) });
        reply.header("location", `/api/workers/jobs/${kind.queue}/${job_id}`);
        return reply.status(202).send({ job_id, queue: kind.queue, state: "created" });
      },
    );
  }

  app.get(
    "/api/workers/jobs/:queue/:job_id",
    {
      schema: {
        summary: "A queued job's state and output",
        tags,
        params: z.object({ queue: z.string().min(1).max(100), job_id: uuid() }),
        response: answers(jobStatusBody),
      },
      config: { access: "worker" },
    },
    async (request) => {
      const { queue, job_id } = request.params as { queue: string; job_id: string };
      const job = await jobs.status(queue, job_id);
      // Another tenant's job reads as absent, like any of its resources.
      if (!job || (job.tenant_id !== null && job.tenant_id !== tenantOf(request)))
        throw notFound("Job", job_id);
      const { tenant_id: _, ...body } = job;
      return body;
    },
  );
}
