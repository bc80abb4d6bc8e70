import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../../platform/http/pagination.ts";
import { answers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { type FecRow, fecFileName, fecHeader, fecLine, latin9 } from "./fec.ts";

export { checkFec, FEC_FIELDS, fecFileName } from "./fec.ts";

/** The books' read side (docs/accounting.md): books, entries, trial balance, FEC and CSV exports. */

const tags = ["Books"];
const read = { access: "FinanceRead" as const };
const day = () => z.iso.date({ message: "Must be a real date YYYY-MM-DD" });

export const bookBody = z
  .object({
    id: uuid(),
    owner_id: uuid().nullable(),
    closed_through: z.number().int().nullable().describe("The last fiscal year closed"),
    closed_on: day().nullable(),
    entries: z.number().int(),
  })
  .meta({ id: "Book" });

const lineBody = z.object({
  account: z.string(),
  account_label: z.string(),
  aux_account: z.string().nullable(),
  debit: z.number(),
  credit: z.number(),
  rent_call_id: uuid().nullable(),
  lettering: z.string().nullable(),
  lettered_on: day().nullable(),
});

export const entryBody = z
  .object({
    id: uuid(),
    number: z.number().int(),
    journal: z.string(),
    entry_date: day(),
    piece_ref: z.string(),
    piece_date: day(),
    label: z.string(),
    valid_date: day(),
    lease_id: uuid().nullable(),
    lines: z.array(lineBody),
  })
  .meta({ id: "LedgerEntry" });

const balanceLine = z.object({
  account: z.string(),
  account_label: z.string(),
  aux_account: z.string().nullable(),
  debit: z.number(),
  credit: z.number(),
  balance: z.number().describe("Debit minus credit"),
});
export const trialBalanceBody = z
  .object({
    book_id: uuid(),
    on: day(),
    accounts: z.array(balanceLine),
    total_debit: z.number(),
    total_credit: z.number(),
  })
  .meta({ id: "TrialBalance" });

const num = (v: unknown) => Number(v);

const textFile = (type: string, description: string) =>
  z.unknown().meta({ description, content: { [type]: { schema: { type: "string" } } } });
const fecAnswer = textFile("text/plain", "The FEC: tab-separated text, ISO 8859-15 unless UTF-8 is asked");
const csvFile = textFile("text/csv", "CSV for a spreadsheet: UTF-8 with BOM, `;` separated, decimal commas");

export async function readBook(sql: Sql, tenantId: string, bookId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query(
      `SELECT b.id, b.owner_id, b.closed_through, to_char(b.closed_on, 'YYYY-MM-DD') AS closed_on,
         (SELECT count(*)::int FROM ledger_entries e WHERE e.tenant_id = $1 AND e.book_id = b.id) AS entries
       FROM books b WHERE b.tenant_id = $1 AND b.id = $2`,
      [tenantId, bookId],
    ),
  );
  return row ?? null;
}

async function requireBook(sql: Sql, tenantId: string, bookId: string) {
  const book = await readBook(sql, tenantId, bookId);
  if (!book) throw notFound("Book", bookId);
  return book;
}

export async function readEntries(
  sql: Sql,
  tenantId: string,
  bookId: string,
  q: { from?: string; to?: string; page: number; limit: number },
) {
  return sql.asTenant(tenantId, async (tx) => {
    const where = `e.tenant_id = $1 AND e.book_id = $2 AND ($3::date IS NULL OR e.entry_date >= $3)
      AND ($4::date IS NULL OR e.entry_date <= $4)`;
    const args = [tenantId, bookId, q.from ?? null, q.to ?? null];
    const [{ total }] = await tx.query(
      `SELECT count(*)::int AS total FROM ledger_entries e WHERE ${where}`,
      args,
    );
    const rows = await tx.query(
      `SELECT e.id, e.number, e.journal, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.piece_ref,
         to_char(e.piece_date, 'YYYY-MM-DD') AS piece_date, e.label, to_char(e.valid_date, 'YYYY-MM-DD') AS valid_date,
         e.lease_id,
         (SELECT json_agg(json_build_object('account', l.account, 'account_label', l.account_label,
            'aux_account', l.aux_account, 'debit', l.debit, 'credit', l.credit, 'rent_call_id', l.call_id,
            'lettering', l.lettering, 'lettered_on', l.lettered_on) ORDER BY l.line)
          FROM ledger_lines l WHERE l.entry_id = e.id) AS lines
       FROM ledger_entries e WHERE ${where} ORDER BY e.entry_date, e.year, e.number LIMIT $5 OFFSET $6`,
      [...args, q.limit, offsetOf(q)],
    );
    const items = rows.map((r) => ({
      ...r,
      lines: (r.lines ?? []).map((l: Record<string, unknown>) => ({
        ...l,
        debit: num(l.debit),
        credit: num(l.credit),
      })),
    }));
    return { items, total: Number(total), page: q.page, limit: q.limit };
  });
}

