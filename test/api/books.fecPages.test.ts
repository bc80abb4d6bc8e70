import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookIdOf } from "../../src/events/books/index.ts";
import type { Sql } from "../../src/platform/db.ts";
import { booksProjection } from "../../src/projections/books/index.ts";
import { checkFec, fecFile } from "../../src/queries/books/index.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/**
 * The FEC the route streams, page by page (docs/accounting.md, "The FEC"): whatever the page size,
 * the same bytes, every entry with all its lines, numbered without gaps, and only the asked year.
 */
describe("the FEC in pages", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: Sql;
  const tenant = randomUUID();
  const book = bookIdOf(tenant, null);

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    sql = db.sql;
    await sql.exec(booksProjection.schema);
    // 7 entries in 2025 with 1 to 3 lines (an entry of one line balances at zero), a label holding a
    // tab, lettering on some lines; 3 entries in 2024 that the 2025 file must not hold.
    for (const [year, count] of [
      [2025, 7],
      [2024, 3],
    ]) {
      await sql.query(
        `INSERT INTO ledger_entries (tenant_id, id, book_id, year, number, journal, entry_date, piece_ref, piece_date,
           label, valid_date, source_event_id)
         SELECT $1, gen_random_uuid(), $2, $3, n, CASE WHEN n % 2 = 0 THEN 'BQ' ELSE 'VT' END, make_date($3, 1, n),
           'P' || n, make_date($3, 1, n), CASE WHEN n = 4 THEN E'Loyer\tjanvier' ELSE 'Écriture ' || n END,
           make_date($3, 2, n), gen_random_uuid()
         FROM generate_series(1, $4::int) AS n`,
        [tenant, book, year, count],
      );
    }
    await sql.query(
      `INSERT INTO ledger_lines (tenant_id, id, entry_id, book_id, line, account, account_label, aux_account,
         debit, credit, lettering, lettered_on)
       SELECT e.tenant_id, gen_random_uuid(), e.id, e.book_id, k, CASE k WHEN 1 THEN '411000' ELSE '706000' END,
         CASE k WHEN 1 THEN 'Locataires' ELSE 'Loyers' END, CASE k WHEN 1 THEN '41100001' END,
         CASE WHEN k = 1 AND e.number % 3 <> 0 THEN 100.5 ELSE 0 END,
         CASE WHEN e.number % 3 = 0 THEN 0 WHEN k = 1 THEN 0 ELSE 100.5 / (e.number % 3) END,
         CASE WHEN e.number = 2 THEN 'A' END, CASE WHEN e.number = 2 THEN DATE '2025-03-01' END
       FROM ledger_entries e CROSS JOIN generate_series(1, 1 + e.number % 3) AS k
       WHERE e.number % 3 <> 0 OR k = 1`,
    );
  });
  afterAll(async () => {
    await db?.drop();
  });

  const fec = async (year: number, pageSize?: number) => {
    const parts: Buffer[] = [];
    for await (const chunk of fecFile(sql, tenant, book, year, "ISO-8859-15", pageSize)) parts.push(chunk);
    return Buffer.concat(parts);
  };

  it("gives the same bytes with pages of 1, 2, 3 and 5,000 entries", async () => {
    const whole = await fec(2025);
    for (const size of [1, 2, 3]) expect((await fec(2025, size)).equals(whole)).toBe(true);
    const text = whole.toString("latin1");
    const lines = text.replace(/\r\n$/, "").split("\r\n").slice(1);
    // 1 + n % 3 lines for n = 1..7, one for the multiples of 3.
    expect(lines).toHaveLength(2 + 3 + 1 + 2 + 3 + 1 + 2);
    expect(lines.map((l) => l.split("\t")[2])).toEqual([
      "1",
      "1",
      "2",
      "2",
      "2",
      "3",
      "4",
      "4",
      "5",
      "5",
      "5",
      "6",
      "7",
      "7",
    ]);
    expect(lines.every((l) => l.split("\t")[3].startsWith("2025"))).toBe(true);
    expect(lines[6].split("\t")[10]).toBe("Loyer janvier");
    expect(checkFec(text)).toEqual([]);
  });

  it("holds only the asked year, numbered from 1", async () => {
    const text = (await fec(2024, 2)).toString("latin1");
    const numbers = text
      .replace(/\r\n$/, "")
      .split("\r\n")
      .slice(1)
      .map((l) => l.split("\t")[2]);
    expect([...new Set(numbers)]).toEqual(["1", "2", "3"]);
    expect(checkFec(text)).toEqual([]);
    expect((await fec(2023)).toString("latin1")).toBe(`${text.split("\r\n")[0]}\r\n`);
  });
});
