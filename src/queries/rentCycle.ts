import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { PAYMENT_METHODS } from "../events/leases.ts";
import { CALL_STATUSES, type CallStatus } from "../events/rentCycle.ts";
import { legalToday } from "../law/calendar.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import { readCacheOf, textBytes } from "../platform/http/readCache.ts";
import { answers } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { date } from "./leasesSchemas.ts";

/**
 * GET routes of the rent cycle (docs/design.md §7.1, docs/rent-cycle.md) from its read models
 * (src/projections/rentCycle.ts). Every one needs FinanceRead, those under /api/leases too.
 * OVERDUE is derived with the legal day (Paris): a call not fully paid whose due date has passed.
 * The lessee's space (src/queries/lesseeSpace.ts) answers with the same functions (`leaseRentCalls`,
 * `leaseRentCall`, `leaseAccount`) once it has checked the lease is the lessee's: a filter, not a copy.
 */

const tags = ["Rent cycle"];
const read = { access: "FinanceRead" as const };

export const rentCallBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    period_start: date(),
    period_end: date(),
    due_date: date(),
    rent_amount: z.number(),
    charges_amount: z.number(),
    total_amount: z.number(),
    paid_amount: z.number(),
    status: z.enum(CALL_STATUSES),
    prorated: z
      .strictObject({ days: z.number().int(), of_days: z.number().int() })
      .nullable()
      .describe("Days called out of the full period's days (first and last period), null for a full period"),
    payment_reference: z
      .string()
      .describe(
        "ISO 11649 creditor reference (RF) of the call, to quote on a transfer: how a bank line finds it",
      ),
  })
  .meta({ id: "RentCall", description: "A rent call (avis d'échéance) of one period of a lease" });

const allocationBody = z
  .strictObject({ call_id: uuid(), amount: z.number() })
  .meta({ id: "PaymentAllocation" });

export const paymentBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    amount: z.number(),
    paid_on: date(),
    method: z.enum(PAYMENT_METHODS),
    reference: z.string().nullable(),
    payer_lessee_id: uuid().nullable(),
    allocations: z
      .array(allocationBody)
      .describe("The calls it pays, oldest first (credit consumed later included)"),
    credit: z.number().describe("What it leaves unallocated, held as credit on the account"),
    status: z.enum(["RECORDED", "CANCELLED"]),
    cancel_reason: z.string().nullable(),
  })
  .meta({ id: "Payment", description: "A payment on a lease's account" });

const entryBody = z
  .strictObject({
    id: uuid(),
    kind: z.enum(["OPENING_BALANCE", "RENT_CALL", "PAYMENT", "PAYMENT_CANCELLED"]),
    date: date(),
    call_id: uuid().nullable(),
    payment_id: uuid().nullable(),
    amount: z
      .number()
      .describe("Effect on the balance: a call adds, a payment takes off, a cancellation adds back"),
    balance: z.number().describe("The balance after this entry"),
    recorded_at: z.iso.datetime(),
  })
  .meta({ id: "AccountEntry" });

export const accountBody = z
  .strictObject({
    lease_id: uuid(),
    balance: z.number().describe("Calls minus payments: positive the tenant owes, negative a credit"),
    credit: z.number().describe("Payments not yet allocated to a call"),
    entries: z.array(entryBody),
  })
  .meta({ id: "LeaseAccount", description: "A lease's account: every call and payment in recording order" });

const numberOf = (v: unknown) => Number(v);
const dateOf = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));

/** A call's status on `today` from its stored one (OVERDUE derived). */
const statusOn = (row: Row, today: string): CallStatus =>
  row.status !== "PAID" && dateOf(row.due_date) < today ? "OVERDUE" : (row.status as CallStatus);

const CALL_SELECT = `id, lease_id, to_char(period_start, 'YYYY-MM-DD') AS period_start,
  to_char(period_end, 'YYYY-MM-DD') AS period_end, to_char(due_date, 'YYYY-MM-DD') AS due_date,
  rent_amount, charges_amount, total_amount, paid_amount, status, prorated, payment_reference`;

function toCall(row: Row, today: string) {
  return {
    id: String(row.id),
    lease_id: String(row.lease_id),
    period_start: String(row.period_start),
    period_end: String(row.period_end),
    due_date: String(row.due_date),
    rent_amount: numberOf(row.rent_amount),
    charges_amount: numberOf(row.charges_amount),
    total_amount: numberOf(row.total_amount),
    paid_amount: numberOf(row.paid_amount),
    status: statusOn(row, today),
    prorated: (row.prorated as { days: number; of_days: number } | null) ?? null,
    payment_reference: String(row.payment_reference),
  };
}

