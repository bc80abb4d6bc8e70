import { randomUUID } from "node:crypto";
import pg from "pg";
import { PERSONAL_DATA } from "../../src/events/personalData.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { withPersonalData } from "../../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import { runScript } from "../lib/children.ts";
import { atLeast, atMost, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { sampleRss } from "../lib/rss.ts";
import { mb, round } from "../lib/stats.ts";

const CHUNK = 10_000;
const RSS_LIMIT = 300 * 1024 * 1024;

/**
 * Appends `count` LesseeRegistered events (the real data shape, one new stream each) with bulk SQL,
 * CHUNK rows per transaction, numbered from `from`.
 */
export async function seedLesseeEvents(url: string, from: number, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const template = lesseeRegisteredData("00000000-0000-0000-0000-000000000000", "x@example.test", 0);
    const metadata = { tenant_id: randomUUID(), actor_key_id: null, causation_id: null };
    for (let start = from; start < from + count; start += CHUNK) {
      const end = Math.min(from + count, start + CHUNK) - 1;
      await client.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
         SELECT g.id, 'lessee-' || g.id, 0, 'LesseeRegistered', 1,
           $1::jsonb || jsonb_build_object('lessee_id', g.id, 'email', 'catchup-' || g.i || '@example.test',
                                           'last_name', 'Martin ' || g.i),
           $2::jsonb || jsonb_build_object('correlation_id', gen_random_uuid(), 'occurred_at',
             to_char((timestamptz '2024-01-01 00:00:00+00' + g.i * interval '1 second') AT TIME ZONE 'UTC',
                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series($3::int, $4::int) AS i) g`,
        [JSON.stringify(template), JSON.stringify(metadata), start, end],
      );
    }
    await client.query("ANALYZE events");
  } finally {
    await client.end();
  }
}

/**
 * Appends `count` LesseeRegistered events through the encrypting store, as the service writes them:
 * each lessee's personal fields sealed with its own new key (docs/personal-data.md).
 */
export async function seedSealedLesseeEvents(url: string, count: number): Promise<void> {
  const sql = createPostgresSql(url, { max: 2 });
  const store = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
  try {
    const metadata = {
      tenant_id: randomUUID(),
      actor_key_id: null,
      correlation_id: null,
      causation_id: null,
    };
    for (let start = 0; start < count; start += 500) {
      const ids = Array.from({ length: Math.min(500, count - start) }, () => randomUUID());
      await store.appendToStreams!(
        ids.map((id, i) => ({
          stream_name: `lessee-${id}`,
          expected_revision: "no_stream" as const,
          events: [
            {
              event_id: randomUUID(),
              type: "LesseeRegistered",
              data: lesseeRegisteredData(id, `sealed-${start + i}@example.test`, start + i),
              metadata: { ...metadata, occurred_at: new Date().toISOString() },
            },
          ],
        })),
      );
    }
    await sql.query("ANALYZE events");
  } finally {
    await store.close();
    await sql.close();
  }
}

async function rebuildOnce(ctx: Context, url: string, label: string, total: number, decrypt = false) {
  let rss: ReturnType<typeof sampleRss> | null = null;
  const result = await runScript(
    "catch-up",
    "bench/catchupWorker.ts",
    { DATABASE_URL: url, ...(decrypt ? { DECRYPT: "1" } : {}) },
    30 * 60_000,
    (pid) => {
      rss = sampleRss(pid, 100);
    },
  );
  const memory = (rss as ReturnType<typeof sampleRss> | null)?.stop();
  const perSecond = round(result.events / (result.ms / 1000), 0);
  const raw = { ...result, perSecond, sampledRss: memory };
  ctx.raw[`catchup_${label}`] = raw;
  const peak = Math.max(memory?.peak ?? 0, result.hwm ?? 0);
  ctx.figures.push(
    {
      step: `5 catch-up ${label}`,
      metric: "rebuildProjection(lessees) events/s",
      value: perSecond,
      unit: "/s",
      target: "≥ 30000/s",
      pass: atLeast(perSecond, 30_000) && result.events === total && result.rows === total,
      note: `${result.events} events, ${result.rows} rows in ${round(result.ms / 1000)} s`,
    },
    {
      step: `5 catch-up ${label}`,
      metric: "rebuild process peak RSS",
      value: mb(peak),
      unit: "MB",
      target: "≤ 300 MB",
      pass: atMost(peak, RSS_LIMIT),
      note: `RSS ${mb(result.rssBefore)} MB before the rebuild, ${mb(result.rssAfter)} MB after (peak VmHWM ${mb(result.hwm)} MB)`,
    },
  );
}

/** Step 5: projection catch-up over 100,000 events (and 1,000,000 with BENCH_BIG=1), in a child process. */
export async function catchupStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("catchup");
  const sql = createPostgresSql(url, { max: 2 });
  try {
    await migrate(sql);
  } finally {
    await sql.close();
  }
  let t = Date.now();
  await seedLesseeEvents(url, 0, 100_000);
  console.log(`  seeded 100000 events in ${Date.now() - t} ms`);
  await rebuildOnce(ctx, url, "100k", 100_000);
  // The same rebuild over sealed events, decrypted as the service reads them (issue 28's target).
  const sealedUrl = await ctx.dbs.create("catchup_sealed");
  const sealedSql = createPostgresSql(sealedUrl, { max: 2 });
  try {
    await migrate(sealedSql);
  } finally {
    await sealedSql.close();
  }
  t = Date.now();
  await seedSealedLesseeEvents(sealedUrl, 100_000);
  console.log(`  seeded 100000 sealed events in ${Date.now() - t} ms`);
  await rebuildOnce(ctx, sealedUrl, "100k decrypted", 100_000, true);
  if (ctx.big) {
    t = Date.now();
    await seedLesseeEvents(url, 100_000, 900_000);
    console.log(`  seeded 900000 more events in ${Date.now() - t} ms`);
    await rebuildOnce(ctx, url, "1M", 1_000_000);
  }
}
