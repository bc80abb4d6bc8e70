import PgBoss from "pg-boss";
import { z } from "zod";
import { sweepBlobParts } from "./blobs/sqlBlobStore.ts";
import type { Sql } from "./db.ts";
import { notFound, validationError } from "./errors.ts";
import { type EventStore, positionToString } from "./eventstore/eventStore.ts";
import type { SubjectErasure } from "./personalData/erasure.ts";
import type { Projection } from "./projections/projection.ts";
import { rebuildProjection } from "./projections/rebuildProjection.ts";
import { issuesToDetails } from "./validation.ts";

export const REBUILD_QUEUE = "projection-rebuild";

export interface JobDeps {
  sql: Sql;
  store: EventStore;
  /** What the areas erase of a data subject they name (the retention job's erasures). */
  erasures: readonly SubjectErasure[];
}

/** Who asked: the tenant of the worker key (Workers routes), null for a scheduled or admin run. */
export interface JobContext {
  tenant_id: string | null;
}

/**
 * A kind of background job (pg-boss queue) an area declares in `src/areas.ts`: run on a cron
 * schedule (UTC) by the worker role, and on demand through the Workers routes
 * (`POST /api/workers/jobs/<queue>`, body checked by `input`), docs/operations.md.
 */
export interface AreaJob<D = unknown> {
  queue: string;
  description: string;
  cron?: string;
  /** The body of `POST /api/workers/jobs/<queue>` and the job's data; no input: `{}`. */
  input?: z.ZodType<D>;
  /** Refusals the schema cannot make (an unknown projection: 404), before anything is queued. */
  admit?(data: D): void;
  /** Past this a running job is failed by pg-boss (its default: 15 minutes). */
  timeoutSeconds?: number;
  /** What it returns is the job's `output` (an object; JSON only). */
  run(deps: JobDeps, data: D, context: JobContext): Promise<unknown>;
}

/** Keeps the data type of one job while listing jobs of different data together. */
export const areaJob = <D>(job: AreaJob<D>): AreaJob => job as AreaJob;

/** What pg-boss stores as a job's data: the checked input and who asked. */
interface Envelope {
  input?: unknown;
  tenant_id?: string | null;
}

export interface JobStatus {
  job_id: string;
  queue: string;
  state: "created" | "retry" | "active" | "completed" | "cancelled" | "failed";
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  output: Record<string, unknown> | null;
  error: string | null;
  /** The tenant whose worker asked (null: scheduled or admin). */
  tenant_id: string | null;
}

export interface Jobs {
  /** Every kind of job this service knows: the platform's rebuild, then the areas'. */
  kinds: AreaJob[];
  /** Checks `input` with the kind's schema and `admit`, queues it; the job id. */
  enqueue(queue: string, input: unknown, context: JobContext): Promise<string>;
  /** A job as pg-boss has it (archived ones too); null when that queue has no such job. */
  status(queue: string, id: string): Promise<JobStatus | null>;
  /** Queues a rebuild; null when no projection has that name. */
  requestRebuild(name: string): Promise<string | null>;
  boss: PgBoss;
  stop(): Promise<void>;
}

/** Every kind of job: the platform's rebuild, then the areas' (also `pms jobs`). */
export const jobKinds = (projections: Projection[], areaJobs: AreaJob[], log: (msg: string) => void) => [
  rebuildJob(projections, log),
  blobPartsSweepJob,
  ...areaJobs,
];

export const BLOB_PARTS_SWEEP_QUEUE = "blob-parts-sweep";

/** Hourly: the parts an upload left when the service died under it (src/platform/blobs). */
const blobPartsSweepJob = areaJob({
  queue: BLOB_PARTS_SWEEP_QUEUE,
  description: "Removes the stored parts of uploads cut off by a crash (no part written for an hour or more)",
  cron: "17 * * * *",
  input: z.strictObject({
    idle_seconds: z
      .number()
      .int()
      .min(600)
      .max(30 * 86_400)
      .optional()
      .describe("Parts idle at least this long are removed (default 3600)"),
  }),
  run: async (deps, { idle_seconds }) => ({
    removed_parts: await sweepBlobParts(deps.sql, idle_seconds ?? 3600),
  }),
});

// pg-boss refuses an `expireInSeconds` key that is present but undefined.
const sendOptions = (kind: AreaJob) => (kind.timeoutSeconds ? { expireInSeconds: kind.timeoutSeconds } : {});

