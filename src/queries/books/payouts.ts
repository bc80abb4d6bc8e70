import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bankAccountResource } from "../../events/bank/index.ts";
import { bookIdOf, EXPENSE_KINDS } from "../../events/books/index.ts";
import { ownerResource } from "../../events/owners.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers } from "../../platform/http/responses.ts";
import { date, uuid } from "../../platform/http/schemas.ts";
import { readResource } from "../../platform/resource/read.ts";
import { ownerExists } from "../owners.ts";
import { pain001 } from "./pain001.ts";

/**
 * The owners' expenses and the payouts to them (docs/accounting.md): read side. An expense's
 * entries are those of its book with its piece reference (FX, AX for the reversal, then the first
 * 12 hex digits of its id: `expensePieceOf`).
 */

const tags = ["Books"];
const read = { access: "FinanceRead" as const };

export const expenseBody = z
  .object({
    id: uuid(),
    owner_id: uuid(),
    kind: z.enum(EXPENSE_KINDS),
    amount: z.number(),
    paid_on: date(),
    label: z.string(),
    lease_id: uuid().nullable(),
    estate_id: uuid().nullable(),
    cancelled_on: date().nullable(),
    entries: z.array(uuid()).describe("The ledger entries it posted (and its reversal)"),
  })
  .meta({ id: "OwnerExpense" });

const expenseSelect = `SELECT x.id, x.owner_id, x.kind, x.amount::float8 AS amount, to_char(x.paid_on, 'YYYY-MM-DD') AS paid_on,
    x.label, x.lease_id, x.estate_id, to_char(x.cancelled_on, 'YYYY-MM-DD') AS cancelled_on,
    coalesce((SELECT array_agg(e.id ORDER BY e.year, e.number) FROM ledger_entries e
      WHERE e.tenant_id = x.tenant_id AND e.book_id = $2
        AND e.piece_ref IN ('FX' || upper(substr(replace(x.id::text, '-', ''), 1, 12)),
          'AX' || upper(substr(replace(x.id::text, '-', ''), 1, 12)))), '{}') AS entries
  FROM owner_expenses x`;

export async function readExpense(sql: Sql, tenantId: string, ownerId: string, expenseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query(`${expenseSelect} WHERE x.tenant_id = $1 AND x.owner_id = $3 AND x.id = $4`, [
      tenantId,
      bookIdOf(tenantId, ownerId),
      ownerId,
      expenseId,
    ]),
  );
  return (row as z.output<typeof expenseBody> | undefined) ?? null;
}

/** The owner of an estate, and of a lease's estate, as the books know them (facts for an expense). */
export async function propertyOwners(
  sql: Sql,
  tenantId: string,
  ids: { estate_id?: string | null; lease_id?: string | null },
) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ estate_owner_id: string | null; lease_owner_id: string | null }>(
      `SELECT (SELECT owner_id FROM book_estates WHERE tenant_id = $1 AND id = $2) AS estate_owner_id,
         (SELECT es.owner_id FROM book_leases l JOIN book_estates es ON es.id = l.estate_id
          WHERE l.tenant_id = $1 AND l.id = $3) AS lease_owner_id`,
      [tenantId, ids.estate_id ?? null, ids.lease_id ?? null],
    ),
  );
  return row;
}

export const payoutBody = z
  .object({
    id: uuid(),
    bank_account_id: uuid(),
    on: date().describe("The requested execution date of the transfers"),
    created_at: z.string(),
    total: z.number(),
    transfers: z.array(
      z.object({
        owner_id: uuid(),
        amount: z.number(),
        end_to_end_id: z.string(),
        entry_id: uuid().describe("The entry of the owner's book it posted (D 467 / C 512)"),
      }),
    ),
  })
  .meta({ id: "Payout" });

export async function readPayout(sql: Sql, tenantId: string, payoutId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query(
      `SELECT p.id, p.bank_account_id, to_char(p.paid_on, 'YYYY-MM-DD') AS on,
         to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at, p.total::float8 AS total,
         coalesce((SELECT json_agg(json_build_object('owner_id', t.owner_id, 'amount', t.amount::float8,
            'end_to_end_id', t.end_to_end_id, 'entry_id', t.entry_id) ORDER BY t.line)
          FROM payout_transfers t WHERE t.payout_id = p.id), '[]') AS transfers
       FROM payouts p WHERE p.tenant_id = $1 AND p.id = $2`,
      [tenantId, payoutId],
    ),
  );
  return (row as z.output<typeof payoutBody> | undefined) ?? null;
}

