import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  lawCallsOf,
  lawPaymentsOf,
  type SyndicFundCall,
  type SyndicNotice,
  type SyndicPayment,
} from "../events/syndic.ts";
import { legalToday } from "../law/calendar.ts";
import { toEuros } from "../law/money.ts";
import { effectiveDueOn, judgedNotice, paidByCall, remainingCallsFallDue } from "../law/syndic.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import { answers, timestamp, verdictBody } from "../platform/http/responses.ts";
import { isoDate, uuid } from "../platform/http/schemas.ts";
import { requirePlace } from "./places.ts";

/** GET routes of syndic budgets (docs/charges.md, "Syndic"): FinanceRead. */

const tags = ["Syndic"];
const read = { access: "FinanceRead" as const };

export const syndicBudgetBody = z
  .strictObject({
    id: uuid(),
    place_id: uuid(),
    year: z.number().int(),
    amount: z.number(),
    works_fund_amount: z.number(),
    lots: z.array(z.strictObject({ estate_id: uuid(), tantiemes: z.number().int() })),
    calls: z.array(
      z.strictObject({
        id: uuid(),
        kind: z.enum(["BUDGET", "WORKS_FUND"]),
        quarter: z.number().int(),
        estate_id: uuid(),
        amount: z.number(),
        due_on: isoDate.describe("The first day of the quarter (loi n° 65-557, art. 14-1)"),
        effective_due_on: isoDate.describe(
          "Earlier when a formal notice stayed unanswered 30 days (art. 19-2)",
        ),
        paid: z.number().describe("What the lot's payments gave this call (code civil art. 1342-10)"),
        outstanding: z.number().describe("What the call still owes"),
      }),
    ),
    formal_notices: z.array(
      z.strictObject({
        id: uuid(),
        estate_id: uuid(),
        sent_on: isoDate,
        answered_on: isoDate.nullable().describe("The day the syndic stated the claim was met"),
        met_on: isoDate
          .nullable()
          .describe("The day the lot's payments met what the notice claimed (its provisions unpaid then)"),
        verdict: verdictBody,
      }),
    ),
    payments: z.array(
      z.strictObject({ id: uuid(), estate_id: uuid(), paid_on: isoDate, amount: z.number() }),
    ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "SyndicBudget" });

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/** The budget as the API shows it, due dates judged on `today` (Europe/Paris). */
export function toSyndicBudget(row: Row, today = legalToday()) {
  const calls = row.calls as SyndicFundCall[];
  const notices = (row.notices as SyndicNotice[]) ?? [];
  const payments = (row.payments as SyndicPayment[]) ?? [];
  const lawCalls = lawCallsOf({ calls });
  const lawPayments = lawPaymentsOf({ payments });
  const paid = paidByCall(lawCalls, lawPayments);
  const judged = notices.map((n) => judgedNotice(n, lawCalls, lawPayments));
  return {
    id: String(row.id),
    place_id: String(row.place_id),
    year: Number(row.year),
    amount: Number(row.amount),
    works_fund_amount: Number(row.works_fund_amount),
    lots: row.lots as { estate_id: string; tantiemes: number }[],
    calls: calls.map((c, i) => ({
      id: c.call_id,
      kind: c.kind,
      quarter: c.quarter,
      estate_id: c.estate_id,
      amount: c.amount,
      due_on: c.due_on,
      effective_due_on: effectiveDueOn(lawCalls[i], judged, today),
      paid: toEuros(paid[i]),
      outstanding: toEuros(lawCalls[i].amount_cents - paid[i]),
    })),
    formal_notices: notices.map((n, i) => ({
      id: n.notice_id,
      estate_id: n.estate_id,
      sent_on: n.sent_on,
      answered_on: n.answered_on,
      met_on: judged[i].met_on,
      verdict: remainingCallsFallDue(judged[i], lawCalls, today),
    })),
    payments: payments.map((p) => ({
      id: p.payment_id,
      estate_id: p.estate_id,
      paid_on: p.paid_on,
      amount: p.amount,
    })),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  } as z.infer<typeof syndicBudgetBody>;
}

export async function findSyndicBudgetRow(sql: Sql, tenantId: string, id: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT * FROM syndic_budgets WHERE tenant_id = $1 AND id = $2", [tenantId, id]),
  );
  return row ?? null;
}

export async function readSyndicBudget(sql: Sql, tenantId: string, id: string) {
  const row = await findSyndicBudgetRow(sql, tenantId, id);
  return row ? toSyndicBudget(row) : null;
}

export async function syndicQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/places/:place_id/syndic-budgets",
    {
      schema: {
        tags,
        summary: "List a place's syndic budgets, by year",
        params: z.strictObject({ place_id: uuid() }),
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(syndicBudgetBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      const q = request.query;
      const page = await sql.asTenant(tenantId, async (tx) => {
        const [count] = await tx.query<Row>(
          "SELECT count(*)::int AS n FROM syndic_budgets WHERE tenant_id = $1 AND place_id = $2",
          [tenantId, place_id],
        );
        const rows = await tx.query<Row>(
          `SELECT * FROM syndic_budgets WHERE tenant_id = $1 AND place_id = $2 ORDER BY year, id LIMIT ${q.limit} OFFSET ${offsetOf(q)}`,
          [tenantId, place_id],
        );
        return {
          items: rows.map((r) => toSyndicBudget(r)),
          total: Number(count.n),
          page: q.page,
          limit: q.limit,
        };
      });
      return sendPage(request, reply, page);
    },
  );

  api.get(
    "/api/syndic-budgets/:budget_id",
    {
      schema: {
        tags,
        summary: "Get a syndic budget: its lots, its fund calls with their due dates, its formal notices",
        params: z.strictObject({ budget_id: uuid() }),
        response: answers(syndicBudgetBody),
      },
      config: read,
    },
    async (request, reply) => {
      const row = await findSyndicBudgetRow(sql, tenantOf(request), request.params.budget_id);
      if (!row) throw notFound("Syndic budget", request.params.budget_id);
      setEtag(reply, Number(row.revision));
      return toSyndicBudget(row);
    },
  );
}
