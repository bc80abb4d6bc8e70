import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CREDIT_PACKAGES, PACKAGE_IDS } from "../events/credits.ts";
import type { Sql } from "../platform/db.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { pageQuery, readPage, sendPage } from "../platform/http/pagination.ts";
import { answers } from "../platform/http/responses.ts";
import type { Row } from "../platform/projections/projection.ts";

/**
 * Credits read side (docs/design.md §7.2, docs/credits.md): the package catalogue, the balance and the
 * transactions, from `credit_transactions`. FinanceRead (an owner's or manager's token grants it).
 */

const tags = ["Credits"];
const read = { access: "FinanceRead" as const };

export const creditPackageBody = z
  .strictObject({
    id: z.enum(PACKAGE_IDS),
    name: z.string(),
    credits: z.number().int().describe("Credits the package adds to the balance"),
    price: z.number().describe("Price in euros, taxes included"),
    currency: z.literal("EUR"),
  })
  .meta({ id: "CreditPackage", description: "A package of credits one can buy" });

export const creditBalanceBody = z
  .strictObject({
    balance: z
      .number()
      .int()
      .describe("Credits free to use: the sum of the ledger's entries, never negative"),
    reserved: z
      .number()
      .int()
      .describe("Credits held for services under way (a signature), not yet captured"),
    purchased: z.number().int().describe("Credits bought in all"),
  })
  .meta({ id: "CreditBalance", description: "The tenant's credit balance" });

export const creditTransactionBody = z
  .strictObject({
    id: z.uuid(),
    kind: z.enum(["PURCHASE", "RESERVATION", "CAPTURE", "RELEASE"]),
    credits: z.number().int().describe("What the entry adds to the balance (negative for a reservation)"),
    package_id: z.string().nullable(),
    amount: z.number().nullable().describe("Euros paid (purchases)"),
    currency: z.string().nullable(),
    provider: z.string().nullable().describe("Payment provider of a purchase (stripe, local)"),
    provider_session_id: z.string().nullable(),
    provider_payment_id: z.string().nullable(),
    reservation_id: z.uuid().nullable(),
    purpose: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "CreditTransaction", description: "One entry of the tenant's credit ledger" });

export async function readCreditBalance(sql: Sql, tenantId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT coalesce(sum(credits), 0)::int AS balance, coalesce(sum(held), 0)::int AS reserved,
              coalesce(sum(credits) FILTER (WHERE kind = 'PURCHASE'), 0)::int AS purchased
         FROM credit_transactions WHERE tenant_id = $1`,
      [tenantId],
      { prepare: true },
    ),
  );
  return { balance: Number(row.balance), reserved: Number(row.reserved), purchased: Number(row.purchased) };
}

const toTransaction = (r: Row) => ({
  id: String(r.id),
  kind: r.kind as "PURCHASE",
  credits: Number(r.credits),
  package_id: (r.package_id as string | null) ?? null,
  amount: r.amount === null ? null : Number(r.amount),
  currency: (r.currency as string | null) ?? null,
  provider: (r.provider as string | null) ?? null,
  provider_session_id: (r.provider_session_id as string | null) ?? null,
  provider_payment_id: (r.provider_payment_id as string | null) ?? null,
  reservation_id: (r.reservation_id as string | null) ?? null,
  purpose: (r.purpose as string | null) ?? null,
  created_at: iso(r.created_at) ?? "",
});

export async function creditQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/credits/packages",
    {
      schema: {
        tags,
        summary: "The packages of credits on sale",
        response: answers(z.array(creditPackageBody)),
      },
      config: read,
    },
    async () => CREDIT_PACKAGES.map((p) => ({ ...p })),
  );

  api.get(
    "/api/credits/balance",
    {
      schema: {
        tags,
        summary: "The tenant's credit balance",
        response: answers(creditBalanceBody),
      },
      config: read,
    },
    async (request) => readCreditBalance(sql, tenantOf(request)),
  );

  api.get(
    "/api/credits/transactions",
    {
      schema: {
        tags,
        summary: "The tenant's credit ledger, oldest first: purchases, reservations, captures, releases",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(creditTransactionBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const { page, limit } = request.query;
      const tenantId = tenantOf(request);
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "credit_transactions",
        select: "*",
        where: "tenant_id = $1",
        params: [tenantId],
        page,
        limit,
        prepare: true,
      });
      return sendPage(request, reply, { items: rows.map(toTransaction), total, page, limit });
    },
  );
}
