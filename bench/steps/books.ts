import { bookIdOf } from "../../src/events/books/index.ts";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { checkFec } from "../../src/queries/books/index.ts";
import { atMost, type Context, startServiceOn } from "../lib/context.ts";
import { procMemory, sampleRss } from "../lib/rss.ts";
import { round } from "../lib/stats.ts";

const ENTRIES = 100_000;
/** Flat memory: the service's RSS may not grow by more than this during the export of a ~30 MB file. */
const RSS_GROWTH_LIMIT = 50 * 1024 * 1024;
const mb = (n: number) => round(n / 1024 / 1024, 1);

/**
 * The FEC of a large year (docs/accounting.md, "The FEC"): ENTRIES two-line entries of one book
 * written straight into the ledger's tables (server-side INSERT ... SELECT generate_series, as the
 * national step writes its events), then `GET /api/books/{id}/fec?year=` through a started service,
 * its VmRSS polled every 50 ms. Target ≤ 5 s with flat memory: the route streams pages of 5,000
 * entries (two in hand at most), whatever the year's size. The first GET is checked with the tests'
 * FEC checker; the second is timed, its body read and dropped as it comes; a third, of a year three
 * times larger, must peak at the same RSS.
 */
/** `count` two-line entries of `year`, numbered 1..count, straight into the ledger's tables. */
async function seedYear(sql: Sql, tenant: string, book: string, year: number, count: number) {
  await sql.query(
    `INSERT INTO ledger_entries (tenant_id, id, book_id, year, number, journal, entry_date, piece_ref, piece_date,
       label, valid_date, lease_id, source_event_id)
     SELECT $1, gen_random_uuid(), $2, $3, n, 'VT', make_date($3, 1, 1) + (n % 365), 'AL' || $3, make_date($3, 1, 1) + (n % 365),
       'Appel de loyer', make_date($3, 1, 1) + (n % 365), NULL, gen_random_uuid()
     FROM generate_series(1, $4) AS n`,
    [tenant, book, year, count],
  );
  await sql.query(
    `INSERT INTO ledger_lines (tenant_id, id, entry_id, book_id, line, account, account_label, aux_account, lease_id,
       debit, credit, call_id, lettering, lettered_on)
     SELECT e.tenant_id, gen_random_uuid(), e.id, e.book_id, k, CASE k WHEN 1 THEN '411000' ELSE '706000' END,
       CASE k WHEN 1 THEN 'Locataires' ELSE 'Loyers' END, CASE k WHEN 1 THEN '41100001' END, NULL,
       CASE k WHEN 1 THEN 850.25 ELSE 0 END, CASE k WHEN 1 THEN 0 ELSE 850.25 END, NULL, NULL, NULL
     FROM ledger_entries e CROSS JOIN generate_series(1, 2) AS k WHERE e.book_id = $1 AND e.year = $2`,
    [book, year],
  );
}

export async function booksStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("books");
  const sql = createPostgresSql(url, { max: 2 });
  try {
    await migrate(sql);
  } catch (e) {
    await sql.close();
    throw e;
  }
  const service = await startServiceOn(url, ctx.runId);
  try {
    const tenant = service.tenant.id;
    const book = bookIdOf(tenant, null);
    const seedStarted = performance.now();
    await sql.query("INSERT INTO books (tenant_id, id, owner_id) VALUES ($1, $2, NULL)", [tenant, book]);
    await seedYear(sql, tenant, book, 2025, ENTRIES);
    await seedYear(sql, tenant, book, 2024, 3 * ENTRIES);
    await sql.exec("ANALYZE ledger_entries; ANALYZE ledger_lines");
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const fec = `${service.child.url}/api/books/${book}/fec?year=2025&siren=123456789`;
    const headers = { authorization: `Bearer ${service.tenant.key}` };

    // Checked: the whole body, as the tests check theirs.
    const first = await fetch(fec, { headers });
    if (first.status !== 200) throw new Error(`GET the FEC: ${first.status} ${await first.text()}`);
    const text = Buffer.from(await first.arrayBuffer()).toString("latin1");
    const problems = checkFec(text);
    if (problems.length) throw new Error(`the FEC fails its checks: ${problems.slice(0, 3).join("; ")}`);
    const lines = text.split("\r\n").length - 2;
    if (lines !== 2 * ENTRIES) throw new Error(`the FEC has ${lines} lines, ${2 * ENTRIES} expected`);

    // Timed: the body read chunk by chunk and dropped, the service's RSS polled meanwhile; then a
    // year three times larger, whose peak RSS should be the same if the export is streamed.
    const timedGet = async (year: number) => {
      const rss = sampleRss(service.child.pid, 50);
      const started = performance.now();
      const res = await fetch(fec.replace("year=2025", `year=${year}`), { headers });
      let bytes = 0;
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return { seconds: (performance.now() - started) / 1000, bytes, memory: rss.stop() };
    };
    const { seconds, bytes, memory } = await timedGet(2025);
    const larger = await timedGet(2024);
    const after = procMemory(service.child.pid);
    const growth = memory.peak - memory.first;
    const load = (await import("node:os")).loadavg().map((l) => round(l, 2));
    console.log(
      `  FEC of ${ENTRIES} entries over HTTP: ${seconds.toFixed(2)} s, ${(bytes / 1e6).toFixed(1)} MB; service RSS ${mb(memory.first)} → peak ${mb(memory.peak)} → ${mb(memory.last)} MB; ${3 * ENTRIES} entries: ${larger.seconds.toFixed(2)} s, peak ${mb(larger.memory.peak)} MB (load ${load.join(" ")})`,
    );
    ctx.raw.books = {
      entries: ENTRIES,
      lines,
      seedSeconds,
      seconds,
      bytes,
      serviceRss: memory,
      larger,
      after,
      loadavg: load,
    };
    ctx.figures.push(
      {
        step: "books",
        metric: `GET the FEC of ${ENTRIES.toLocaleString("en")} entries (streamed)`,
        value: round(seconds, 2),
        unit: "s",
        target: "≤ 5 s",
        pass: atMost(seconds, 5),
        note: `${(bytes / 1e6).toFixed(1)} MB, ${lines} lines, checked by the tests' FEC checker; load average ${load.join(" ")}`,
      },
      {
        step: "books",
        metric: "service RSS growth during the FEC GET",
        value: mb(growth),
        unit: "MB",
        target: `≤ ${mb(RSS_GROWTH_LIMIT)} MB`,
        pass: atMost(growth, RSS_GROWTH_LIMIT),
        note: `VmRSS polled every 50 ms (${memory.samples} samples): ${mb(memory.first)} MB before, peak ${mb(memory.peak)} MB, ${mb(memory.last)} MB after; VmHWM ${mb(after?.hwm ?? Number.NaN)} MB (since start, the checked GET included)`,
      },
      {
        step: "books",
        metric: `service peak RSS, FEC of ${(3 * ENTRIES).toLocaleString("en")} entries minus ${ENTRIES.toLocaleString("en")}`,
        value: mb(larger.memory.peak - memory.peak),
        unit: "MB",
        target: `≤ ${mb(RSS_GROWTH_LIMIT)} MB`,
        pass: atMost(larger.memory.peak - memory.peak, RSS_GROWTH_LIMIT),
        note: `a year three times larger (${(larger.bytes / 1e6).toFixed(1)} MB in ${larger.seconds.toFixed(2)} s): peak ${mb(larger.memory.peak)} MB against ${mb(memory.peak)} MB`,
      },
    );
  } finally {
    await service.child.stop();
    await sql.close();
  }
}
