import { randomUUID } from "node:crypto";
import { lesseeDecider } from "../../src/commands/lessees/decider.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { fold } from "../../src/platform/decider.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { withPersonalData } from "../../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import { atLeast, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { interleavedPairs, medianSpread, PAIRS, round, runWorkers } from "../lib/stats.ts";
import { benchMetadata } from "./store.ts";

const WORKERS = 32;

async function perSecond(seconds: number, op: () => Promise<void>): Promise<number> {
  const warmEnd = Date.now() + 500;
  await runWorkers(WORKERS, () => Date.now() < warmEnd, op);
  let n = 0;
  const started = performance.now();
  const end = Date.now() + seconds * 1000;
  await runWorkers(
    WORKERS,
    () => Date.now() < end,
    async () => {
      await op();
      n++;
    },
  );
  return n / ((performance.now() - started) / 1000);
}

/**
 * Personal data (docs/personal-data.md): a lessee's create (its LesseeRegistered appended to a new
 * stream, with its new data key) and get (its stream read and folded, as a command or the history
 * does) through the encrypting layer against the bare store, same database, interleaved pairs.
 * Target: encryption costs at most 15 % (ratio ≥ 0.85). GET /api/lessees/{id} reads the read model,
 * already decrypted by the projector: it pays nothing.
 */
export async function privacyStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("privacy");
  const sql = createPostgresSql(url);
  const bare = createPostgresEventStore(sql);
  const sealed = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql));
  try {
    await migrate(sql);
    const tenant = randomUUID();
    const created: Record<"bare" | "sealed", string[]> = { bare: [], sealed: [] };
    const create = (store: EventStore, into: string[]) => async () => {
      const id = randomUUID();
      await store.appendToStream(
        `lessee-${id}`,
        [
          {
            event_id: randomUUID(),
            type: "LesseeRegistered",
            data: lesseeRegisteredData(id, `${id}@example.test`, into.length),
            metadata: benchMetadata(tenant),
          },
        ],
        { expected_revision: "no_stream" },
      );
      into.push(id);
    };
    const get = (store: EventStore, from: string[]) => async () => {
      const id = from[Math.floor(Math.random() * from.length)];
      const state = fold(lesseeDecider, (await store.readStream(`lessee-${id}`)) as never);
      if (state.status !== "active") throw new Error(`lessee ${id} not read back`);
    };
    const creates = await interleavedPairs(
      PAIRS,
      () => perSecond(ctx.seconds, create(sealed, created.sealed)),
      () => perSecond(ctx.seconds, create(bare, created.bare)),
    );
    const gets = await interleavedPairs(
      PAIRS,
      () => perSecond(ctx.seconds, get(sealed, created.sealed)),
      () => perSecond(ctx.seconds, get(bare, created.bare)),
    );
    const figure = (metric: string, pairs: typeof creates) => {
      const ratio = medianSpread(pairs.ratios);
      return {
        step: "personal data",
        metric,
        value: ratio.median,
        unit: "×",
        target: "≥ 0.85× (cost ≤ 15 %)",
        pass: atLeast(ratio.median, 0.85),
        note: `encrypted ${medianSpread(pairs.a, 0).text}/s, bare ${medianSpread(pairs.b, 0).text}/s, ${PAIRS} interleaved pairs, ${WORKERS} workers`,
      };
    };
    ctx.raw.privacy = {
      creates: { ...creates, ratios: creates.ratios.map((r) => round(r, 3)) },
      gets: { ...gets, ratios: gets.ratios.map((r) => round(r, 3)) },
    };
    ctx.figures.push(
      figure("lessee create, encrypted / bare", creates),
      figure("lessee get (stream read + fold), encrypted / bare", gets),
    );
  } finally {
    await sealed.close();
    await bare.close();
    await sql.close();
  }
}