/** Rebuilding a projection stays the platform's own job (docs/operations.md, "Rebuilding"). */
function rebuildJob(projections: Projection[], log: (msg: string) => void) {
  const find = (name: string) => projections.find((p) => p.name === name);
  return areaJob({
    queue: REBUILD_QUEUE,
    description:
      "Rebuilds one projection's read model from the event log into shadow tables, then swaps them in (no downtime)",
    input: z.strictObject({
      projection: z
        .string()
        .min(1)
        .max(100)
        .describe(`One of: ${projections.map((p) => p.name).join(", ")}`),
    }),
    admit: ({ projection }) => {
      if (!find(projection)) throw notFound("Projection", projection);
    },
    timeoutSeconds: 6 * 3600,
    run: async (deps, { projection }) => {
      const found = find(projection);
      if (!found) throw new Error(`Unknown projection ${projection}`);
      log(`rebuilding projection ${projection}`);
      const result = await rebuildProjection(deps.sql, deps.store, found, log);
      return { projection, events: result.events, position: positionToString(result.position) };
    },
  });
}

/**
 * pg-boss on the service's own database, through the same `Sql` port (pg-boss's `db` option),
 * so it shares the service's pool. Every role can queue jobs; only roles that work jobs run them.
 */
export async function startJobs(options: {
  sql: Sql;
  store: EventStore;
  projections: Projection[];
  jobs?: AreaJob[];
  erasures?: readonly SubjectErasure[];
  work: boolean;
  log: { info(msg: string): void; error(obj: unknown, msg: string): void };
}): Promise<Jobs> {
  const { sql, store, projections, log } = options;
  const boss = new PgBoss({
    db: {
      executeSql: async (text: string, values: unknown[]) => ({
        rows: values?.length ? await sql.query(text, values) : await sql.exec(text),
      }),
    },
    schedule: options.work,
    supervise: options.work,
  });
  boss.on("error", (error) => log.error(error, "job queue error"));
  await boss.start();
  const kinds = jobKinds(projections, options.jobs ?? [], log.info);
  const kindOf = (queue: string) => kinds.find((k) => k.queue === queue);
  // Another process may create the same queue at the same time: "exists already" is fine.
  for (const kind of kinds) await boss.createQueue(kind.queue).catch(() => {});
  if (options.work) {
    for (const kind of kinds) {
      // pg-boss keeps one schedule per queue and hands each due job (and each queued one) to
      // one worker, whichever process it runs in.
      if (kind.cron) {
        const envelope: Envelope = { input: {}, tenant_id: null };
        await boss.schedule(kind.queue, kind.cron, envelope, sendOptions(kind));
      }
      await boss.work<Envelope>(kind.queue, { pollingIntervalSeconds: 1 }, async ([job]) => {
        // The queue table is no trusted input either: the data is checked again before it runs.
        const input = kind.input ? kind.input.parse(job.data?.input ?? {}) : (job.data?.input ?? {});
        const output = await kind.run({ sql, store, erasures: options.erasures ?? [] }, input, {
          tenant_id: job.data?.tenant_id ?? null,
        });
        // pg-boss stores the handler's result as the job's output (one job per fetch).
        return output ?? null;
      });
    }
  }

  const enqueue: Jobs["enqueue"] = async (queue, raw, context) => {
    const kind = kindOf(queue);
    if (!kind) throw notFound("Job kind", queue);
    const parsed = kind.input ? kind.input.safeParse(raw ?? {}) : { success: true as const, data: {} };
    if (!parsed.success) throw validationError("Invalid data", issuesToDetails(parsed.error.issues));
    const input = parsed.data;
    kind.admit?.(input);
    const envelope: Envelope = { input, tenant_id: context.tenant_id };
    const id = await boss.send(kind.queue, envelope, sendOptions(kind));
    if (!id) throw new Error(`pg-boss queued no job on ${queue}`);
    return id;
  };

  return {
    kinds,
    boss,
    enqueue,
    async status(queue, id) {
      if (!kindOf(queue)) return null;
      const job = await boss.getJobById<Envelope>(queue, id, { includeArchive: true });
      if (!job) return null;
      const output = (job.output ?? null) as Record<string, unknown> | null;
      // A failed (or retrying) job's output is pg-boss's serialised error: show its message only.
      const failed = job.state === "failed" || job.state === "retry";
      return {
        job_id: job.id,
        queue: job.name,
        state: job.state,
        created_at: new Date(job.createdOn),
        started_at: job.startedOn ? new Date(job.startedOn) : null,
        completed_at: job.completedOn ? new Date(job.completedOn) : null,
        output: failed ? null : output,
        error: failed ? String(output?.message ?? "failed") : null,
        tenant_id: job.data?.tenant_id ?? null,
      };
    },
    async requestRebuild(name) {
      if (!projections.some((p) => p.name === name)) return null;
      return enqueue(REBUILD_QUEUE, { projection: name }, { tenant_id: null });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 }).catch(() => {});
    },
  };
}