export async function readTrialBalance(sql: Sql, tenantId: string, bookId: string, on: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(
      `SELECT l.account, min(l.account_label) AS account_label, l.aux_account,
         sum(l.debit) AS debit, sum(l.credit) AS credit
       FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
       WHERE l.tenant_id = $1 AND l.book_id = $2 AND e.entry_date <= $3
       GROUP BY l.account, l.aux_account ORDER BY l.account, l.aux_account NULLS FIRST`,
      [tenantId, bookId, on],
    ),
  );
  const accounts = rows.map((r) => {
    const debit = num(r.debit);
    const credit = num(r.credit);
    return { ...r, debit, credit, balance: Math.round((debit - credit) * 100) / 100 };
  });
  const total = (k: "debit" | "credit") => Math.round(accounts.reduce((s, a) => s + a[k] * 100, 0)) / 100;
  return { book_id: bookId, on, accounts, total_debit: total("debit"), total_credit: total("credit") };
}

/** French CSV as spreadsheets open it: UTF-8 with BOM, `;`, decimal commas. */
const csvCell = (v: unknown) => {
  const s = typeof v === "number" ? v.toFixed(2).replace(".", ",") : String(v ?? "");
  return /[;"\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
export const toCsv = (header: string[], rows: unknown[][]) =>
  `\uFEFF${[header, ...rows].map((r) => r.map(csvCell).join(";")).join("\r\n")}\r\n`;

/** The FEC's rows of a year, in entry number order, fetched 10,000 entries at a time (flat memory). */
async function* fecRows(sql: Sql, tenantId: string, bookId: string, year: number): AsyncGenerator<FecRow> {
  let after = 0;
  for (;;) {
    const rows = await sql.asTenant(tenantId, (tx) =>
      tx.query<FecRow & { number: number }>(
        `SELECT e.journal, e.number, to_char(e.entry_date, 'YYYYMMDD') AS entry_date, l.account, l.account_label,
           l.aux_account, e.piece_ref, to_char(e.piece_date, 'YYYYMMDD') AS piece_date, e.label, l.debit, l.credit,
           l.lettering, to_char(l.lettered_on, 'YYYYMMDD') AS lettered_on, to_char(e.valid_date, 'YYYYMMDD') AS valid_date
         FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
         WHERE e.tenant_id = $1 AND e.book_id = $2 AND e.year = $3
           AND e.number > $4 AND e.number <= $4 + 10000
         ORDER BY e.number, l.line`,
        [tenantId, bookId, year, after],
      ),
    );
    if (rows.length === 0) return;
    for (const r of rows) yield r;
    after = Number(rows.at(-1)?.number);
  }
}

/** The FEC file of a book's year, in chunks of about 64 kB, encoded: what the route streams. */
export async function* fecFile(
  sql: Sql,
  tenantId: string,
  bookId: string,
  year: number,
  encoding: "ISO-8859-15" | "UTF-8",
): AsyncGenerator<Buffer> {
  const encode = encoding === "UTF-8" ? (s: string) => Buffer.from(s, "utf8") : latin9;
  yield encode(`${fecHeader()}\r\n`);
  let chunk = "";
  for await (const row of fecRows(sql, tenantId, bookId, year)) {
    chunk += `${fecLine(row)}\r\n`;
    if (chunk.length > 64_000) {
      yield encode(chunk);
      chunk = "";
    }
  }
  if (chunk) yield encode(chunk);
}

const fecQuery = z.strictObject({
  year: z.coerce.number().int().min(1900).max(2200),
  siren: z
    .string()
    .regex(/^\d{9}$/, "Must be the lessor's SIREN: 9 digits")
    .optional()
    .describe("Names the file; 000000000 when the lessor has none (a person)"),
  encoding: z.enum(["ISO-8859-15", "UTF-8"]).default("ISO-8859-15"),
});

export async function bookQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const bookParams = z.strictObject({ book_id: uuid() });

  api.get(
    "/api/books",
    {
      schema: {
        tags,
        summary: "The books: one per owner of the estates let, one for the company itself",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(bookBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const page = await sql.asTenant(tenantId, async (tx) => {
        const [{ total }] = await tx.query("SELECT count(*)::int AS total FROM books WHERE tenant_id = $1", [
          tenantId,
        ]);
        const items = await tx.query(
          `SELECT b.id, b.owner_id, b.closed_through, to_char(b.closed_on, 'YYYY-MM-DD') AS closed_on,
             (SELECT count(*)::int FROM ledger_entries e WHERE e.tenant_id = $1 AND e.book_id = b.id) AS entries
           FROM books b WHERE b.tenant_id = $1 ORDER BY b.id LIMIT $2 OFFSET $3`,
          [tenantId, request.query.limit, offsetOf(request.query)],
        );
        return { items, total: Number(total), ...request.query };
      });
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/books/:book_id",
    { schema: { tags, summary: "A book", params: bookParams, response: answers(bookBody) }, config: read },
    async (request) => requireBook(sql, tenantOf(request), request.params.book_id),
  );

  api.get(
    "/api/books/:book_id/entries",
    {
      schema: {
        tags,
        summary: "Entries of a book by date (the journals), with their lines",
        params: bookParams,
        querystring: z.strictObject({
          from: day().optional(),
          to: day().optional(),
          ...pageQuery,
        }),
        response: answers(z.array(entryBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requireBook(sql, tenantId, request.params.book_id);
      const page = await readEntries(sql, tenantId, request.params.book_id, request.query);
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/books/:book_id/trial-balance",
    {
      schema: {
        tags,
        summary: "Trial balance (balance générale) on a day: each account's debits, credits and balance",
        params: bookParams,
        querystring: z.strictObject({ on: day() }),
        response: answers(trialBalanceBody),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      await requireBook(sql, tenantId, request.params.book_id);
      const balance = await readTrialBalance(sql, tenantId, request.params.book_id, request.query.on);
      return balance;
    },
  );

  api.get(
    "/api/books/:book_id/fec",
    {
      schema: {
        tags,
        summary:
          "The fichier des écritures comptables of a year (LPF art. L47 A, A47 A-1): 18 fields, tab-separated",
        params: bookParams,
        querystring: fecQuery,
        response: answers(fecAnswer),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { book_id } = request.params;
      const { year, siren, encoding } = request.query;
      await requireBook(sql, tenantId, book_id);
      return reply
        .type(`text/plain; charset=${encoding.toLowerCase()}`)
        .header("content-disposition", `attachment; filename="${fecFileName(siren ?? "000000000", year)}"`)
        .send(Readable.from(fecFile(sql, tenantId, book_id, year, encoding)));
    },
  );

  api.get(
    "/api/books/:book_id/exports/entries.csv",
    {
      schema: {
        tags,
        summary: "The journals as CSV (a line per entry line): UTF-8 with BOM, `;`, decimal commas",
        params: bookParams,
        querystring: z.strictObject({ from: day().optional(), to: day().optional() }),
        response: answers(csvFile),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requireBook(sql, tenantId, request.params.book_id);
      const page = await readEntries(sql, tenantId, request.params.book_id, {
        ...request.query,
        page: 1,
        limit: 1_000_000,
      });
      const rows = page.items.flatMap((e) =>
        e.lines.map((l: z.output<typeof lineBody>) => [
          e.journal,
          e.number,
          e.entry_date,
          e.piece_ref,
          e.label,
          l.account,
          l.account_label,
          l.aux_account,
          l.debit,
          l.credit,
          l.lettering,
        ]),
      );
      const header = [
        "Journal",
        "N°",
        "Date",
        "Pièce",
        "Libellé",
        "Compte",
        "Intitulé",
        "Auxiliaire",
        "Débit",
        "Crédit",
        "Lettrage",
      ];
      return reply.type("text/csv; charset=utf-8").send(toCsv(header, rows));
    },
  );

  api.get(
    "/api/books/:book_id/exports/trial-balance.csv",
    {
      schema: {
        tags,
        summary: "The trial balance on a day as CSV: UTF-8 with BOM, `;`, decimal commas",
        params: bookParams,
        querystring: z.strictObject({ on: day() }),
        response: answers(csvFile),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requireBook(sql, tenantId, request.params.book_id);
      const balance = await readTrialBalance(sql, tenantId, request.params.book_id, request.query.on);
      const rows = balance.accounts.map((a) => [
        a.account,
        a.account_label,
        a.aux_account,
        a.debit,
        a.credit,
        a.balance,
      ]);
      rows.push(["Total", "", "", balance.total_debit, balance.total_credit, ""]);
      return reply
        .type("text/csv; charset=utf-8")
        .send(toCsv(["Compte", "Intitulé", "Auxiliaire", "Débit", "Crédit", "Solde"], rows));
    },
  );
}
