import { randomUUID } from "node:crypto";
import { createPostgresSql } from "../../src/platform/db.ts";
import type { EventMetadata } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { atLeast, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { round, runWorkers, summarize } from "../lib/stats.ts";

const WRITERS = 32;

export const benchMetadata = (tenant_id: string): EventMetadata => ({
  tenant_id,
  actor_key_id: null,
  correlation_id: randomUUID(),
  causation_id: null,
  occurred_at: new Date().toISOString(),
});

/** Step 4: appends/s of one-event new streams, 32 concurrent writers, in this process, own database. */
export async function storeStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("store");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  try {
    await migrate(sql);
    const tenant = randomUUID();
    const appendOne = async () => {
      const id = randomUUID();
      await store.appendToStream(
        `lessee-${id}`,
        [
          {
            event_id: randomUUID(),
            type: "LesseeRegistered",
            data: lesseeRegisteredData(id, `${id}@example.test`, 0),
            metadata: benchMetadata(tenant),
          },
        ],
        { expected_revision: "no_stream" },
      );
    };
    // Warm-up: connections opened, plans cached.
    const warmEnd = Date.now() + 1000;
    await runWorkers(WRITERS, () => Date.now() < warmEnd, appendOne);

    const latencies: number[] = [];
    const started = performance.now();
    const end = Date.now() + ctx.seconds * 1000;
    await runWorkers(
      WRITERS,
      () => Date.now() < end,
      async () => {
        const t = performance.now();
        await appendOne();
        latencies.push(performance.now() - t);
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const rate = round(latencies.length / seconds, 0);
    const lat = summarize(latencies);
    ctx.raw.store = { appends: latencies.length, seconds: round(seconds), perSecond: rate, latencyMs: lat };
    ctx.figures.push({
      step: "4 event store",
      metric: "appends/s (1-event new streams, 32 writers)",
      value: rate,
      unit: "/s",
      target: "≥ 2500/s",
      pass: atLeast(rate, 2500),
      note: `append latency p50 ${lat.p50} ms, p99 ${lat.p99} ms`,
    });
  } finally {
    await store.close();
    await sql.close();
  }
}