const PAYMENT_SELECT = `id, lease_id, amount, to_char(paid_on, 'YYYY-MM-DD') AS paid_on, method, reference,
  payer_lessee_id, allocations, credit, status, cancel_reason`;

function toPayment(row: Row) {
  return {
    id: String(row.id),
    lease_id: String(row.lease_id),
    amount: numberOf(row.amount),
    paid_on: String(row.paid_on),
    method: row.method as (typeof PAYMENT_METHODS)[number],
    reference: (row.reference as string | null) ?? null,
    payer_lessee_id: (row.payer_lessee_id as string | null) ?? null,
    allocations: row.allocations as { call_id: string; amount: number }[],
    credit: numberOf(row.credit),
    status: row.status as "RECORDED" | "CANCELLED",
    cancel_reason: (row.cancel_reason as string | null) ?? null,
  };
}

/** The lease as the rent cycle needs it: its status, or null when the tenant has no such lease. */
export async function readLeaseStatus(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<{ status: string; start_date: string; signed_at: string | null } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ status: string; start_date: string; signed_at: string | null }>(
      `SELECT status, to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(signed_at, 'YYYY-MM-DD') AS signed_at
         FROM leases WHERE tenant_id = $1 AND id = $2`,
      [tenantId, leaseId],
    ),
  );
  return row ?? null;
}

/** Whether the lessee is (or was) a party of the lease. */
export async function isLeaseParty(sql: Sql, tenantId: string, leaseId: string, lesseeId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query(`SELECT 1 FROM lease_lessees WHERE tenant_id = $1 AND lease_id = $2 AND lessee_id = $3`, [
      tenantId,
      leaseId,
      lesseeId,
    ]),
  );
  return rows.length > 0;
}

export async function readPayment(sql: Sql, tenantId: string, leaseId: string, paymentId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT ${PAYMENT_SELECT} FROM lease_payments WHERE tenant_id = $1 AND lease_id = $2 AND id = $3`,
      [tenantId, leaseId, paymentId],
    ),
  );
  return row ? toPayment(row) : null;
}

export const callFilters = z.strictObject({
  ...pageQuery,
  status: z.enum(CALL_STATUSES).optional(),
  due_before: date().optional().describe("Calls due strictly before this date"),
  lease_id: uuid().optional(),
});
type CallFilters = z.output<typeof callFilters>;

/** Calls of the tenant, filtered; OVERDUE and OPEN/PARTIALLY_PAID split on the legal day. */
export async function listRentCalls(sql: Sql, tenantId: string, q: CallFilters, today = legalToday()) {
  const where = ["tenant_id = $1"];
  const params: unknown[] = [tenantId];
  const add = (value: unknown, clause: (p: string) => string) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (q.lease_id !== undefined) add(q.lease_id, (p) => `lease_id = ${p}`);
  if (q.due_before !== undefined) add(q.due_before, (p) => `due_date < ${p}::date`);
  if (q.status === "PAID") where.push(`status = 'PAID'`);
  else if (q.status === "OVERDUE") add(today, (p) => `status <> 'PAID' AND due_date < ${p}::date`);
  else if (q.status !== undefined) {
    add(q.status, (p) => `status = ${p}`);
    add(today, (p) => `due_date >= ${p}::date`);
  }
  const filter = where.join(" AND ");
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(
      `SELECT count(*)::int AS total FROM rent_calls WHERE ${filter}`,
      params,
    );
    const rows = await tx.query<Row>(
      `SELECT ${CALL_SELECT} FROM rent_calls WHERE ${filter} ORDER BY due_date, period_start, id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, offsetOf(q)],
    );
    return { items: rows.map((r) => toCall(r, today)), total: Number(total), page: q.page, limit: q.limit };
  });
}

