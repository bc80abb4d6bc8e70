import { randomUUID } from "node:crypto";
import { lesseeDecider } from "../../src/commands/lessees/decider.ts";
import { PERSONAL_DATA } from "../../src/events/personalData.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { fold } from "../../src/platform/decider.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { SEALED, withPersonalData } from "../../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import { atLeast, type Context, type Service, startServiceOn } from "../lib/context.ts";
import { lesseeBody, lesseeRegisteredData, seedLessees, waitReady } from "../lib/lessees.ts";
import { alternate, load } from "../lib/load.ts";
import { interleavedPairs, medianSpread, PAIRS, round, runWorkers } from "../lib/stats.ts";
import { cpuPerRequest } from "./lesseesHttp.ts";
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

const SEEDED = 1000;

/**
 * Personal data (docs/personal-data.md), what encryption costs the service: its lessee create
 * (POST /api/lessees: the sealed append, the projector opening it, read-your-writes) and get
 * (GET /api/lessees/{id}) against the same service storing personal fields in the clear
 * (bench/plainService.ts), each on a database of its own, interleaved pairs. Target: ≤ 15 %
 * (ratio ≥ 0.85). Then the codec alone, at the store (`codecAtTheStore`).
 */
export async function privacyStep(ctx: Context): Promise<void> {
  await throughTheService(ctx);
  await codecAtTheStore(ctx);
}

async function throughTheService(ctx: Context): Promise<void> {
  let sealed: Service | null = null;
  let plain: Service | null = null;
  const urls = {
    sealed: await ctx.dbs.create("privacy_sealed"),
    plain: await ctx.dbs.create("privacy_plain"),
  };
  try {
    sealed = await startServiceOn(urls.sealed, ctx.runId);
    plain = await startServiceOn(urls.plain, ctx.runId, {
      name: "service (plain)",
      script: "bench/plainService.ts",
    });
    // cpuPerRequest's "service" is the encrypting one, its "baseline" the plain one.
    const figure = (
      metric: string,
      both: Awaited<ReturnType<typeof alternate>>,
      cpu: ReturnType<typeof cpuPerRequest>,
    ) => {
      const ratio = medianSpread(both.ratios);
      const c = cpu.cpu();
      const ms = (side: typeof c.service) =>
        `node ${round(side.node, 3)} + PostgreSQL ${round(side.postgres, 3)}`;
      const failed = both.service.non2xx + both.service.errors + both.baseline.non2xx + both.baseline.errors;
      return {
        raw: { ...both, cpuMsPerRequest: c },
        figure: {
          step: "personal data",
          metric,
          value: ratio.median,
          unit: "×",
          target: "≥ 0.85× (cost ≤ 15 %)",
          pass: atLeast(ratio.median, 0.85) && failed === 0,
          note: `encrypted ${both.service.rps} req/s, plain ${both.baseline.rps} req/s (${ratio.text} interleaved pairs); CPU ms per request encrypted ${ms(c.service)}, plain ${ms(c.baseline)}${failed ? `; ${failed} failed requests` : ""}`,
        },
      };
    };
    const services = { sealed, plain };
    const side = { sealed: "service", plain: "baseline" } as const;
    const createCpu = cpuPerRequest(ctx);
    const create = (which: "sealed" | "plain", round: number) => {
      const service = services[which];
      let n = 0;
      return createCpu.metered(side[which], service.child.pid, () =>
        load({
          url: service.child.url,
          path: "/api/lessees",
          method: "POST",
          apiKey: service.tenant.key,
          connections: ctx.connections,
          seconds: ctx.seconds,
          next: () => ({
            body: JSON.stringify(lesseeBody(`privacy-${ctx.runId}-${round}-${++n}@example.test`, n)),
          }),
        }),
      );
    };
    const creates = figure(
      "lessee create (POST /api/lessees), encrypted / plain service",
      await alternate(
        (i) => create("sealed", i),
        (i) => create("plain", i),
      ),
      createCpu,
    );
    const seeded = {
      sealed: await seedLessees(sealed.child.url, sealed.tenant.key, SEEDED, (n) => `get-${n}@example.test`),
      plain: await seedLessees(plain.child.url, plain.tenant.key, SEEDED, (n) => `get-${n}@example.test`),
    };
    await waitReady(sealed.child.url);
    await waitReady(plain.child.url);
    const getCpu = cpuPerRequest(ctx);
    const get = (which: "sealed" | "plain") => {
      const service = services[which];
      const ids = seeded[which];
      return getCpu.metered(side[which], service.child.pid, () =>
        load({
          url: service.child.url,
          path: `/api/lessees/${ids[0]}`,
          apiKey: service.tenant.key,
          connections: ctx.connections,
          seconds: ctx.seconds,
          next: () => ({ path: `/api/lessees/${ids[Math.floor(Math.random() * ids.length)]}` }),
        }),
      );
    };
    const gets = figure(
      "lessee get (GET /api/lessees/{id}), encrypted / plain service",
      await alternate(
        () => get("sealed"),
        () => get("plain"),
      ),
      getCpu,
    );
    // The comparison holds only if one side sealed every lessee and the other none.
    const stored = { sealed: await sealedShare(urls.sealed), plain: await sealedShare(urls.plain) };
    const fair = stored.sealed === 1 && stored.plain === 0;
    for (const f of [creates.figure, gets.figure]) {
      f.pass = f.pass && fair;
      f.note += `; lessee events sealed: ${round(stored.sealed * 100, 1)} % encrypted side, ${round(stored.plain * 100, 1)} % plain side`;
    }
    ctx.raw.privacyService = { creates: creates.raw, gets: gets.raw, stored };
    ctx.figures.push(creates.figure, gets.figure);
  } finally {
    await sealed?.child.stop();
    await plain?.child.stop();
  }
}

/** The share of LesseeRegistered events stored with their personal fields sealed. */
async function sealedShare(url: string): Promise<number> {
  const sql = createPostgresSql(url, { max: 1 });
  try {
    const [row] = await sql.query<{ share: number | null }>(
      `SELECT (count(*) FILTER (WHERE data ? '${SEALED}'))::float / nullif(count(*), 0) AS share
       FROM events WHERE type = 'LesseeRegistered'`,
    );
    return row.share ?? 0;
  } finally {
    await sql.close();
  }
}

/**
 * The codec alone (docs/personal-data.md): a lessee's create (its LesseeRegistered appended to a new
 * stream, with its new data key) and get (its stream read and folded, as a command or the history
 * does) through the encrypting layer against the bare store, same database, interleaved pairs.
 * No target: this is the cost's bound with nothing else around it, where it shows (a get through
 * the API reads the read model, already decrypted by the projector, and pays nothing).
 */
async function codecAtTheStore(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("privacy");
  const sql = createPostgresSql(url);
  const bare = createPostgresEventStore(sql);
  const sealed = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
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
        target: "",
        pass: null,
        note: `encrypted ${medianSpread(pairs.a, 0).text}/s, bare ${medianSpread(pairs.b, 0).text}/s, ${PAIRS} interleaved pairs, ${WORKERS} workers`,
      };
    };
    ctx.raw.privacy = {
      creates: { ...creates, ratios: creates.ratios.map((r) => round(r, 3)) },
      gets: { ...gets, ratios: gets.ratios.map((r) => round(r, 3)) },
    };
    ctx.figures.push(
      figure("codec alone: lessee create at the store, encrypted / bare", creates),
      figure("codec alone: lessee get (stream read + fold), encrypted / bare", gets),
    );
  } finally {
    await sealed.close();
    await bare.close();
    await sql.close();
  }
}
