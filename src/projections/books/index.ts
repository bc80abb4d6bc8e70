import {
  type BookEvent,
  bookEventTypes,
  bookIdOf,
  type MandateEvent,
  mandateEventTypes,
  type OwnerExpense,
  type OwnerExpenseEvent,
  ownerExpenseEventTypes,
  type PayoutEvent,
  payoutEventTypes,
} from "../../events/books/index.ts";
import { type DepositEvent, depositEventTypes } from "../../events/deposits.ts";
import type { EstateEvent } from "../../events/estates.ts";
import type { LeaseEvent } from "../../events/leases.ts";
import { type AccountEvent, accountEventTypes } from "../../events/rentCycle.ts";
import type { SyndicEvent } from "../../events/syndic.ts";
import { cents } from "../../law/money.ts";
import type { Sql } from "../../platform/db.ts";
import type { RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { parisDate } from "../../platform/formatDates.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { eventsOf, type Projection, tenantPolicy } from "../../platform/projections/projection.ts";
import {
  ACCOUNTS,
  expensePostings,
  type LeaseFacts,
  type MoneyEvent,
  type Posting,
  payoutPosting,
  postingOf,
  syndicPosting,
} from "./postings.ts";

export {
  ACCOUNTS,
  EXPENSE_ACCOUNTS,
  expensePostings,
  feeOf,
  isBalanced,
  JOURNALS,
  type Posting,
  payoutPosting,
  postingOf,
  syndicPosting,
} from "./postings.ts";

/**
 * `books`: the ledger of each lessor (docs/accounting.md), posted from the money events in log
 * order, so a rebuild gives the same entries, numbers and letterings. Tables:
 * - `books`: one per lessor (owner, or the company for estates without one), its closed years;
 * - `book_leases`, `book_estates`: the lease's estate and deposit, the estate's owner (which book);
 * - `book_counters`: the last entry number per book and year (FEC: a sequence without gaps), the
 *   last lettering code and auxiliary account number per book;
 * - `book_tenant_accounts`: the auxiliary account of each lease in a book (411 + number);
 * - `ledger_entries` and `ledger_lines`: the entries, each balanced, and their lines;
 * - `owner_expenses`: each owner's expenses and their cancellation;
 * - `payouts`, `payout_transfers`: the payouts to the owners, a transfer per owner.
 */

const LEASE_TYPES = [
  "LeaseCreated",
  "LeaseUpdated",
  "LeaseAmended",
  "LeaseActivated",
] as const satisfies readonly LeaseEvent["type"][];
const ESTATE_TYPES = [
  "EstateCreated",
  "EstateOwnershipTransferred",
] as const satisfies readonly EstateEvent["type"][];
type Handled =
  | Extract<LeaseEvent, { type: (typeof LEASE_TYPES)[number] }>
  | Extract<EstateEvent, { type: (typeof ESTATE_TYPES)[number] }>
  | AccountEvent
  | DepositEvent
  | BookEvent
  | MandateEvent
  | OwnerExpenseEvent
  | PayoutEvent
  | Extract<SyndicEvent, { type: "SyndicPaymentRecorded" }>;
const HANDLES = [
  ...LEASE_TYPES,
  ...ESTATE_TYPES,
  ...accountEventTypes,
  ...depositEventTypes,
  ...bookEventTypes,
  ...mandateEventTypes,
  ...ownerExpenseEventTypes,
  ...payoutEventTypes,
  "SyndicPaymentRecorded",
] as const satisfies readonly Handled["type"][];

const SCHEMA = `
CREATE TABLE books (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  owner_id uuid,
  closed_through integer,
  closed_on date
);
CREATE INDEX books_tenant ON books (tenant_id, id);
${tenantPolicy("books")}
CREATE TABLE book_estates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  owner_id uuid
);
${tenantPolicy("book_estates")}
CREATE TABLE book_leases (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  start_date date,
  deposit_cents bigint NOT NULL DEFAULT 0
);
${tenantPolicy("book_leases")}
CREATE TABLE management_mandates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL,
  fee_rate numeric NOT NULL,
  vat_rate numeric NOT NULL,
  starts_on date NOT NULL,
  ends_on date
);
CREATE INDEX management_mandates_owner ON management_mandates (tenant_id, owner_id, starts_on);
${tenantPolicy("management_mandates")}
CREATE TABLE book_counters (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  last_value integer NOT NULL
);
${tenantPolicy("book_counters")}
CREATE TABLE book_tenant_accounts (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  aux_account text NOT NULL
);
${tenantPolicy("book_tenant_accounts")}
CREATE TABLE ledger_entries (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL,
  year integer NOT NULL,
  number integer NOT NULL,
  journal text NOT NULL,
  entry_date date NOT NULL,
  piece_ref text NOT NULL,
  piece_date date NOT NULL,
  label text NOT NULL,
  valid_date date NOT NULL,
  lease_id uuid,
  payment_id uuid,
  source_event_id uuid NOT NULL,
  UNIQUE (book_id, year, number)
);
CREATE INDEX ledger_entries_book ON ledger_entries (tenant_id, book_id, entry_date, number);
CREATE UNIQUE INDEX ledger_entries_source ON ledger_entries (source_event_id);
${tenantPolicy("ledger_entries")}
CREATE TABLE ledger_lines (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  entry_id uuid NOT NULL,
  book_id uuid NOT NULL,
  line integer NOT NULL,
  account text NOT NULL,
  account_label text NOT NULL,
  aux_account text,
  lease_id uuid,
  debit numeric(14,2) NOT NULL,
  credit numeric(14,2) NOT NULL,
  call_id uuid,
  rent_part numeric(14,2),
  lettering text,
  lettered_on date
);
CREATE INDEX ledger_lines_entry ON ledger_lines (entry_id, line);
CREATE INDEX ledger_lines_call ON ledger_lines (book_id, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX ledger_lines_account ON ledger_lines (tenant_id, book_id, account);
${tenantPolicy("ledger_lines")}
CREATE TABLE owner_expenses (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL,
  kind text NOT NULL,
  amount numeric(14,2) NOT NULL,
  paid_on date NOT NULL,
  label text NOT NULL,
  lease_id uuid,
  estate_id uuid,
  cancelled_on date,
  recorded_at timestamptz NOT NULL
);
CREATE INDEX owner_expenses_owner ON owner_expenses (tenant_id, owner_id, paid_on);
${tenantPolicy("owner_expenses")}
CREATE TABLE payouts (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  bank_account_id uuid NOT NULL,
  paid_on date NOT NULL,
  created_at timestamptz NOT NULL,
  total numeric(14,2) NOT NULL
);
CREATE INDEX payouts_account ON payouts (tenant_id, bank_account_id);
${tenantPolicy("payouts")}
CREATE TABLE payout_transfers (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  payout_id uuid NOT NULL,
  line integer NOT NULL,
  owner_id uuid NOT NULL,
  amount numeric(14,2) NOT NULL,
  end_to_end_id text NOT NULL,
  entry_id uuid NOT NULL
);
CREATE INDEX payout_transfers_payout ON payout_transfers (payout_id, line);
${tenantPolicy("payout_transfers")}`;

/** The version follows the tables' DDL and the posting rules' revision: either change rebuilds. */
const POSTING_RULES = 2;
const VERSION =
  [...`${SCHEMA}${POSTING_RULES}`].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7) >>> 1;

