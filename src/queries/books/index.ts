import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bookIdOf } from "../../events/books/index.ts";
import { ownerResource } from "../../events/owners.ts";
import {
  ART_32,
  FLAT_MANAGEMENT_COST_PER_DWELLING,
  flatManagementCosts,
  MICRO_FONCIER_CEILING,
  microFoncierVerdict,
} from "../../law/revenusFonciers.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../../platform/http/pagination.ts";
import { answers } from "../../platform/http/responses.ts";
import { date, uuid } from "../../platform/http/schemas.ts";
import { formatEuro } from "../../platform/pdf/renderTemplate.ts";
import { readResource } from "../../platform/resource/read.ts";
import { ACCOUNTS } from "../../projections/books/postings.ts";
import { ownerExists } from "../owners.ts";
import { renderDocument } from "../rentDocuments.ts";
import { type FecRow, fecFileName, fecHeader, fecLine, latin9 } from "./fec.ts";

export { checkFec, FEC_FIELDS, fecFileName } from "./fec.ts";

/** The books' read side (docs/accounting.md): books, entries, trial balance, FEC and CSV exports. */

const tags = ["Books"];
const read = { access: "FinanceRead" as const };
// The dates every route takes (bounded, real days).
const day = date;

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

/** Entries a page of the FEC holds: about twice as many lines, a few MB at most. */
const FEC_PAGE = 5000;

/** One page of the FEC: the entries numbered after `after`, each with its lines, in file order. */
const fecPage = (sql: Sql, tenantId: string, bookId: string, year: number, after: number, size: number) =>
  sql.asTenant(tenantId, (tx) =>
    // Keyset over (book_id, year, number), its unique index; each entry's lines by ledger_lines_entry
    // (the ORDER BY keeps the lateral a per-entry index lookup: the page costs what the book's page
    // holds, not a scan of every book's lines).
    tx.query<FecRow & { number: number }>(
      `SELECT e.journal, e.number, to_char(e.entry_date, 'YYYYMMDD') AS entry_date, l.account, l.account_label,
         l.aux_account, e.piece_ref, to_char(e.piece_date, 'YYYYMMDD') AS piece_date, e.label, l.debit, l.credit,
         l.lettering, to_char(l.lettered_on, 'YYYYMMDD') AS lettered_on, to_char(e.valid_date, 'YYYYMMDD') AS valid_date
       FROM (SELECT * FROM ledger_entries
             WHERE tenant_id = $1 AND book_id = $2 AND year = $3 AND number > $4
             ORDER BY number LIMIT $5) e
       CROSS JOIN LATERAL (SELECT * FROM ledger_lines WHERE entry_id = e.id ORDER BY line) l
       ORDER BY e.number, l.line`,
      [tenantId, bookId, year, after, size],
    ),
  );

/**
 * The FEC's rows of a year, in entry number order, `size` entries at a time (flat memory). The
 * next page is asked for before this one is written out, so the database and the formatting overlap.
 */
async function* fecRows(
  sql: Sql,
  tenantId: string,
  bookId: string,
  year: number,
  size: number,
): AsyncGenerator<FecRow> {
  let next = fecPage(sql, tenantId, bookId, year, 0, size);
  for (;;) {
    const rows = await next;
    if (rows.length === 0) return;
    next = fecPage(sql, tenantId, bookId, year, Number(rows.at(-1)?.number), size);
    // A reader gone before the end leaves the read-ahead unawaited: not an unhandled rejection.
    next.catch(() => {});
    for (const r of rows) yield r;
  }
}