/** How many payouts of an account the books have posted: the decider's check that none is pending. */
export async function postedPayouts(sql: Sql, tenantId: string, bankAccountId: string): Promise<number> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payouts WHERE tenant_id = $1 AND bank_account_id = $2",
      [tenantId, bankAccountId],
    ),
  );
  return Number(row?.n ?? 0);
}

/** The owners an account pays: its own owner, or (an agency's account) every owner under a mandate. */
export async function mandantsOf(sql: Sql, tenantId: string, accountOwner: string | null, on: string) {
  if (accountOwner) return [accountOwner];
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ owner_id: string }>(
      `SELECT DISTINCT owner_id FROM management_mandates WHERE tenant_id = $1 AND starts_on <= $2 ORDER BY owner_id`,
      [tenantId, on],
    ),
  );
  return rows.map((r) => r.owner_id);
}

export interface PartyBank {
  name: string;
  iban: string | null;
  bic: string | null;
}

export async function ownerBank(sql: Sql, tenantId: string, ownerId: string): Promise<PartyBank | null> {
  const found = await readResource(sql, ownerResource, tenantId, ownerId);
  if (!found) return null;
  const b = found.body as Record<string, string | null | undefined>;
  return {
    name: b.legal_name || [b.first_name, b.last_name].filter(Boolean).join(" ") || "Proprietaire",
    iban: b.iban ?? null,
    bic: b.bic ?? null,
  };
}

export async function payoutRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const payoutParams = z.strictObject({ payout_id: uuid() });

  api.get(
    "/api/owners/:owner_id/expenses",
    {
      schema: {
        tags,
        summary: "The owner's expenses, cancelled ones included, by the day paid",
        params: z.strictObject({ owner_id: uuid() }),
        querystring: z.strictObject({ from: date().optional(), to: date().optional() }),
        response: answers(z.array(expenseBody)),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      if (!(await ownerExists(sql, tenantId, owner_id))) throw notFound("Owner", owner_id);
      return sql.asTenant(tenantId, (tx) =>
        tx.query(
          `${expenseSelect} WHERE x.tenant_id = $1 AND x.owner_id = $3
             AND ($4::date IS NULL OR x.paid_on >= $4) AND ($5::date IS NULL OR x.paid_on <= $5)
           ORDER BY x.paid_on, x.recorded_at, x.id`,
          [
            tenantId,
            bookIdOf(tenantId, owner_id),
            owner_id,
            request.query.from ?? null,
            request.query.to ?? null,
          ],
        ),
      );
    },
  );

  api.get(
    "/api/payouts/:payout_id",
    {
      schema: {
        tags,
        summary: "A payout to the owners: one SEPA credit transfer per owner",
        params: payoutParams,
        response: answers(payoutBody),
      },
      config: read,
    },
    async (request) => {
      const payout = await readPayout(sql, tenantOf(request), request.params.payout_id);
      if (!payout) throw notFound("Payout", request.params.payout_id);
      return payout;
    },
  );

  api.get(
    "/api/payouts/:payout_id/file",
    {
      schema: {
        tags,
        summary: "The payout's SEPA credit transfer initiation (ISO 20022 pain.001.001.09) for the bank",
        params: payoutParams,
        response: answers(
          z.unknown().meta({
            description: "pain.001.001.09 XML",
            content: { "application/xml": { schema: { type: "string" } } },
          }),
        ),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const payout = await readPayout(sql, tenantId, request.params.payout_id);
      if (!payout) throw notFound("Payout", request.params.payout_id);
      const account = await readResource(sql, bankAccountResource, tenantId, payout.bank_account_id);
      const a = (account?.body ?? {}) as { label?: string; iban?: string; bic?: string | null };
      const transfers = [];
      for (const t of payout.transfers) {
        const owner = await ownerBank(sql, tenantId, t.owner_id);
        transfers.push({
          end_to_end_id: t.end_to_end_id,
          amount: t.amount,
          creditor: { name: owner?.name ?? "Proprietaire", iban: owner?.iban ?? "", bic: owner?.bic ?? null },
          remittance: `Reversement de gerance au ${payout.on.split("-").reverse().join("/")}`,
        });
      }
      const xml = pain001({
        message_id: payout.id.replaceAll("-", ""),
        created_at: payout.created_at,
        execution_date: payout.on,
        debtor: { name: a.label ?? "Agence", iban: a.iban ?? "", bic: a.bic ?? null },
        transfers,
      });
      return reply
        .type("application/xml; charset=utf-8")
        .header("content-disposition", `attachment; filename="virements-${payout.on}.xml"`)
        .send(xml);
    },
  );
}