export async function readRentCall(sql: Sql, tenantId: string, leaseId: string, callId: string) {
  const today = legalToday();
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT ${CALL_SELECT} FROM rent_calls WHERE tenant_id = $1 AND lease_id = $2 AND id = $3`,
      [tenantId, leaseId, callId],
    ),
  );
  return row ? toCall(row, today) : null;
}

/**
 * The account: balance, credit and every entry in recording order (survives the end of the lease).
 * One statement whose entries PostgreSQL builds as JSON: one round trip, no per-row work here.
 */
export async function readAccount(sql: Sql, tenantId: string, leaseId: string) {
  const [account] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ balance: string; credit: string; entries: unknown[] }>(
      `SELECT a.balance, a.credit, (
         SELECT coalesce(json_agg(json_build_object(
           'id', e.id, 'kind', e.kind, 'date', to_char(e.entry_date, 'YYYY-MM-DD'),
           'call_id', e.call_id, 'payment_id', e.payment_id, 'amount', e.amount, 'balance', e.balance,
           'recorded_at', to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           ORDER BY e.revision), '[]'::json)
         FROM lease_account_entries e WHERE e.tenant_id = $1 AND e.lease_id = $2) AS entries
       FROM lease_accounts a WHERE a.tenant_id = $1 AND a.id = $2`,
      [tenantId, leaseId],
      { prepare: true },
    ),
  );
  return {
    lease_id: leaseId,
    balance: account ? Number(account.balance) : 0,
    credit: account ? Number(account.credit) : 0,
    entries: (account?.entries ?? []) as z.output<typeof entryBody>[],
  };
}

/**
 * The version of a lease's account in the read model (readCache.ts): its stream revision and its
 * row's transaction id (`xmin`, new with every write of the row, a rebuild's too); null when the
 * lease has no account row (the answer is then not cached).
 */
async function accountVersion(sql: Sql, tenantId: string, leaseId: string): Promise<string | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ v: string }>(
      "SELECT revision || ':' || xmin AS v FROM lease_accounts WHERE tenant_id = $1 AND id = $2",
      [tenantId, leaseId],
      { prepare: true },
    ),
  );
  return row?.v ?? null;
}

export const leaseCallFilters = callFilters.omit({ lease_id: true });
export const rentCallParams = z.strictObject({ lease_id: uuid(), call_id: uuid() });

/** 404 when the tenant has no such lease. */
async function requireLease(sql: Sql, tenantId: string, leaseId: string) {
  if ((await readLeaseStatus(sql, tenantId, leaseId)) === null) throw notFound("Lease", leaseId);
}

/** A page of a lease's calls; 404 for a lease the tenant does not have. */
export async function leaseRentCalls(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  q: z.output<typeof leaseCallFilters>,
) {
  await requireLease(sql, tenantId, leaseId);
  return listRentCalls(sql, tenantId, { ...q, lease_id: leaseId });
}

/** One call of a lease; 404 when the lease has no such call. */
export async function leaseRentCall(sql: Sql, tenantId: string, leaseId: string, callId: string) {
  const call = await readRentCall(sql, tenantId, leaseId, callId);
  if (!call) throw notFound("Rent call", callId);
  return call;
}

/** A lease's account; 404 for a lease the tenant does not have. */
export async function leaseAccount(sql: Sql, tenantId: string, leaseId: string) {
  const account = await readAccount(sql, tenantId, leaseId);
  // A lease deleted keeps no account (only a DRAFT can be deleted: it has none).
  if (account.entries.length === 0) await requireLease(sql, tenantId, leaseId);
  return account;
}

const leaseParams = z.strictObject({ lease_id: uuid() });

export async function rentCycleQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/rent-calls",
    {
      schema: {
        tags,
        summary: "Rent calls of the portfolio, by due date; status OVERDUE: unpaid after the due date",
        querystring: callFilters,
        response: answers(z.array(rentCallBody)),
      },
      config: read,
    },
    async (request, reply) =>
      sendPage(request, reply, await listRentCalls(sql, tenantOf(request), request.query)),
  );

  api.get(
    "/api/leases/:lease_id/rent-calls",
    {
      schema: {
        tags,
        summary: "Rent calls of a lease, by due date",
        params: leaseParams,
        querystring: leaseCallFilters,
        response: answers(z.array(rentCallBody)),
      },
      config: read,
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await leaseRentCalls(sql, tenantOf(request), request.params.lease_id, request.query),
      ),
  );

  api.get(
    "/api/leases/:lease_id/rent-calls/:call_id",
    {
      schema: {
        tags,
        summary: "A rent call of a lease",
        params: rentCallParams,
        response: answers(rentCallBody),
      },
      config: read,
    },
    async (request) => leaseRentCall(sql, tenantOf(request), request.params.lease_id, request.params.call_id),
  );

  api.get(
    "/api/leases/:lease_id/payments",
    {
      schema: {
        tags,
        summary: "Payments of a lease in recording order, cancelled ones included",
        params: leaseParams,
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(paymentBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      await requireLease(sql, tenantId, lease_id);
      const page = await sql.asTenant(tenantId, async (tx) => {
        const [{ total }] = await tx.query(
          `SELECT count(*)::int AS total FROM lease_payments WHERE tenant_id = $1 AND lease_id = $2`,
          [tenantId, lease_id],
        );
        const rows = await tx.query<Row>(
          `SELECT ${PAYMENT_SELECT} FROM lease_payments WHERE tenant_id = $1 AND lease_id = $2 ORDER BY seq
           LIMIT $3 OFFSET $4`,
          [tenantId, lease_id, request.query.limit, offsetOf(request.query)],
        );
        return { items: rows.map(toPayment), total: Number(total), ...request.query };
      });
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/leases/:lease_id/payments/:payment_id",
    {
      schema: {
        tags,
        summary: "A payment of a lease",
        params: z.strictObject({ lease_id: uuid(), payment_id: uuid() }),
        response: answers(paymentBody),
      },
      config: read,
    },
    async (request) => {
      const { lease_id, payment_id } = request.params;
      const payment = await readPayment(sql, tenantOf(request), lease_id, payment_id);
      if (!payment) throw notFound("Payment", payment_id);
      return payment;
    },
  );

  api.get(
    "/api/leases/:lease_id/account",
    {
      schema: {
        tags,
        summary: "The lease's account: balance (calls minus payments) and entries",
        params: leaseParams,
        response: answers(accountBody),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      // The answer as the route's serialiser writes it, kept while the account's row is the
      // same (readCache.ts, accountVersion): a 10-year account is 240 entries to rebuild.
      const body = await readCacheOf(app).through(
        tenantId,
        `account\u0000${lease_id}`,
        () => accountVersion(sql, tenantId, lease_id),
        async () => {
          return reply.serialize(await leaseAccount(sql, tenantId, lease_id)) as string;
        },
        textBytes,
      );
      return reply.header("content-type", "application/json; charset=utf-8").send(body);
    },
  );
}

/** A lease the rent-calls job looks at: its schedule's terms and where its account stands. */
export interface RentCallCandidate {
  tenant_id: string;
  id: string;
  status: string;
  lease_type: string;
  start_date: string;
  end_date: string | null;
  notice_end_date: string | null;
  /** A TERMINATED lease's end (rent is owed until then: its notice's end, or the keys' return). */
  terminated_at: string | null;
  rent_frequency: "MONTHLY" | "QUARTERLY" | "ANNUALLY" | null;
  payment_terms: "TERME_A_ECHOIR" | "TERME_ECHU" | null;
  payment_day: number | null;
  rent_amount: number;
  charges_amount: number | null;
  /** The account stream's revision as the read model has it (null: no call yet). */
  account_revision: number | null;
  last_period_start: string | null;
  /** A lease taken over: calls from the period holding this day, the opening balance owed on it. */
  takeover_date: string | null;
  opening_balance: number | null;
}

/**
 * Every ACTIVE or NOTICE lease started by `today` (across tenants: the job is no tenant), and every
 * TERMINATED one called before whose end is after its last called period (keys back before the
 * notice's end: its rent runs on, loi n° 89-462 art. 15 I), with its account's revision and last
 * called period; `uncalledOnly`: those with no call yet (the
 * first-call pass), `tenantId`: one tenant's.
 */
export async function readRentCallCandidates(
  sql: Sql,
  options: { today: string; uncalledOnly?: boolean; tenantId?: string | null },
): Promise<RentCallCandidate[]> {
  const where = [
    `(l.status IN ('ACTIVE', 'NOTICE') OR (l.status = 'TERMINATED' AND l.terminated_at > a.last_period_start))`,
    `l.start_date <= $1::date`,
  ];
  const params: unknown[] = [options.today];
  if (options.uncalledOnly) where.push("a.id IS NULL");
  if (options.tenantId) {
    params.push(options.tenantId);
    where.push(`l.tenant_id = $${params.length}`);
  }
  const rows = await sql.query<Row>(
    `SELECT l.tenant_id, l.id, l.status, l.lease_type, to_char(l.start_date, 'YYYY-MM-DD') AS start_date,
       to_char(l.end_date, 'YYYY-MM-DD') AS end_date, to_char(l.notice_end_date, 'YYYY-MM-DD') AS notice_end_date,
       to_char(l.terminated_at, 'YYYY-MM-DD') AS terminated_at,
       l.rent_frequency, l.payment_terms, l.payment_day, l.rent_amount, l.charges_amount,
       to_char(l.takeover_date, 'YYYY-MM-DD') AS takeover_date, l.opening_balance,
       a.revision AS account_revision, to_char(a.last_period_start, 'YYYY-MM-DD') AS last_period_start
     FROM leases l LEFT JOIN lease_accounts a ON a.id = l.id
     WHERE ${where.join(" AND ")}`,
    params,
  );
  return rows.map((r) => ({
    tenant_id: String(r.tenant_id),
    id: String(r.id),
    status: String(r.status),
    lease_type: String(r.lease_type),
    start_date: String(r.start_date),
    end_date: (r.end_date as string | null) ?? null,
    notice_end_date: (r.notice_end_date as string | null) ?? null,
    terminated_at: (r.terminated_at as string | null) ?? null,
    rent_frequency: (r.rent_frequency as RentCallCandidate["rent_frequency"]) ?? null,
    payment_terms: (r.payment_terms as RentCallCandidate["payment_terms"]) ?? null,
    payment_day: r.payment_day === null ? null : Number(r.payment_day),
    rent_amount: Number(r.rent_amount),
    charges_amount: r.charges_amount === null ? null : Number(r.charges_amount),
    account_revision: r.account_revision === null ? null : Number(r.account_revision),
    last_period_start: (r.last_period_start as string | null) ?? null,
    takeover_date: (r.takeover_date as string | null) ?? null,
    opening_balance: r.opening_balance == null ? null : Number(r.opening_balance),
  }));
}

/** The rent history of leases, oldest first per lease (by stream revision). */
export async function readRentHistories(sql: Sql, leaseIds: string[]) {
  const out = new Map<
    string,
    {
      effective_date: string;
      rent_amount: number;
      charges_amount: number | null;
      previous_rent_amount: number;
      previous_charges_amount: number | null;
    }[]
  >();
  if (leaseIds.length === 0) return out;
  const rows = await sql.query<Row>(
    `SELECT lease_id, to_char(effective_date, 'YYYY-MM-DD') AS effective_date, rent_amount, charges_amount,
       previous_rent_amount, previous_charges_amount
     FROM lease_rent_history WHERE lease_id = ANY($1::uuid[]) ORDER BY lease_id, revision`,
    [leaseIds],
  );
  for (const r of rows) {
    const id = String(r.lease_id);
    const list = out.get(id) ?? [];
    list.push({
      effective_date: String(r.effective_date),
      rent_amount: Number(r.rent_amount),
      charges_amount: r.charges_amount === null ? null : Number(r.charges_amount),
      previous_rent_amount: Number(r.previous_rent_amount),
      previous_charges_amount: r.previous_charges_amount === null ? null : Number(r.previous_charges_amount),
    });
    out.set(id, list);
  }
  return out;
}

/** A call still owed, as a bank statement's matching needs it (src/commands/bank): who may pay it. */
export interface CallToMatch {
  call_id: string;
  lease_id: string;
  payment_reference: string;
  due_date: string;
  open_amount: number;
  payers: { lessee_id: string; iban: string | null; name: string }[];
}

/** Every call of the tenant not fully paid, oldest due first, with its lease's lessees (IBAN, name). */
export async function callsToMatch(sql: Sql, tenantId: string): Promise<CallToMatch[]> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT c.id, c.lease_id, c.payment_reference, to_char(c.due_date, 'YYYY-MM-DD') AS due_date,
              (c.total_amount - c.paid_amount)::float8 AS open_amount,
              coalesce((SELECT jsonb_agg(jsonb_build_object('lessee_id', l.id, 'iban', l.iban,
                  'name', concat_ws(' ', l.first_name, l.last_name, l.legal_name)))
                FROM lease_lessees ll JOIN lessees l ON l.tenant_id = ll.tenant_id AND l.id = ll.lessee_id
                WHERE ll.tenant_id = c.tenant_id AND ll.lease_id = c.lease_id), '[]'::jsonb) AS payers
       FROM rent_calls c WHERE c.tenant_id = $1 AND c.status <> 'PAID'
       ORDER BY c.due_date, c.period_start, c.id`,
      [tenantId],
    ),
  );
  return rows.map((r) => ({
    call_id: String(r.id),
    lease_id: String(r.lease_id),
    payment_reference: String(r.payment_reference),
    due_date: String(r.due_date),
    open_amount: Number(r.open_amount),
    payers: r.payers as CallToMatch["payers"],
  }));
}

/** The lease of each call of `ids` the tenant has (absent ids are left out). */
export async function leasesOfCalls(sql: Sql, tenantId: string, ids: string[]): Promise<Map<string, string>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT id, lease_id FROM rent_calls WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [
      tenantId,
      ids,
    ]),
  );
  return new Map(rows.map((r) => [String(r.id), String(r.lease_id)]));
}