/** The FEC file of a book's year, in chunks of about 64 kB, encoded: what the route streams (`pageSize`: a test's smaller pages). */
export async function* fecFile(
  sql: Sql,
  tenantId: string,
  bookId: string,
  year: number,
  encoding: "ISO-8859-15" | "UTF-8",
  pageSize = FEC_PAGE,
): AsyncGenerator<Buffer> {
  const encode = encoding === "UTF-8" ? (s: string) => Buffer.from(s, "utf8") : latin9;
  yield encode(`${fecHeader()}\r\n`);
  let chunk = "";
  for await (const row of fecRows(sql, tenantId, bookId, year, pageSize)) {
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

// ---------------------------------------------------------------- mandates, owner statements, 2044

export const mandateBody = z
  .object({
    id: uuid(),
    owner_id: uuid(),
    fee_rate: z.number(),
    vat_rate: z.number(),
    starts_on: day(),
    ends_on: day().nullable(),
  })
  .meta({ id: "ManagementMandate" });

export async function readMandates(sql: Sql, tenantId: string, ownerId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(
      `SELECT id, owner_id, fee_rate, vat_rate, to_char(starts_on, 'YYYY-MM-DD') AS starts_on,
         to_char(ends_on, 'YYYY-MM-DD') AS ends_on
       FROM management_mandates WHERE tenant_id = $1 AND owner_id = $2 ORDER BY starts_on`,
      [tenantId, ownerId],
    ),
  );
  return rows.map((r) => ({ ...r, fee_rate: num(r.fee_rate), vat_rate: num(r.vat_rate) })) as z.output<
    typeof mandateBody
  >[];
}

const euros = (c: number) => Math.round(c) / 100;
const centsOf = (v: unknown) => Math.round(Number(v ?? 0) * 100);

type Sum = { amount: number; entries: string[] };

/**
 * Sums of one book's lines over a period, each with the entries it sums: what the tenants paid
 * (and of it, rent), the deductions kept from deposits, each class 6 account, the payouts made
 * and the dwellings let.
 */
async function sums(sql: Sql, tenantId: string, bookId: string, from: string, to: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ kind: string; amount: string; entries: string[] }>(
      `WITH l AS (
         SELECT e.id AS entry_id, e.payment_id, e.journal, e.piece_ref, e.lease_id, x.account, x.debit, x.credit,
           x.rent_part, x.call_id
         FROM ledger_entries e JOIN ledger_lines x ON x.entry_id = e.id
         WHERE e.tenant_id = $1 AND e.book_id = $2 AND e.entry_date BETWEEN $3 AND $4 AND e.journal <> 'AN')
       SELECT 'collected' AS kind, sum(credit - debit) AS amount, array_agg(DISTINCT entry_id) AS entries
         FROM l WHERE payment_id IS NOT NULL AND account = '411000'
       UNION ALL SELECT 'rent_received', sum(CASE WHEN credit > 0 THEN rent_part ELSE -rent_part END),
         array_agg(DISTINCT entry_id) FROM l WHERE rent_part IS NOT NULL
       UNION ALL SELECT 'deposit_deductions', sum(credit - debit), array_agg(DISTINCT entry_id)
         FROM l WHERE journal = 'OD' AND (piece_ref LIKE 'RD%' OR piece_ref LIKE 'SD%')
           AND (account IN ('708000', '758000') OR (account = '411000' AND call_id IS NOT NULL))
       UNION ALL SELECT 'paid_out', sum(debit - credit), array_agg(DISTINCT entry_id) FROM l WHERE account = '467000'
       UNION ALL SELECT account, sum(debit - credit), array_agg(DISTINCT entry_id)
         FROM l WHERE account LIKE '6%' GROUP BY account
       UNION ALL SELECT 'dwellings', count(DISTINCT bl.estate_id), array_agg(DISTINCT l.entry_id)
         FROM l JOIN book_leases bl ON bl.id = l.lease_id
         WHERE l.journal = 'VT' AND l.account = '706000'`,
      [tenantId, bookId, from, to],
    ),
  );
  const found = new Map<string, Sum>(
    rows.map((r) => [r.kind, { amount: Number(r.amount ?? 0), entries: (r.entries ?? []).filter(Boolean) }]),
  );
  /** The sum of some kinds (accounts), in cents, with their entries. */
  return (...kinds: string[]): { cents: number; entries: string[] } => ({
    cents: kinds.reduce((t, k) => t + centsOf(found.get(k)?.amount), 0),
    entries: [...new Set(kinds.flatMap((k) => found.get(k)?.entries ?? []))],
  });
}

