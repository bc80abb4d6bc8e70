import {
  type AccountCall,
  type AccountEvent,
  type AccountPayment,
  accountEventTypes,
  emptyAccount,
  evolveAccount,
  type LeaseAccount,
  paymentReferenceOf,
  storedCallStatus,
} from "../events/rentCycle.ts";
import { legalToday } from "../law/calendar.ts";
import { toEuros } from "../law/money.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  eventsOf,
  type Projection,
  statementStamp,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/**
 * The rent cycle's read models (docs/rent-cycle.md), from the lease account streams:
 * - `lease_accounts`: one row per lease account: the fold (`state`, what the next batch starts
 *   from), its stream revision, balance, credit and the last called period (the rent-calls job
 *   skips a lease whose periods are all called without reading its stream);
 * - `rent_calls`: one row per call (docs/design.md §7.1 shape), paid amount and stored status;
 * - `lease_payments`: one row per payment, its current allocations, credit and cancellation;
 * - `lease_account_entries`: one row per account event, the balance after it (the statement).
 */

const NAME = "rent_cycle";
const VERSION = 2;
const stamp = statementStamp(NAME, VERSION);

const SCHEMA = `
CREATE TABLE lease_accounts (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  revision bigint NOT NULL,
  balance numeric NOT NULL,
  credit numeric NOT NULL,
  last_period_start date,
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
${tenantPolicy("lease_accounts")}

CREATE TABLE rent_calls (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  period_start date NOT NULL,
  period_end date NOT NULL,
  due_date date NOT NULL,
  rent_amount numeric NOT NULL,
  charges_amount numeric NOT NULL,
  total_amount numeric NOT NULL,
  paid_amount numeric NOT NULL,
  status text NOT NULL,
  prorated jsonb,
  payment_reference text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX rent_calls_lease ON rent_calls (tenant_id, lease_id, period_start);
CREATE INDEX rent_calls_due ON rent_calls (tenant_id, due_date, id);
CREATE INDEX rent_calls_reference ON rent_calls (tenant_id, payment_reference);
CREATE INDEX rent_calls_unpaid ON rent_calls (tenant_id, due_date, id) WHERE status <> 'PAID';
${tenantPolicy("rent_calls")}

CREATE TABLE lease_payments (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  amount numeric NOT NULL,
  paid_on date NOT NULL,
  method text NOT NULL,
  reference text,
  payer_lessee_id uuid,
  allocations jsonb NOT NULL,
  credit numeric NOT NULL,
  status text NOT NULL,
  cancel_reason text,
  seq integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_payments_lease ON lease_payments (tenant_id, lease_id, seq);
${tenantPolicy("lease_payments")}

CREATE TABLE lease_account_entries (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  revision bigint NOT NULL,
  kind text NOT NULL,
  entry_date date NOT NULL,
  call_id uuid,
  payment_id uuid,
  amount numeric NOT NULL,
  balance numeric NOT NULL,
  recorded_at timestamptz NOT NULL
);
CREATE INDEX lease_account_entries_lease ON lease_account_entries (tenant_id, lease_id, revision);
${tenantPolicy("lease_account_entries")}`;

type Row = Record<string, unknown>;

/** The response row of a call (the read model's columns). */
export function callRow(call: AccountCall, leaseId: string) {
  return {
    id: call.call_id,
    lease_id: leaseId,
    period_start: call.period_start,
    period_end: call.period_end,
    due_date: call.due_date,
    rent_amount: toEuros(call.rent_cents),
    charges_amount: toEuros(call.charges_cents),
    total_amount: toEuros(call.total_cents),
    paid_amount: toEuros(call.paid_cents),
    status: storedCallStatus(call),
    prorated: call.prorated,
    payment_reference: paymentReferenceOf(call.call_id),
  };
}