/** Lettering codes: A..Z, AA..ZZ, AAA..., as accounting software shows them. */
export function letteringCode(n: number): string {
  let s = "";
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

async function nextValue(tx: Sql, tenantId: string, ...key: string[]): Promise<number> {
  const [row] = await tx.query<{ last_value: number }>(
    `INSERT INTO book_counters (tenant_id, id, last_value) VALUES ($1, $2, 1)
     ON CONFLICT (id) DO UPDATE SET last_value = book_counters.last_value + 1 RETURNING last_value`,
    [tenantId, deterministicUuid("book_counter", ...key)],
  );
  return Number(row.last_value);
}

async function tenantAccount(tx: Sql, tenantId: string, bookId: string, leaseId: string): Promise<string> {
  const id = deterministicUuid("book_tenant_account", bookId, leaseId);
  const [known] = await tx.query<{ aux_account: string }>(
    "SELECT aux_account FROM book_tenant_accounts WHERE id = $1",
    [id],
  );
  if (known) return known.aux_account;
  const aux = `411${String(await nextValue(tx, tenantId, bookId, "aux")).padStart(5, "0")}`;
  await tx.query(
    "INSERT INTO book_tenant_accounts (tenant_id, id, book_id, lease_id, aux_account) VALUES ($1, $2, $3, $4, $5)",
    [tenantId, id, bookId, leaseId, aux],
  );
  return aux;
}

/**
 * Letters the lines of each call whose payments now cover it exactly within one fiscal year (a
 * call still open at a closing is carried into the next year by its own "à nouveaux" line, and
 * lettered there); unletters one they no longer cover.
 */
async function letter(
  tx: Sql,
  tenantId: string,
  bookId: string,
  year: number,
  callIds: string[],
  on: string,
) {
  for (const callId of new Set(callIds)) {
    const [sums] = await tx.query<{ debit: string; credit: string; lettering: string | null }>(
      `SELECT sum(l.debit) AS debit, sum(l.credit) AS credit, max(l.lettering) AS lettering
       FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
       WHERE l.book_id = $1 AND l.call_id = $2 AND e.year = $3`,
      [bookId, callId, year],
    );
    const covered = cents(Number(sums.debit)) > 0 && cents(Number(sums.debit)) === cents(Number(sums.credit));
    const lines = `id IN (SELECT l.id FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
      WHERE l.book_id = $1 AND l.call_id = $2 AND e.year = $3)`;
    if (covered && !sums.lettering) {
      const code = letteringCode(await nextValue(tx, tenantId, bookId, "lettering"));
      await tx.query(`UPDATE ledger_lines SET lettering = $4, lettered_on = $5 WHERE ${lines}`, [
        bookId,
        callId,
        year,
        code,
        on,
      ]);
    } else if (!covered && sums.lettering) {
      await tx.query(`UPDATE ledger_lines SET lettering = NULL, lettered_on = NULL WHERE ${lines}`, [
        bookId,
        callId,
        year,
      ]);
    }
  }
}

/** The book an owner's postings go to, created on its first entry; its last closed year. */
async function bookOf(tx: Sql, tenantId: string, ownerId: string | null) {
  const bookId = bookIdOf(tenantId, ownerId);
  const [book] = await tx.query<{ closed_through: number | null }>(
    `INSERT INTO books (tenant_id, id, owner_id) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET owner_id = books.owner_id RETURNING closed_through`,
    [tenantId, bookId, ownerId],
  );
  return { bookId, closed: book.closed_through };
}

/** The rent share of a call (its 706 over its total), from its own entry: what a payment of it pays of rent. */
async function rentShare(tx: Sql, bookId: string, callId: string): Promise<number> {
  const called = `SELECT t.entry_id, t.debit FROM ledger_lines t JOIN ledger_entries e ON e.id = t.entry_id AND e.journal = 'VT'
    WHERE t.book_id = $1 AND t.call_id = $2 AND t.account = '411000' AND t.debit > 0`;
  const [row] = await tx.query<{ rent: string | null; total: string | null }>(
    `SELECT (SELECT sum(l.credit) FROM ledger_lines l WHERE l.account = '706000'
               AND l.entry_id IN (SELECT entry_id FROM (${called}) c)) AS rent,
            (SELECT sum(debit) FROM (${called}) c) AS total`,
    [bookId, callId],
  );
  const total = Number(row?.total ?? 0);
  return total > 0 ? Number(row?.rent ?? 0) / total : 0;
}

interface EntryWrite {
  tenantId: string;
  bookId: string;
  closed: number | null;
  eventId: string;
  recordedOn: string;
  leaseId: string | null;
  paymentId: string | null;
  posting: Posting;
}

/** Writes one entry and its lines, numbered in its year; letters the calls it touches. */
async function writeEntry(tx: Sql, w: EntryWrite) {
  const { tenantId, bookId, posting: p } = w;
  // A closed year takes no new entry: the posting is dated in the first open year.
  const date = w.closed !== null && Number(p.date.slice(0, 4)) <= w.closed ? `${w.closed + 1}-01-01` : p.date;
  const year = Number(date.slice(0, 4));
  const number = await nextValue(tx, tenantId, bookId, "entry", String(year));
  const entryId = deterministicUuid("ledger_entry", w.eventId);
  const aux =
    w.leaseId && p.lines.some((l) => l.tenant) ? await tenantAccount(tx, tenantId, bookId, w.leaseId) : null;
  await tx.query(
    `INSERT INTO ledger_entries (tenant_id, id, book_id, year, number, journal, entry_date, piece_ref, piece_date,
       label, valid_date, lease_id, payment_id, source_event_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      tenantId,
      entryId,
      bookId,
      year,
      number,
      p.journal,
      date,
      p.piece_ref,
      p.date,
      p.label,
      w.recordedOn,
      w.leaseId,
      w.paymentId,
      w.eventId,
    ],
  );
  const lines = [];
  for (const [i, l] of p.lines.entries()) {
    // What a tenant's payment (or its cancellation), or an unpaid rent settled from the deposit,
    // pays of rent, for the revenus fonciers (line 211).
    const settles = w.paymentId !== null || p.piece_ref.startsWith("RD");
    const share =
      l.tenant && l.call_id && settles && p.journal !== "VT"
        ? await rentShare(tx, bookId, l.call_id.toLowerCase())
        : null;
    lines.push({
      tenant_id: tenantId,
      id: deterministicUuid("ledger_line", entryId, String(i)),
      entry_id: entryId,
      book_id: bookId,
      line: i + 1,
      account: l.account,
      account_label: ACCOUNTS[l.account],
      aux_account: l.tenant ? aux : null,
      lease_id: l.tenant ? w.leaseId : null,
      debit: (l.debit / 100).toFixed(2),
      credit: (l.credit / 100).toFixed(2),
      call_id: l.call_id,
      rent_part: share === null ? null : (Math.round((l.debit + l.credit) * share) / 100).toFixed(2),
      lettering: null,
      lettered_on: null,
    });
  }
  await tx.query(
    "INSERT INTO ledger_lines SELECT * FROM jsonb_populate_recordset(NULL::ledger_lines, $1::jsonb)",
    [JSON.stringify(lines)],
  );
  const calls = p.lines.flatMap((l) => (l.call_id ? [l.call_id.toLowerCase()] : []));
  if (calls.length) await letter(tx, tenantId, bookId, year, calls, date);
}

async function post(tx: Sql, e: RecordedEvent<MoneyEvent>) {
  const tenantId = e.metadata.tenant_id;
  const leaseId = e.data.lease_id.toLowerCase();
  const [lease] = await tx.query<{
    deposit_cents: string;
    start_date: string | null;
    owner_id: string | null;
  }>(
    `SELECT l.deposit_cents, to_char(l.start_date, 'YYYY-MM-DD') AS start_date, es.owner_id
     FROM book_leases l LEFT JOIN book_estates es ON es.id = l.estate_id
     WHERE l.id = $1 AND l.tenant_id = $2`,
    [leaseId, tenantId],
  );
  if (!lease) return;
  // A lease activated again (after a return to draft) received its deposit once.
  if (e.type === "LeaseActivated") {
    const [received] = await tx.query(
      "SELECT 1 FROM ledger_entries WHERE lease_id = $1 AND journal = 'BQ' AND piece_ref LIKE 'DG%'",
      [leaseId],
    );
    if (received) return;
  }
  const { bookId, closed } = await bookOf(tx, tenantId, lease.owner_id);
  const facts: LeaseFacts = { deposit_cents: Number(lease.deposit_cents), start_date: lease.start_date };
  const paymentId =
    e.type === "PaymentRecorded" || e.type === "PaymentCancelled" ? e.data.payment_id.toLowerCase() : null;
  if (e.type === "PaymentRecorded" && lease.owner_id) {
    const [mandate] = await tx.query<{ fee_rate: string; vat_rate: string }>(
      `SELECT fee_rate, vat_rate FROM management_mandates
       WHERE owner_id = $1 AND starts_on <= $2 AND (ends_on IS NULL OR $2 <= ends_on) LIMIT 1`,
      [lease.owner_id, e.data.paid_on],
    );
    facts.mandate = mandate && { fee_rate: Number(mandate.fee_rate), vat_rate: Number(mandate.vat_rate) };
  }
  if (e.type === "PaymentCancelled") {
    const [fee] = await tx.query<{ fee: string | null }>(
      `SELECT sum(l.debit) AS fee FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
       WHERE e.book_id = $1 AND e.payment_id = $2 AND e.journal = 'BQ' AND l.account = '622600'`,
      [bookId, paymentId],
    );
    facts.fee_cents = cents(Number(fee?.fee ?? 0));
  }
  const recordedOn = parisDate(e.metadata.occurred_at);
  const posting = postingOf(e, facts, recordedOn);
  if (!posting) return;
  await writeEntry(tx, {
    tenantId,
    bookId,
    closed,
    eventId: e.event_id,
    recordedOn,
    leaseId,
    paymentId,
    posting,
  });
}

/** A provision the owner paid to the syndic, in the book of the estate's owner. */
async function postSyndicPayment(
  tx: Sql,
  e: RecordedEvent<Extract<SyndicEvent, { type: "SyndicPaymentRecorded" }>>,
) {
  const tenantId = e.metadata.tenant_id;
  const [estate] = await tx.query<{ owner_id: string | null }>(
    "SELECT owner_id FROM book_estates WHERE id = $1 AND tenant_id = $2",
    [e.data.estate_id, tenantId],
  );
  const posting = syndicPosting(e.data);
  if (!estate || !posting) return;
  const { bookId, closed } = await bookOf(tx, tenantId, estate.owner_id);
  const recordedOn = parisDate(e.metadata.occurred_at);
  await writeEntry(tx, {
    tenantId,
    bookId,
    closed,
    eventId: e.event_id,
    recordedOn,
    leaseId: null,
    paymentId: null,
    posting,
  });
}

/** An owner's expense, or its reversal, in the owner's book: one entry per posting of it. */
async function postExpense(tx: Sql, e: RecordedEvent<OwnerExpenseEvent>) {
  const tenantId = e.metadata.tenant_id;
  const recordedOn = parisDate(e.metadata.occurred_at);
  let expense: OwnerExpense;
  let cancelled = false;
  if (e.type === "OwnerExpenseRecorded") {
    expense = e.data;
    await tx.query(
      `INSERT INTO owner_expenses (tenant_id, id, owner_id, kind, amount, paid_on, label, lease_id, estate_id, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
      [
        tenantId,
        expense.expense_id,
        expense.owner_id,
        expense.kind,
        expense.amount,
        expense.paid_on,
        expense.label,
        expense.lease_id,
        expense.estate_id,
        e.metadata.occurred_at,
      ],
    );
  } else {
    const [row] = await tx.query<OwnerExpense>(
      `UPDATE owner_expenses SET cancelled_on = $2 WHERE id = $1
       RETURNING id AS expense_id, owner_id, kind, amount::float8 AS amount, to_char(paid_on, 'YYYY-MM-DD') AS paid_on,
         label, lease_id, estate_id`,
      [e.data.expense_id, e.data.cancelled_on],
    );
    if (!row) return;
    expense = row;
    cancelled = true;
  }
  const { bookId, closed } = await bookOf(tx, tenantId, expense.owner_id);
  for (const [i, posting] of expensePostings(expense, cancelled).entries())
    await writeEntry(tx, {
      tenantId,
      bookId,
      closed,
      // The event's first entry carries its id (what a replayed batch is checked against).
      eventId: i === 0 ? e.event_id : deterministicUuid("ledger_entry_of", e.event_id, String(i)),
      recordedOn,
      leaseId: expense.lease_id,
      paymentId: null,
      posting,
    });
}

/** A payout: in each owner's book, what the agency pays them (D 467 / C 512); the payout's record. */
async function postPayout(tx: Sql, e: RecordedEvent<PayoutEvent>) {
  const tenantId = e.metadata.tenant_id;
  const d = e.data;
  const total = d.transfers.reduce((s, t) => s + cents(t.amount), 0);
  await tx.query(
    `INSERT INTO payouts (tenant_id, id, bank_account_id, paid_on, created_at, total) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [tenantId, d.payout_id, d.bank_account_id, d.on, d.created_at, (total / 100).toFixed(2)],
  );
  const recordedOn = parisDate(e.metadata.occurred_at);
  for (const [i, t] of d.transfers.entries()) {
    const eventId = i === 0 ? e.event_id : deterministicUuid("ledger_entry_of", e.event_id, String(i));
    const [posted] = await tx.query("SELECT 1 FROM ledger_entries WHERE source_event_id = $1", [eventId]);
    if (posted) continue;
    const posting = payoutPosting(d.on, t.amount, t.end_to_end_id.slice(0, 40));
    if (!posting) continue;
    const { bookId, closed } = await bookOf(tx, tenantId, t.owner_id);
    await writeEntry(tx, {
      tenantId,
      bookId,
      closed,
      eventId,
      recordedOn,
      leaseId: null,
      paymentId: null,
      posting,
    });
    await tx.query(
      `INSERT INTO payout_transfers (tenant_id, id, payout_id, line, owner_id, amount, end_to_end_id, entry_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
      [
        tenantId,
        deterministicUuid("payout_transfer", d.payout_id, String(i)),
        d.payout_id,
        i + 1,
        t.owner_id,
        t.amount,
        t.end_to_end_id,
        deterministicUuid("ledger_entry", eventId),
      ],
    );
  }
}

/**
 * The closing of a year opens the next with its "à nouveaux" (the FEC's first entries of a year):
 * the closing balance of each balance-sheet account (classes 1 to 5, each tenant's auxiliary
 * account apart) and the year's result (classes 6 and 7) to 120 or 129. Balanced because every
 * entry of the year is.
 */
async function carryForward(
  tx: Sql,
  eventId: string,
  tenantId: string,
  bookId: string,
  year: number,
  on: string,
) {
  // Each open call of a tenant apart, so that its payment next year letters with it.
  const rows = await tx.query<{
    account: string;
    aux_account: string | null;
    lease_id: string | null;
    call_id: string | null;
    balance: string;
  }>(
    `SELECT l.account, l.aux_account, l.lease_id, l.call_id, sum(l.debit) - sum(l.credit) AS balance
     FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
     WHERE e.book_id = $1 AND e.year = $2 GROUP BY l.account, l.aux_account, l.lease_id, l.call_id
     ORDER BY 1, 2, 4`,
    [bookId, year],
  );
  const balanceSheet = rows.filter((r) => /^[1-5]/.test(r.account) && cents(Number(r.balance)) !== 0);
  const result = rows
    .filter((r) => /^[67]/.test(r.account))
    .reduce((s, r) => s + cents(Number(r.balance)), 0);
  if (balanceSheet.length === 0 && result === 0) return;
  const next = year + 1;
  const number = await nextValue(tx, tenantId, bookId, "entry", String(next));
  const entryId = deterministicUuid("ledger_entry", eventId);
  const date = `${next}-01-01`;
  await tx.query(
    `INSERT INTO ledger_entries (tenant_id, id, book_id, year, number, journal, entry_date, piece_ref, piece_date,
       label, valid_date, lease_id, source_event_id)
     VALUES ($1, $2, $3, $4, $5, 'AN', $6, $7, $8, $9, $10, NULL, $11)`,
    [
      tenantId,
      entryId,
      bookId,
      next,
      number,
      date,
      `AN${next}`,
      `${year}-12-31`,
      `À nouveaux de l'exercice ${year}`,
      on,
      eventId,
    ],
  );
  const line = (
    i: number,
    account: keyof typeof ACCOUNTS | string,
    balance: number,
    aux: string | null,
    lease: string | null,
    call: string | null = null,
  ) => ({
    tenant_id: tenantId,
    id: deterministicUuid("ledger_line", entryId, String(i)),
    entry_id: entryId,
    book_id: bookId,
    line: i + 1,
    account,
    account_label: ACCOUNTS[account as keyof typeof ACCOUNTS] ?? account,
    aux_account: aux,
    lease_id: lease,
    debit: (Math.max(balance, 0) / 100).toFixed(2),
    credit: (Math.max(-balance, 0) / 100).toFixed(2),
    call_id: call,
    lettering: null,
    lettered_on: null,
  });
  const lines = balanceSheet.map((r, i) =>
    line(i, r.account, cents(Number(r.balance)), r.aux_account, r.lease_id, r.call_id),
  );
  // A profit (incomes over expenses: a credit balance) is credited to 120, a loss debited to 129.
  if (result !== 0) lines.push(line(lines.length, result < 0 ? "120000" : "129000", result, null, null));
  await tx.query(
    "INSERT INTO ledger_lines SELECT * FROM jsonb_populate_recordset(NULL::ledger_lines, $1::jsonb)",
    [JSON.stringify(lines)],
  );
  const calls = balanceSheet.flatMap((r) => (r.call_id ? [r.call_id] : []));
  if (calls.length) await letter(tx, tenantId, bookId, next, calls, date);
}

async function apply(tx: Sql, e: RecordedEvent<Handled>) {
  const tenantId = e.metadata.tenant_id;
  switch (e.type) {
    case "EstateCreated":
      await tx.query(
        "INSERT INTO book_estates (tenant_id, id, owner_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        [tenantId, e.data.estate_id, e.data.owner_id],
      );
      return;
    case "EstateOwnershipTransferred":
      await tx.query("UPDATE book_estates SET owner_id = $2 WHERE id = $1", [
        e.data.estate_id,
        e.data.new_owner_id,
      ]);
      return;
    case "LeaseCreated":
      await tx.query(
        `INSERT INTO book_leases (tenant_id, id, estate_id, start_date, deposit_cents) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING`,
        [
          tenantId,
          e.data.lease_id,
          e.data.estate_id,
          e.data.start_date ?? null,
          cents(e.data.deposit_amount ?? 0),
        ],
      );
      return;
    case "LeaseUpdated":
    case "LeaseAmended": {
      const c = e.data.changes;
      if (c.estate_id !== undefined && c.estate_id !== null)
        await tx.query("UPDATE book_leases SET estate_id = $2 WHERE id = $1", [e.data.lease_id, c.estate_id]);
      if (c.start_date !== undefined)
        await tx.query("UPDATE book_leases SET start_date = $2 WHERE id = $1", [
          e.data.lease_id,
          c.start_date,
        ]);
      if (c.deposit_amount !== undefined)
        await tx.query("UPDATE book_leases SET deposit_cents = $2 WHERE id = $1", [
          e.data.lease_id,
          cents(c.deposit_amount ?? 0),
        ]);
      return;
    }
    case "BookPeriodClosed":
      await tx.query(
        `INSERT INTO books (tenant_id, id, closed_through, closed_on) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET closed_through = $3, closed_on = $4`,
        [tenantId, e.data.book_id, e.data.year, e.data.closed_on],
      );
      await carryForward(tx, e.event_id, tenantId, e.data.book_id, e.data.year, e.data.closed_on);
      return;
    case "ManagementMandateSigned":
      await tx.query(
        `INSERT INTO management_mandates (tenant_id, id, owner_id, fee_rate, vat_rate, starts_on)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
        [tenantId, e.data.mandate_id, e.data.owner_id, e.data.fee_rate, e.data.vat_rate, e.data.starts_on],
      );
      return;
    case "ManagementMandateEnded":
      await tx.query("UPDATE management_mandates SET ends_on = $2 WHERE id = $1", [
        e.data.mandate_id,
        e.data.ends_on,
      ]);
      return;
    case "SyndicPaymentRecorded":
      await postSyndicPayment(tx, e);
      return;
    case "OwnerExpenseRecorded":
    case "OwnerExpenseCancelled":
      await postExpense(tx, e);
      return;
    case "PayoutIssued":
      await postPayout(tx, e);
      return;
    case "LeaseActivated":
    case "OpeningBalanceRecorded":
    case "RentCallIssued":
    case "PaymentRecorded":
    case "PaymentCancelled":
    case "ReceiptIssued":
    case "RentReminderSent":
    case "LeaseDepositReturned":
    case "LeaseDepositBalanceSettled":
      await post(tx, e);
      return;
    default: {
      const unhandled: never = e;
      return unhandled;
    }
  }
}

export const booksProjection: Projection = {
  name: "books",
  version: VERSION,
  tables: [
    "books",
    "book_estates",
    "book_leases",
    "management_mandates",
    "book_counters",
    "book_tenant_accounts",
    "ledger_entries",
    "ledger_lines",
    "owner_expenses",
    "payouts",
    "payout_transfers",
  ],
  schema: SCHEMA,
  handles: HANDLES,
  async applyBatch(tx, events) {
    const mine = eventsOf<Handled>(events, HANDLES);
    if (mine.length === 0) return;
    // A batch replayed over entries it already posted (at-least-once delivery) posts nothing twice.
    const posted = new Set(
      (
        await tx.query<{ source_event_id: string }>(
          "SELECT source_event_id FROM ledger_entries WHERE source_event_id = ANY($1::uuid[])",
          [mine.map((e) => e.event_id)],
        )
      ).map((r) => r.source_event_id),
    );
    for (const e of mine) if (!posted.has(e.event_id)) await apply(tx, e);
  },
};