/** Every class 6 account the books post to except the agency's fees: the expenses paid for the owner. */
const EXPENSE_ACCOUNT_LIST = Object.keys(ACCOUNTS).filter((a) => a.startsWith("6") && a !== "622600");

export const statementBody = z
  .object({
    owner_id: uuid(),
    book_id: uuid(),
    from: day(),
    to: day(),
    collected: z
      .number()
      .describe(
        "Paid by the tenants in the period, cancellations deducted, and the deductions kept from deposits",
      ),
    rents: z.number().describe("Of which rents"),
    charges: z.number().describe("Of which charges, unallocated credit and repairs kept from deposits"),
    deposit_deductions: z.number().describe("Of which deductions kept from deposits returned"),
    fees: z.number().describe("The agency's fees (VAT included)"),
    expenses: z.number().describe("Paid for the owner: works, insurance, taxes, co-ownership, penalties"),
    payout: z.number().describe("Due to the owner for the period: collected minus fees and expenses"),
    paid_out: z.number().describe("Paid to the owner in the period (SEPA credit transfers)"),
    entries: z.array(uuid()),
  })
  .meta({ id: "OwnerStatement" });

/** The compte-rendu de gérance of an owner over a period, from the owner's book. */
export async function ownerStatement(sql: Sql, tenantId: string, ownerId: string, from: string, to: string) {
  const bookId = bookIdOf(tenantId, ownerId);
  const s = await sums(sql, tenantId, bookId, from, to);
  const collected = s("collected", "deposit_deductions");
  const rents = s("rent_received");
  const deductions = s("deposit_deductions");
  const fees = s("622600");
  const expenses = s(...EXPENSE_ACCOUNT_LIST);
  const paidOut = s("paid_out");
  return {
    owner_id: ownerId,
    book_id: bookId,
    from,
    to,
    collected: euros(collected.cents),
    rents: euros(rents.cents),
    charges: euros(collected.cents - rents.cents),
    deposit_deductions: euros(deductions.cents),
    fees: euros(fees.cents),
    expenses: euros(expenses.cents),
    payout: euros(collected.cents - fees.cents - expenses.cents),
    paid_out: euros(paidOut.cents),
    entries: [...new Set([collected, fees, expenses, paidOut].flatMap((x) => x.entries))],
  };
}

/** What is due to an owner on a day: all collected for them, less fees, expenses and what was paid out. */
export async function dueToOwner(sql: Sql, tenantId: string, ownerId: string, on: string): Promise<number> {
  const s = await sums(sql, tenantId, bookIdOf(tenantId, ownerId), "1900-01-01", on);
  return (
    s("collected", "deposit_deductions").cents -
    s("622600").cents -
    s(...EXPENSE_ACCOUNT_LIST).cents -
    s("paid_out").cents
  );
}

const taxLine = z.object({ amount: z.number(), label: z.string(), entries: z.array(uuid()) });
export const taxReturnBody = z
  .object({
    year: z.number().int(),
    owner_id: uuid(),
    lines: z.record(z.string(), taxLine),
    micro_foncier_eligible: z.boolean(),
    notes: z.array(z.string()),
  })
  .meta({ id: "TaxReturn2044" });

/**
 * The figures of the déclaration des revenus fonciers (form 2044) of an owner's year, each line
 * from the accounts it sums (docs/accounting.md, "Revenus fonciers").
 */
