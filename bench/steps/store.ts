import { randomUUID } from "node:crypto";
import { createPostgresSql } from "../../src/platform/db.ts";
import type { EventMetadata } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { atLeast, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { interleavedPairs, medianSpread, PAIRS, round, runWorkers, summarize } from "../lib/stats.ts";

const WRITERS = 32;
/** At least three interleaved pairs for every ratio (issue 11, item 5). */

export const benchMetadata = (tenant_id: string): EventMetadata => ({
  tenant_id,
  actor_key_id: null,
  correlation_id: randomUUID(),
  causation_id: null,
  occurred_at: new Date().toISOString(),
});

/** 32 workers calling `op` for `seconds`: operations per second and latencies. */
async function measure(seconds: number, op: () => Promise<void>) {
  const warmEnd = Date.now() + 500;
  await runWorkers(WRITERS, () => Date.now() < warmEnd, op);
  const latencies: number[] = [];
  const started = performance.now();
  const end = Date.now() + seconds * 1000;
  await runWorkers(
    WRITERS,
    () => Date.now() < end,
    async () => {
      const t = performance.now();
      await op();
      latencies.push(performance.now() - t);
    },
  );
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / elapsed, latency: summarize(latencies) };
}

/**
 * Step 4: appends/s of one-event new streams, 32 concurrent writers, in this process, own database,
 * against a baseline of one plain INSERT per transaction of the same row data into a table with
 * the same unique keys, in interleaved pairs.
 */
export async function storeStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("store");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  try {
    await migrate(sql);
    await sql.exec(`CREATE TABLE bench_plain_insert (
      position bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, stream_name text NOT NULL,
      stream_revision bigint NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
      UNIQUE (stream_name, stream_revision))`);
    const tenant = randomUUID();
    const row = () => {
      const id = randomUUID();
      return {
        id,
        data: lesseeRegisteredData(id, `${id}@example.test`, 0),
        metadata: benchMetadata(tenant),
      };
    };
    const appendOne = async () => {
      const r = row();
      await store.appendToStream(
        `lessee-${r.id}`,
        [{ event_id: randomUUID(), type: "LesseeRegistered", data: r.data, metadata: r.metadata }],
        { expected_revision: "no_stream" },
      );
    };
    const insertOne = async () => {
      const r = row();
      await sql.query(
        `INSERT INTO bench_plain_insert (event_id, stream_name, stream_revision, type, data, metadata)
         VALUES ($1, $2, 0, 'LesseeRegistered', $3, $4)`,
        [randomUUID(), `lessee-${r.id}`, JSON.stringify(r.data), JSON.stringify(r.metadata)],
      );
    };
    const runs: { store: unknown[]; insert: unknown[] } = { store: [], insert: [] };
    const pairs = await interleavedPairs(
      PAIRS,
      async () => {
        const m = await measure(ctx.seconds, appendOne);
        runs.store.push(m);
        return m.perSecond;
      },
      async () => {
        const m = await measure(ctx.seconds, insertOne);
        runs.insert.push(m);
        return m.perSecond;
      },
    );
    const rate = medianSpread(pairs.a, 0);
    const plain = medianSpread(pairs.b, 0);
    const ratio = medianSpread(pairs.ratios);
    ctx.raw.store = {
      pairs: PAIRS,
      secondsPerRun: ctx.seconds,
      runs,
      ratios: pairs.ratios.map((r) => round(r, 3)),
    };
    ctx.figures.push(
      {
        step: "4 event store",
        metric: "appends/s (1-event new streams, 32 writers)",
        value: rate.median,
        unit: "/s",
        target: "≥ 2500/s",
        pass: atLeast(rate.median, 2500),
        note: `${rate.text}; one INSERT per transaction ${plain.text}`,
      },
      {
        step: "4 event store",
        metric: "appends / one INSERT per transaction",
        value: ratio.median,
        unit: "×",
        target: "≥ 0.7×",
        pass: atLeast(ratio.median, 0.7),
        note: `${ratio.text} over ${PAIRS} interleaved pairs`,
      },
    );
  } finally {
    await store.close();
    await sql.close();
  }
}
