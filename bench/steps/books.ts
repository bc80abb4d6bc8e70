import { randomUUID } from "node:crypto";
import { bookIdOf } from "../../src/events/books/index.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { booksProjection } from "../../src/projections/books/index.ts";
import { checkFec, fecFile } from "../../src/queries/books/index.ts";
import { atMost, type Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const ENTRIES = 100_000;

/**
 * The FEC of a large year (docs/accounting.md, "The FEC"): ENTRIES two-line entries of one book
 * written straight into the ledger's tables, then the export streamed as the route streams it.
 * Target ≤ 5 s with flat memory: the export holds one page of 10,000 entries at a time, whatever the
 * year's size; the RSS growth during the export is printed.
 */
export async function booksStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("books");
  const sql = createPostgresSql(url, { max: 2 });
  try {
    await migrate(sql);
    await sql.exec(booksProjection.schema);
    const tenant = randomUUID();
    const book = bookIdOf(tenant, null);
    await sql.query(
      `INSERT INTO ledger_entries (tenant_id, id, book_id, year, number, journal, entry_date, piece_ref, piece_date,
         label, valid_date, lease_id, source_event_id)
       SELECT $1, gen_random_uuid(), $2, 2025, n, 'VT', DATE '2025-01-01' + (n % 365), 'AL2025', DATE '2025-01-01' + (n % 365),
         'Appel de loyer', DATE '2025-01-01' + (n % 365), NULL, gen_random_uuid()
       FROM generate_series(1, $3) AS n`,
      [tenant, book, ENTRIES],
    );
    await sql.query(
      `INSERT INTO ledger_lines (tenant_id, id, entry_id, book_id, line, account, account_label, aux_account, lease_id,
         debit, credit, call_id, lettering, lettered_on)
       SELECT e.tenant_id, gen_random_uuid(), e.id, e.book_id, k, CASE k WHEN 1 THEN '411000' ELSE '706000' END,
         CASE k WHEN 1 THEN 'Locataires' ELSE 'Loyers' END, CASE k WHEN 1 THEN '41100001' END, NULL,
         CASE k WHEN 1 THEN 850.25 ELSE 0 END, CASE k WHEN 1 THEN 0 ELSE 850.25 END, NULL, NULL, NULL
       FROM ledger_entries e CROSS JOIN generate_series(1, 2) AS k`,
    );
    await sql.exec("ANALYZE ledger_entries; ANALYZE ledger_lines");
    const exportYear = async (keep: boolean) => {
      global.gc?.();
      const base = process.memoryUsage().rss;
      let peak = base;
      let bytes = 0;
      const parts: Buffer[] = [];
      const started = performance.now();
      for await (const chunk of fecFile(sql, tenant, book, 2025, "ISO-8859-15")) {
        bytes += chunk.length;
        if (keep) parts.push(chunk);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      return { seconds: (performance.now() - started) / 1000, bytes, growth: peak - base, parts };
    };
    const checked = await exportYear(true);
    const problems = checkFec(Buffer.concat(checked.parts).toString("latin1"));
    if (problems.length) throw new Error(`the FEC fails its checks: ${problems.slice(0, 3).join("; ")}`);
    const run = await exportYear(false);
    console.log(
      `  FEC of ${ENTRIES} entries: ${run.seconds.toFixed(2)} s, ${(run.bytes / 1e6).toFixed(1)} MB, RSS growth ${(run.growth / 1e6).toFixed(1)} MB`,
    );
    ctx.raw.books = { entries: ENTRIES, seconds: run.seconds, bytes: run.bytes, rss_growth: run.growth };
    ctx.figures.push({
      step: "books",
      metric: `FEC export of ${ENTRIES.toLocaleString("en")} entries (streamed)`,
      value: round(run.seconds, 2),
      unit: "s",
      target: "≤ 5 s",
      pass: atMost(run.seconds, 5),
      note: `${(run.bytes / 1e6).toFixed(1)} MB written, RSS growth ${(run.growth / 1e6).toFixed(1)} MB during the export (the file is not held)`,
    });
  } finally {
    await sql.close();
  }
}