export async function taxReturn2044(sql: Sql, tenantId: string, ownerId: string, year: number) {
  const s = await sums(sql, tenantId, bookIdOf(tenantId, ownerId), `${year}-01-01`, `${year}-12-31`);
  const line = (label: string, x: { cents: number; entries: string[] }, sign = 1) => ({
    label,
    amount: euros(sign * x.cents),
    entries: x.entries,
  });
  const dwellings = s("dwellings");
  const lines = {
    "211": line("Loyers bruts encaissés", s("rent_received")),
    "221": line("Frais d'administration et de gestion", s("622600", "622800")),
    "222": {
      label: `Autres frais de gestion : ${FLAT_MANAGEMENT_COST_PER_DWELLING} € par local`,
      // The count of dwellings with rent called in the year (a count, read as "cents" / 100).
      amount: flatManagementCosts(dwellings.cents / 100),
      entries: dwellings.entries,
    },
    "223": line("Primes d'assurance", s("616000")),
    "224": line("Dépenses de réparation, d'entretien et d'amélioration", s("615000")),
    "225": line("Charges récupérables non récupérées au départ du locataire", s("614300")),
    "227": line("Taxes foncières", s("635120")),
    "229": line("Provisions pour charges de copropriété payées", s("614100")),
    // Credited: the part of last year's provisions reintegrated (a sum to add back, shown positive).
    "230": line("Régularisation des provisions pour charges de copropriété", s("614200"), -1),
    "250": line("Intérêts d'emprunt", s("661100")),
  };
  const micro = microFoncierVerdict(lines["211"].amount);
  return {
    year,
    owner_id: ownerId,
    lines,
    micro_foncier_eligible: micro.status === "PASS",
    notes: [
      `Micro-foncier possible si les revenus fonciers bruts de l'année ne dépassent pas ${formatEuro(MICRO_FONCIER_CEILING)} (${ART_32}) : ${micro.status === "PASS" ? "c'est le cas" : "ce n'est pas le cas"} pour les loyers tenus ici (le seuil s'apprécie sur tous les revenus fonciers du foyer).`,
      "Ligne 227 : la taxe d'enlèvement des ordures ménagères récupérée sur le locataire n'est pas déductible.",
      "Ligne 230 : à retrancher des charges ; la part des provisions de l'année précédente non déductible ou récupérée.",
    ],
  };
}

// ---------------------------------------------------------------- the owner's documents

const MONTHS = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split(
  " ",
);
/** `1er décembre 2026`, as a French reader reads a date. */
export const longDate = (iso: string) => {
  const [y, m, d] = iso.split("-").map(Number);
  return `${d === 1 ? "1er" : d} ${MONTHS[m - 1]} ${y}`;
};
const cell = (v: string) => v.replaceAll("|", "/");

async function ownerName(sql: Sql, tenantId: string, ownerId: string): Promise<string> {
  const found = await readResource(sql, ownerResource, tenantId, ownerId);
  const b = (found?.body ?? {}) as {
    first_name?: string | null;
    last_name?: string | null;
    legal_name?: string | null;
  };
  return b.legal_name || [b.first_name, b.last_name].filter(Boolean).join(" ") || "Propriétaire";
}

export function statementMarkup(s: z.output<typeof statementBody>, name: string): string {
  return `# Compte-rendu de gérance

Propriétaire : **${cell(name)}**

Période du ${longDate(s.from)} au ${longDate(s.to)}

| Poste | Montant |
| Loyers encaissés | ${formatEuro(s.rents)} |
| Charges et avances encaissées | ${formatEuro(s.charges)} |
| Retenues sur dépôts de garantie | ${formatEuro(s.deposit_deductions)} |
| **Total encaissé** | **${formatEuro(s.collected)}** |
| Honoraires de gestion (TVA comprise) | − ${formatEuro(s.fees)} |
| Dépenses réglées pour votre compte | − ${formatEuro(s.expenses)} |
| **Montant qui vous revient** | **${formatEuro(s.payout)}** |
| Virements effectués sur la période | ${formatEuro(s.paid_out)} |

Chaque montant provient des écritures de votre comptabilité tenue par le service (${s.entries.length} écritures sur la période).
`;
}