/** The response row of a payment. */
export function paymentRow(payment: AccountPayment, leaseId: string) {
  return {
    id: payment.payment_id,
    lease_id: leaseId,
    amount: toEuros(payment.amount_cents),
    paid_on: payment.paid_on,
    method: payment.method,
    reference: payment.reference,
    payer_lessee_id: payment.payer_lessee_id,
    allocations: payment.allocations.map((a) => ({ call_id: a.call_id, amount: toEuros(a.amount_cents) })),
    credit: toEuros(payment.credit_cents),
    status: payment.cancelled ? "CANCELLED" : "RECORDED",
    cancel_reason: payment.cancelled?.reason ?? null,
  };
}

/** Each account entry: what an event did to the balance (calls add, payments take off, cancellations add back). */
function entryOf(e: RecordedEvent<AccountEvent>, before: LeaseAccount, after: LeaseAccount): Row {
  const base = {
    tenant_id: e.metadata.tenant_id,
    id: e.event_id,
    lease_id: e.data.lease_id,
    revision: Number(e.stream_revision),
    amount: toEuros(after.balance_cents - before.balance_cents),
    balance: toEuros(after.balance_cents),
    recorded_at: e.metadata.occurred_at,
  };
  switch (e.type) {
    case "OpeningBalanceRecorded":
      return {
        ...base,
        kind: "OPENING_BALANCE",
        entry_date: e.data.on,
        call_id: e.data.call_id,
        payment_id: null,
      };
    case "RentCallIssued":
      return {
        ...base,
        kind: "RENT_CALL",
        entry_date: e.data.period_start,
        call_id: e.data.call_id,
        payment_id: null,
      };
    case "PaymentRecorded":
      return {
        ...base,
        kind: "PAYMENT",
        entry_date: e.data.paid_on,
        call_id: null,
        payment_id: e.data.payment_id,
      };
    case "PaymentCancelled":
      return {
        ...base,
        kind: "PAYMENT_CANCELLED",
        entry_date: legalToday(e.metadata.occurred_at),
        call_id: null,
        payment_id: e.data.payment_id,
      };
    // Receipts and reminders (src/events/rentCollection.ts) move no money: not handled here.
    case "ReceiptIssued":
    case "RentReminderSent":
      throw new Error(`${e.type} is not an account entry`);
    default: {
      const unknown: never = e;
      return unknown;
    }
  }
}

interface Touched {
  tenant_id: string;
  lease_id: string;
  state: LeaseAccount;
  revision: number;
  calls: Map<string, Row>;
  payments: Map<string, Row>;
  entries: Row[];
  at: string;
  /** When each call was first issued (for created_at of new rows). */
  issued: Map<string, string>;
}

async function loadAccounts(tx: Sql, ids: string[]): Promise<Map<string, Row>> {
  const rows = await tx.query<Row>(
    `SELECT id, tenant_id, revision, state FROM lease_accounts WHERE id = ANY($1::uuid[]) ${stamp}`,
    [ids],
    { prepare: true },
  );
  return new Map(rows.map((r) => [String(r.id), r]));
}

function apply(t: Touched, e: RecordedEvent<AccountEvent>) {
  const before = t.state;
  const after = evolveAccount(before, e);
  t.state = after;
  t.revision = Number(e.stream_revision);
  t.at = e.metadata.occurred_at;
  t.entries.push(entryOf(e, before, after));
  if (e.type === "RentCallIssued") t.issued.set(e.data.call_id, e.metadata.occurred_at);
  // Only the calls and payments the event changed are written.
  const previousCalls = new Map(before.calls.map((c) => [c.call_id, c]));
  for (const call of after.calls)
    if (previousCalls.get(call.call_id) !== call)
      t.calls.set(call.call_id, { ...callRow(call, t.lease_id), updated_at: e.metadata.occurred_at });
  const previousPayments = new Map(before.payments.map((p) => [p.payment_id, p]));
  after.payments.forEach((p, i) => {
    if (previousPayments.get(p.payment_id) !== p)
      t.payments.set(p.payment_id, {
        ...paymentRow(p, t.lease_id),
        seq: i + 1,
        updated_at: e.metadata.occurred_at,
      });
  });
}

