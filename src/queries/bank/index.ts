import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bankAccountResource, LINE_STATUSES, MATCH_REASONS } from "../../events/bank/index.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../../platform/http/pagination.ts";
import { answers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import type { Row } from "../../platform/projections/projection.ts";
import { resourceExists } from "../../platform/resource/read.ts";
import { resourceQueryRoutes } from "../../platform/resource/routes.ts";
import { collectionQueries } from "./collections.ts";
import { mandateQueries } from "./mandates.ts";

/** The bank area's read side (docs/bank.md): accounts and their statement lines (FinanceRead). */

export const bankLineBody = z
  .strictObject({
    id: uuid(),
    booked_on: z.string(),
    amount: z.number().describe("Positive a credit, negative a debit"),
    label: z.string(),
    counterparty_name: z.string().nullable(),
    counterparty_iban: z.string().nullable(),
    reference: z.string().nullable(),
    return_reason: z
      .string()
      .nullable()
      .describe("ISO reason code of an R-transaction (AC04, AM04, MD06...)"),
    status: z.enum(LINE_STATUSES),
    matches: z.array(z.strictObject({ rent_call_id: uuid(), amount: z.number() })),
    proposals: z.array(
      z.strictObject({ rent_call_id: uuid(), amount: z.number(), reason: z.enum(MATCH_REASONS) }),
    ),
  })
  .meta({ id: "BankLine", description: "A line of an imported bank statement" });
export type BankLineBody = z.output<typeof bankLineBody>;

const LINE_SELECT = `id, to_char(booked_on, 'YYYY-MM-DD') AS booked_on, amount::float8 AS amount, label,
  counterparty_name, counterparty_iban, reference, return_reason, status, matches, proposals`;

const toLine = (r: Row): BankLineBody => ({
  id: String(r.id),
  booked_on: String(r.booked_on),
  amount: Number(r.amount),
  label: String(r.label),
  counterparty_name: (r.counterparty_name as string | null) ?? null,
  counterparty_iban: (r.counterparty_iban as string | null) ?? null,
  reference: (r.reference as string | null) ?? null,
  return_reason: (r.return_reason as string | null) ?? null,
  status: r.status as BankLineBody["status"],
  matches: (r.matches as { rent_call_id: string; amount: number }[]).map((m) => ({
    rent_call_id: m.rent_call_id,
    amount: m.amount,
  })),
  proposals: r.proposals as BankLineBody["proposals"],
});

/** One line of the tenant with its account, or null. */
export async function readBankLine(sql: Sql, tenantId: string, lineId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${LINE_SELECT}, bank_account_id FROM bank_lines WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      lineId,
    ]),
  );
  return row ? { line: toLine(row), bank_account_id: String(row.bank_account_id) } : null;
}

const linesQuery = z.strictObject({ ...pageQuery, status: z.enum(LINE_STATUSES).optional() });

export async function listBankLines(
  sql: Sql,
  tenantId: string,
  accountId: string,
  q: z.output<typeof linesQuery>,
) {
  const params: unknown[] = [tenantId, accountId];
  let filter = "tenant_id = $1 AND bank_account_id = $2";
  if (q.status) {
    params.push(q.status);
    filter += " AND status = $3";
  }
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(
      `SELECT count(*)::int AS total FROM bank_lines WHERE ${filter}`,
      params,
    );
    const rows = await tx.query<Row>(
      `SELECT ${LINE_SELECT} FROM bank_lines WHERE ${filter} ORDER BY booked_on, seq
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, offsetOf(q)],
    );
    return { items: rows.map(toLine), total: Number(total), page: q.page, limit: q.limit };
  });
}

async function bankLineRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/bank-accounts/:bank_account_id/lines",
    {
      schema: {
        tags: ["Bank"],
        summary: "Lines of the account's imported statements, by booking date; status UNMATCHED is the queue",
        params: z.strictObject({ bank_account_id: uuid() }),
        querystring: linesQuery,
        response: answers(z.array(bankLineBody)),
      },
      config: { access: "FinanceRead" as const },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { bank_account_id } = request.params;
      if (!(await resourceExists(sql, bankAccountResource, tenant, bank_account_id)))
        throw notFound(bankAccountResource.label, bank_account_id);
      return sendPage(request, reply, await listBankLines(sql, tenant, bank_account_id, request.query));
    },
  );
}

export const bankQueries = [
  resourceQueryRoutes(bankAccountResource),
  bankLineRoutes,
  mandateQueries,
  collectionQueries,
];

/**
 * Parts of matched lines whose payment the lease account does not hold, matched more than
 * `olderThanSeconds` ago (the route settles at once; this is what a stopped process left). Every
 * tenant's: for the settlement loop of the worker role.
 */
export async function unsettledMatches(sql: Sql, limit: number, olderThanSeconds = 30) {
  return sql.query<{
    tenant_id: string;
    bank_account_id: string;
    line_id: string;
    booked_on: string;
    lease_id: string;
    rent_call_id: string;
    payment_id: string;
    amount: number;
  }>(
    `SELECT b.tenant_id::text, b.bank_account_id::text, b.id::text AS line_id,
            to_char(b.booked_on, 'YYYY-MM-DD') AS booked_on, m.lease_id::text, m.rent_call_id::text,
            m.payment_id::text, m.amount::float8 AS amount
       FROM bank_lines b
       CROSS JOIN LATERAL jsonb_to_recordset(b.matches) AS m(lease_id uuid, rent_call_id uuid, payment_id uuid, amount numeric)
      WHERE b.status = 'MATCHED' AND b.updated_at < now() - make_interval(secs => $2)
        AND NOT EXISTS (SELECT 1 FROM lease_payments p WHERE p.id = m.payment_id)
      ORDER BY b.updated_at LIMIT $1`,
    [limit, olderThanSeconds],
  );
}
