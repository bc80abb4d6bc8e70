import PgBoss from "pg-boss";
import type { Sql } from "./db.ts";
import type { EventStore } from "./eventstore/eventStore.ts";
import type { Projection } from "./projections/projection.ts";
import { rebuildProjection } from "./projections/rebuildProjection.ts";

export const REBUILD_QUEUE = "projection-rebuild";

/** A job an area schedules (cron, UTC) and that `pms` can also run by hand. */
export interface ScheduledJob {
  queue: string;
  cron: string;
  run(deps: { sql: Sql; store: EventStore }): Promise<unknown>;
}

export interface Jobs {
  /** Queues a rebuild; null when no projection has that name. */
  requestRebuild(name: string): Promise<string | null>;
  boss: PgBoss;
  stop(): Promise<void>;
}

/**
 * pg-boss on the service's own database, through the same `Sql` port (pg-boss's `db` option),
 * so it shares the service's pool. Workers run only in roles that work jobs.
 */
export async function startJobs(options: {
  sql: Sql;
  store: EventStore;
  projections: Projection[];
  scheduled?: ScheduledJob[];
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
  await boss.createQueue(REBUILD_QUEUE).catch(() => {});
  if (options.work) {
    await boss.work<{ name: string }>(REBUILD_QUEUE, { pollingIntervalSeconds: 1 }, async (jobs) => {
      for (const job of jobs) {
        const projection = projections.find((p) => p.name === job.data.name);
        if (!projection) continue;
        log.info(`rebuilding projection ${projection.name}`);
        await rebuildProjection(sql, store, projection, log.info);
      }
    });
    // pg-boss keeps one schedule per queue and hands each due job to one worker.
    for (const job of options.scheduled ?? []) {
      await boss.createQueue(job.queue).catch(() => {});
      await boss.schedule(job.queue, job.cron);
      await boss.work(job.queue, { pollingIntervalSeconds: 5 }, async () => {
        await job.run({ sql, store });
      });
    }
  }
  return {
    boss,
    async requestRebuild(name) {
      if (!projections.some((p) => p.name === name)) return null;
      return (await boss.send(REBUILD_QUEUE, { name })) ?? "";
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 }).catch(() => {});
    },
  };
}