export function taxReturnMarkup(t: Awaited<ReturnType<typeof taxReturn2044>>, name: string): string {
  const rows = Object.entries(t.lines)
    .map(([n, l]) => `| **${n}** ${cell(l.label)} | ${formatEuro(l.amount)} | ${l.entries.length} |`)
    .join("\n");
  return `# Revenus fonciers ${t.year} : éléments de la déclaration n° 2044

Propriétaire : **${cell(name)}**

| Ligne de la déclaration | Montant | Écritures |
${rows}

${t.notes.map((n) => `- ${n}`).join("\n")}
`;
}

/** Whether the client asked for the PDF (`Accept: application/pdf` before any JSON). */
const wantsPdf = (accept: string | undefined) => {
  const types = (accept ?? "").split(",").map((t) => t.split(";")[0].trim().toLowerCase());
  const pdf = types.indexOf("application/pdf");
  const json = types.findIndex((t) => t === "application/json" || t === "*/*" || t === "application/*");
  return pdf >= 0 && (json < 0 || pdf < json);
};

export async function ownerBookQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const ownerParams = z.strictObject({ owner_id: uuid() });
  const requireOwner = async (tenantId: string, ownerId: string) => {
    if (!(await ownerExists(sql, tenantId, ownerId))) throw notFound("Owner", ownerId);
  };

  api.get(
    "/api/owners/:owner_id/management-mandates",
    {
      schema: {
        tags,
        summary: "The owner's management mandates",
        params: ownerParams,
        response: answers(z.array(mandateBody)),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      await requireOwner(tenantId, request.params.owner_id);
      return readMandates(sql, tenantId, request.params.owner_id);
    },
  );

  api.get(
    "/api/owners/:owner_id/statements",
    {
      schema: {
        tags,
        summary:
          "The owner's compte-rendu de gérance over a period: collected, fees, expenses, payout; `Accept: application/pdf` for the PDF",
        params: ownerParams,
        querystring: z
          .strictObject({ from: day(), to: day() })
          .refine((q) => q.from <= q.to, { message: "Must not be after `to`", path: ["from"] }),
        response: answers(statementBody),
      },
      config: { ...read, pdfAlternative: true },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const statement = await ownerStatement(sql, tenantId, owner_id, request.query.from, request.query.to);
      if (!wantsPdf(request.headers.accept)) return statement;
      const markup = statementMarkup(statement, await ownerName(sql, tenantId, owner_id));
      return reply
        .header("content-type", "application/pdf")
        .header(
          "content-disposition",
          `attachment; filename="compte-rendu-${statement.from}-${statement.to}.pdf"`,
        )
        .send(await renderDocument(markup, "Compte-rendu de gérance"));
    },
  );

  api.get(
    "/api/owners/:owner_id/tax-returns/2044",
    {
      schema: {
        tags,
        summary:
          "The figures of the owner's form 2044 (revenus fonciers) for a year, each with the entries it sums; `Accept: application/pdf` for the PDF",
        params: ownerParams,
        querystring: z.strictObject({ year: z.coerce.number().int().min(1900).max(2200) }),
        response: answers(taxReturnBody),
      },
      config: { ...read, pdfAlternative: true },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const figures = await taxReturn2044(sql, tenantId, owner_id, request.query.year);
      if (!wantsPdf(request.headers.accept)) return figures;
      const markup = taxReturnMarkup(figures, await ownerName(sql, tenantId, owner_id));
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", `attachment; filename="revenus-fonciers-${figures.year}.pdf"`)
        .send(await renderDocument(markup, `Revenus fonciers ${figures.year}`));
    },
  );
}

export {
  expenseBody,
  mandantsOf,
  ownerBank,
  payoutBody,
  payoutRoutes,
  postedPayouts,
  propertyOwners,
  readExpense,
  readPayout,
} from "./payouts.ts";