async function upsert(tx: Sql, table: string, rows: Row[], conflictSet: string) {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
     ON CONFLICT (id) DO UPDATE SET ${conflictSet} ${stamp}`,
    [JSON.stringify(rows)],
    // Sent with the next statement or the COMMIT: a batch costs a few round trips.
    { deferred: true },
  );
}

export const rentCycleProjection: Projection = {
  name: NAME,
  version: VERSION,
  tables: ["lease_accounts", "rent_calls", "lease_payments", "lease_account_entries"],
  schema: SCHEMA,
  handles: accountEventTypes,
  async applyBatch(tx, events) {
    const mine = eventsOf<AccountEvent>(events, accountEventTypes);
    if (mine.length === 0) return;
    const ids = [...new Set(mine.map((e) => e.data.lease_id.toLowerCase()))];
    const stored = await loadAccounts(tx, ids);
    const touched = new Map<string, Touched>();
    for (const e of mine) {
      const id = e.data.lease_id.toLowerCase();
      let t = touched.get(id);
      if (!t) {
        const row = stored.get(id);
        // Another tenant's event for a lease id already held is impossible (ids are the lease's).
        t = {
          tenant_id: e.metadata.tenant_id,
          lease_id: id,
          state: (row?.state as LeaseAccount | undefined) ?? emptyAccount(),
          revision: row ? Number(row.revision) : -1,
          calls: new Map(),
          payments: new Map(),
          entries: [],
          at: e.metadata.occurred_at,
          issued: new Map(),
        };
        touched.set(id, t);
      }
      // A batch replayed over rows it already wrote (at-least-once delivery) changes nothing.
      if (Number(e.stream_revision) <= t.revision) continue;
      apply(t, e);
    }
    const accounts: Row[] = [];
    const calls: Row[] = [];
    const payments: Row[] = [];
    const entries: Row[] = [];
    for (const t of touched.values()) {
      if (t.entries.length === 0) continue;
      const last = t.state.calls.at(-1);
      accounts.push({
        tenant_id: t.tenant_id,
        id: t.lease_id,
        revision: t.revision,
        balance: toEuros(t.state.balance_cents),
        credit: toEuros(t.state.credit_cents),
        last_period_start: last?.period_start ?? null,
        state: t.state,
        updated_at: t.at,
      });
      for (const [id, row] of t.calls)
        calls.push({ ...row, tenant_id: t.tenant_id, created_at: t.issued.get(id) ?? row.updated_at });
      for (const row of t.payments.values())
        payments.push({ ...row, tenant_id: t.tenant_id, created_at: row.updated_at });
      entries.push(...t.entries);
    }
    await upsert(
      tx,
      "lease_accounts",
      accounts,
      "revision = excluded.revision, balance = excluded.balance, credit = excluded.credit, last_period_start = excluded.last_period_start, state = excluded.state, updated_at = excluded.updated_at",
    );
    await upsert(
      tx,
      "rent_calls",
      calls,
      "paid_amount = excluded.paid_amount, status = excluded.status, updated_at = excluded.updated_at",
    );
    await upsert(
      tx,
      "lease_payments",
      payments,
      "allocations = excluded.allocations, credit = excluded.credit, status = excluded.status, cancel_reason = excluded.cancel_reason, updated_at = excluded.updated_at",
    );
    if (entries.length > 0)
      await tx.query(
        `INSERT INTO lease_account_entries SELECT * FROM jsonb_populate_recordset(NULL::lease_account_entries, $1::jsonb)
         ON CONFLICT (id) DO NOTHING ${stamp}`,
        [JSON.stringify(entries)],
        { deferred: true },
      );
  },
};
