import { randomUUID } from "node:crypto";
import { areas } from "../../src/areas.ts";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import { comparePositions, type Position } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { readAll } from "../../src/platform/eventstore/postgres/readAll.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { type BatchTiming, runProjections } from "../../src/platform/projections/runProjections.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { atMost, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { interleavedPairs, medianSpread, PAIRS, round, runWorkers, summarize } from "../lib/stats.ts";
import { benchMetadata } from "./store.ts";

const APPENDS = 2000;
const WRITERS = 32;

/** Phases of one wait, by the batch that carried the append (docs/performance.md). */
const PHASES = ["queued", "read", "acquire", "apply", "commit", "notify"] as const;

/**
 * Step 6: what a command route waits for read-your-writes. In this process, as in the service:
 * every projection of every area running (runProjections), 32 writers append LesseeRegistered,
 * each then awaits waitFor(position); we time that wait and split it by phase of the batch that
 * carried the append: queued (from the append's return to the batch's read: wake-up and the
 * batch before), read, acquire (a connection and BEGIN), apply (every projection and the
 * checkpoints), commit, notify (to the waiter). Two runtimes in interleaved pairs: over the
 * writers' pool (as the service runs today) and over a pool of its own.
 */
export async function readYourWritesStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("ryw");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  const projections = areas.flatMap((a) => a.projections);
  if (!projections.some((p) => p.name === lesseesProjection.name)) projections.push(lesseesProjection);
  const tenant = randomUUID();
  let n = 0;
  try {
    await migrate(sql);
    const run = async (own: boolean) => {
      const projectorSql: Sql = own ? createPostgresSql(url, { max: 2 }) : sql;
      const batches: BatchTiming[] = [];
      const runtime = runProjections({
        sql: projectorSql,
        store,
        projections,
        log: { info: () => {}, error: (e, m) => console.error(`  ${m}: ${(e as Error)?.message ?? e}`) },
        onBatch: (t) => batches.push(t),
        // As the service does: on its own pool, the live reads too.
        readAll: own ? (o) => readAll(projectorSql, o) : undefined,
      });
      try {
        const appendOne = async () => {
          const id = randomUUID();
          const i = n++;
          const result = await store.appendToStream(
            `lessee-${id}`,
            [
              {
                event_id: randomUUID(),
                type: "LesseeRegistered",
                data: lesseeRegisteredData(id, `ryw-${i}@example.test`, i),
                metadata: benchMetadata(tenant),
              },
            ],
            { expected_revision: "no_stream" },
          );
          const appended = performance.now();
          const ok = await runtime.waitFor(result.position, 10_000);
          return { position: result.position, appended, answered: performance.now(), ok };
        };
        // The projections build their tables first; one append waited for proves they run.
        if (!(await appendOne()).ok) throw new Error("projections did not catch up within 10 s");
        for (let i = 0; i < 100; i++) await appendOne();
        batches.length = 0;
        const waits: Awaited<ReturnType<typeof appendOne>>[] = [];
        let issued = 0;
        const started = performance.now();
        await runWorkers(
          WRITERS,
          () => issued++ < APPENDS,
          async () => {
            waits.push(await appendOne());
          },
        );
        const seconds = (performance.now() - started) / 1000;
        const phases = splitWaits(waits, batches);
        return {
          seconds,
          timeouts: waits.filter((w) => !w.ok).length,
          waitMs: summarize(waits.map((w) => w.answered - w.appended)),
          phasesMs: Object.fromEntries(PHASES.map((p) => [p, summarize(phases[p])])),
          batches: batches.length,
          eventsPerBatch: summarize(batches.map((b) => b.events)),
        };
      } finally {
        await runtime.stop();
        if (own) await projectorSql.close();
      }
    };
    const results: { shared: Awaited<ReturnType<typeof run>>[]; own: Awaited<ReturnType<typeof run>>[] } = {
      shared: [],
      own: [],
    };
    const pairs = await interleavedPairs(
      PAIRS,
      async () => {
        const r = await run(false);
        results.shared.push(r);
        return r.waitMs.p99;
      },
      async () => {
        const r = await run(true);
        results.own.push(r);
        return r.waitMs.p99;
      },
    );
    const shared = medianSpread(pairs.a);
    const own = medianSpread(pairs.b);
    const phaseNote = (runs: Awaited<ReturnType<typeof run>>[]) =>
      PHASES.map((p) => `${p} p50 ${round(median(runs.map((r) => r.phasesMs[p].p50)))}`).join(", ");
    ctx.raw.readYourWrites = { projections: projections.map((p) => p.name), appends: APPENDS, results };
    ctx.figures.push(
      {
        step: "6 read-your-writes",
        metric: "waitFor p99, projector on the writers' pool",
        value: shared.median,
        unit: "ms",
        target: "≤ 15 ms",
        pass: atMost(shared.median, 15) && results.shared.every((r) => r.timeouts === 0),
        note: `${shared.text}; ${projections.length} projections, ${APPENDS} appends by ${WRITERS} writers per run; ${phaseNote(results.shared)}`,
      },
      {
        step: "6 read-your-writes",
        metric: "waitFor p99, projector on its own pool",
        value: own.median,
        unit: "ms",
        target: "≤ 15 ms",
        pass: atMost(own.median, 15) && results.own.every((r) => r.timeouts === 0),
        note: `${own.text}; ${phaseNote(results.own)}`,
      },
    );
  } finally {
    await store.close();
    await sql.close();
  }
}

function median(values: number[]) {
  return medianSpread(values).median;
}

/** Each wait split by the first batch whose last event is at or past the append's position. */
function splitWaits(
  waits: { position: Position; appended: number; answered: number }[],
  batches: BatchTiming[],
): Record<(typeof PHASES)[number], number[]> {
  const out = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<
    (typeof PHASES)[number],
    number[]
  >;
  for (const w of waits) {
    const b = batches.find((x) => comparePositions(x.last, w.position) >= 0 && x.notified >= w.appended);
    if (!b || b.acquired === null || b.applied === null || b.committed === null) continue;
    out.queued.push(Math.max(0, b.readStart - w.appended));
    out.read.push(b.readEnd - Math.max(b.readStart, w.appended));
    out.acquire.push(b.acquired - b.readEnd);
    out.apply.push(b.applied - b.acquired);
    out.commit.push(b.committed - b.applied);
    out.notify.push(Math.max(0, w.answered - b.committed));
  }
  return out;
}
