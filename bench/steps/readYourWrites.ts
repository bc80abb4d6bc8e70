import { randomUUID } from "node:crypto";
import { areas } from "../../src/areas.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { runProjections } from "../../src/platform/projections/runProjections.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { atMost, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { runWorkers, summarize } from "../lib/stats.ts";
import { benchMetadata } from "./store.ts";

const APPENDS = 2000;
const WRITERS = 32;

/**
 * Step 6: what a command route waits for read-your-writes. In this process, as in the service:
 * every projection of every area running (runProjections), 32 writers append LesseeRegistered,
 * each then awaits waitFor(position); we time that wait.
 */
export async function readYourWritesStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("ryw");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  const projections = areas.flatMap((a) => a.projections);
  if (!projections.some((p) => p.name === lesseesProjection.name)) projections.push(lesseesProjection);
  let runtime: ReturnType<typeof runProjections> | null = null;
  try {
    await migrate(sql);
    runtime = runProjections({
      sql,
      store,
      projections,
      log: { info: () => {}, error: (e, m) => console.error(`  ${m}: ${(e as Error)?.message ?? e}`) },
    });
    const tenant = randomUUID();
    const appendOne = async (n: number) => {
      const id = randomUUID();
      const t0 = performance.now();
      const result = await store.appendToStream(
        `lessee-${id}`,
        [
          {
            event_id: randomUUID(),
            type: "LesseeRegistered",
            data: lesseeRegisteredData(id, `ryw-${n}@example.test`, n),
            metadata: benchMetadata(tenant),
          },
        ],
        { expected_revision: "no_stream" },
      );
      const t1 = performance.now();
      const ok = await runtime!.waitFor(result.position, 10_000);
      const t2 = performance.now();
      return { append: t1 - t0, wait: t2 - t1, ok };
    };
    // The projections build their tables first; one append waited for proves they run.
    if (!(await appendOne(-1)).ok) throw new Error("projections did not catch up within 10 s");
    for (let i = 0; i < 100; i++) await appendOne(-2 - i);

    const waits: number[] = [];
    const appends: number[] = [];
    let timeouts = 0;
    let issued = 0;
    const started = performance.now();
    await runWorkers(
      WRITERS,
      () => issued < APPENDS,
      async () => {
        const r = await appendOne(issued++);
        waits.push(r.wait);
        appends.push(r.append);
        if (!r.ok) timeouts++;
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const wait = summarize(waits);
    const append = summarize(appends);
    ctx.raw.readYourWrites = {
      projections: projections.map((p) => p.name),
      appends: waits.length,
      seconds,
      waitMs: wait,
      appendMs: append,
      timeouts,
    };
    ctx.figures.push(
      {
        step: "6 read-your-writes",
        metric: "waitFor p50",
        value: wait.p50,
        unit: "ms",
        target: "",
        pass: null,
        note: `${projections.length} projections, ${waits.length} appends by ${WRITERS} writers in ${seconds.toFixed(1)} s; append p50 ${append.p50} ms p99 ${append.p99} ms`,
      },
      {
        step: "6 read-your-writes",
        metric: "waitFor p99",
        value: wait.p99,
        unit: "ms",
        target: "≤ 15 ms",
        pass: atMost(wait.p99, 15) && timeouts === 0,
        note: timeouts ? `${timeouts} waits timed out` : undefined,
      },
    );
  } finally {
    await runtime?.stop();
    await store.close();
    await sql.close();
  }
}
