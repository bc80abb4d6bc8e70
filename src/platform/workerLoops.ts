import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "./config.ts";
import type { Sql } from "./db.ts";
import type { EventStore } from "./eventstore/eventStore.ts";

/**
 * A worker loop (docs/architecture.md, "Worker loops"): a step the worker role runs again and again,
 * every PMS_OUTBOX_POLL_MS and at once after a step that found work: the outbox's deliverer, the
 * reactions that queue messages from the log. Unlike a pg-boss job it is never queued: every worker
 * process runs it, so each step must be safe to run in several processes at once.
 */
export interface WorkerLoop {
  name: string;
  open(deps: LoopDeps): Promise<LoopStep> | LoopStep;
}

export interface LoopDeps {
  sql: Sql;
  store: EventStore;
  config: Config;
  log: { info(msg: string): void; error(error: unknown, msg: string): void };
}

export interface LoopStep {
  /** One pass; how many things it did (0: nothing to do, the loop waits). */
  run(): Promise<number>;
  close?(): Promise<void>;
}

/** Runs the loops one after the other, until `stop`. A failing step is logged and tried next pass. */
export async function startWorkerLoops(
  loops: WorkerLoop[],
  deps: LoopDeps,
): Promise<{ stop(): Promise<void> }> {
  const steps = await Promise.all(loops.map(async (l) => ({ name: l.name, step: await l.open(deps) })));
  const abort = new AbortController();
  const running = (async () => {
    while (!abort.signal.aborted) {
      let done = 0;
      for (const { name, step } of steps) {
        if (abort.signal.aborted) break;
        done += await step.run().catch((error) => {
          deps.log.error(error, `worker loop ${name} failed`);
          return 0;
        });
      }
      if (done === 0)
        await sleep(deps.config.PMS_OUTBOX_POLL_MS, undefined, { signal: abort.signal }).catch(() => {});
    }
  })();
  return {
    async stop() {
      abort.abort();
      await running;
      for (const { step } of steps) await step.close?.();
    },
  };
}
