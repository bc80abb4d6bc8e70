import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AccountOpening } from "../events/rentCycle.ts";
import { type ArrearsCall, arrearsOf, commandementVerdict } from "../law/arrears.ts";
import { legalToday } from "../law/calendar.ts";
import { toEuros } from "../law/money.ts";
import { REMINDER_KINDS } from "../law/reminders.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import { answers, errorBody, errorResponses } from "../platform/http/responses.ts";
import { isoDate, uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { contentDisposition } from "./media.ts";
import {
  callFiguresOfRow,
  documentMarkup,
  documentView,
  type LetterFacts,
  readLetterFacts,
  renderDocument,
} from "./rentDocuments.ts";
import { readConfiguration, readTemplate } from "./settings.ts";

/**
 * Reminders and arrears of a lease (docs/rent-cycle.md): read from read models, the reminders'
 * (`rent_reminders`) and the rent calls' (`rent_calls`, the rent calls area's).
 */

const tags = ["Rent cycle"];
const read = { access: "FinanceRead" } as const;

export const receiptParams = z.strictObject({ lease_id: uuid(), call_id: uuid() });
const leaseParams = z.strictObject({ lease_id: uuid() });

/** A PDF answer: its bytes, and the client errors in the §4 shape. */
export const pdfBytes = z.unknown().meta({
  description: "The document as PDF",
  content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
});
export const pdfAnswers = { 200: pdfBytes, ...errorResponses };
/** The receipt: a PDF, or 409 when the call has no payment to acknowledge (loi n° 89-462 art. 21). */
export const receiptAnswers = { ...pdfAnswers, 409: errorBody };

// ---------------------------------------------------------------- reminders

export const rentReminderBody = z
  .strictObject({
    id: uuid().describe("The reminder's id, also its outbox message id: one per (call, level)"),
    lease_id: uuid(),
    call_id: uuid(),
    level: z.number().int(),
    kind: z.enum(REMINDER_KINDS),
    due_date: isoDate,
    days_late: z.number().int(),
    amount_claimed: z
      .number()
      .describe("The call's remaining amount when sent: never a fee or penalty (loi n° 89-462 art. 4 i, p)"),
    sent_at: z.string(),
    message_id: uuid(),
    delivery_status: z
      .string()
      .nullable()
      .describe("The outbox message's status (GET /api/messages/{id}); null until the outbox shows it"),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: "RentReminder", description: "A reminder sent for an unpaid rent call" });

const toReminder = (r: Row) => ({
  id: String(r.id),
  lease_id: String(r.lease_id),
  call_id: String(r.call_id),
  level: Number(r.level),
  kind: r.kind as (typeof REMINDER_KINDS)[number],
  due_date: isoDay(r.due_date) ?? "",
  days_late: Number(r.days_late),
  amount_claimed: Number(r.amount_claimed),
  sent_at: iso(r.sent_at) ?? "",
  message_id: String(r.message_id),
  delivery_status: (r.delivery_status as string | null) ?? null,
  delivered_at: iso(r.delivered_at),
});

export async function readReminders(sql: Sql, tenantId: string, leaseId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      // A reminder rides in its lease's letter of that level and day, whose id is the letter's
      // oldest reminder's (src/commands/rentCollection/reminders.ts): its status is the letter's.
      `SELECT r.*, m.status AS delivery_status, m.delivered_at FROM rent_reminders r
       LEFT JOIN messages m ON m.tenant_id = r.tenant_id AND m.id = (
         SELECT f.message_id FROM rent_reminders f
         WHERE f.tenant_id = r.tenant_id AND f.lease_id = r.lease_id AND f.level = r.level
           AND (f.sent_at AT TIME ZONE 'Europe/Paris')::date = (r.sent_at AT TIME ZONE 'Europe/Paris')::date
         ORDER BY f.due_date, f.call_id LIMIT 1)
       WHERE r.tenant_id = $1 AND r.lease_id = $2 ORDER BY r.sent_at, r.level, r.id`,
      [tenantId, leaseId],
      { prepare: true },
    ),
  );
  return rows.map(toReminder);
}

// ---------------------------------------------------------------- arrears

const arrearsPeriod = z
  .strictObject({
    call_id: uuid(),
    kind: z
      .enum(["RENT_CALL", "OPENING_BALANCE"])
      .describe(
        "OPENING_BALANCE: what the tenant owed when the lease was taken over (its takeover_date, on which it is due)",
      ),
    period_start: isoDate,
    period_end: isoDate,
    due_date: isoDate,
    rent_amount: z.number(),
    charges_amount: z.number(),
    total_amount: z.number(),
    paid_amount: z.number(),
    remaining_amount: z.number(),
    days_late: z.number().int().describe("Days since the due date (0 on the due date)"),
  })
  .meta({ id: "ArrearsPeriod", description: "What is still owed on one rent call" });

export const arrearsBody = z
  .strictObject({
    lease_id: uuid(),
    as_of: isoDate.describe("Today in Paris: the day the figures are for"),
    total_owed: z.number().describe("The periods' remaining amounts summed; no fee or penalty (art. 4 i, p)"),
    periods: z.array(arrearsPeriod),
    commandement_de_payer: z
      .strictObject({
        rule: z.string(),
        status: z.enum(["PASS", "FAIL", "UNKNOWN", "NOT_APPLICABLE"]),
        message: z.string(),
        legal_reference: z.string(),
        payment_delay: z
          .enum(["SIX_WEEKS", "TWO_MONTHS"])
          .nullable()
          .describe(
            "Six weeks for a lease concluded from 2023-07-29 (loi n° 2023-668), else its clause's two months",
          ),
        last_day_to_pay: isoDate
          .nullable()
          .describe(
            "The delay's last day for a commandement served today: paid by then, the clause has no effect",
          ),
        clause_effective_from: isoDate
          .nullable()
          .describe(
            "The first day after the delay: the earliest the clause résolutoire takes effect for a commandement served today",
          ),
        guarantor_notice: z
          .strictObject({
            required: z
              .boolean()
              .nullable()
              .describe("Whether the lease has a guarantor to serve; null: unknown"),
            notify_by: isoDate.describe("15 days after the service on the tenant (art. 24 I al. 3)"),
            legal_reference: z.string(),
            message: z.string(),
          })
          .nullable()
          .describe("Serving the guarantor within 15 days, else no penalty nor late interest from them"),
        concluded_on: isoDate.nullable(),
        monthly_rent: z.number(),
        monthly_charges: z.number(),
        required_mentions: z.array(z.string()),
      })
      .meta({
        id: "CommandementFacts",
        description: "What a commandement de payer needs (loi n° 89-462 art. 24 I)",
      }),
  })
  .meta({
    id: "Arrears",
    description: "The arrears statement of a lease: the input of a commandement de payer",
  });
export type Arrears = z.output<typeof arrearsBody>;

/**
 * The lease's calls as the rent calls' read model holds them, and the opening balance of a lease
 * taken over (the account's, docs/rent-cycle.md) as a debt due on its takeover date.
 */
async function readCalls(sql: Sql, tenantId: string, leaseId: string): Promise<ArrearsCall[]> {
  const [rows, [account]] = await sql.asTenant(tenantId, (tx) =>
    Promise.all([
      tx.query<Row>(
        `SELECT id, period_start, period_end, due_date, rent_amount, charges_amount, total_amount, paid_amount
         FROM rent_calls WHERE tenant_id = $1 AND lease_id = $2 ORDER BY period_start, id`,
        [tenantId, leaseId],
        { prepare: true },
      ),
      tx.query<{ opening: AccountOpening | null }>(
        "SELECT state -> 'opening' AS opening FROM lease_accounts WHERE tenant_id = $1 AND id = $2",
        [tenantId, leaseId],
      ),
    ]),
  );
  const calls: ArrearsCall[] = rows.map((r) => ({ ...callFiguresOfRow(r), kind: "RENT_CALL" as const }));
  const o = account?.opening;
  if (!o) return calls;
  const opening = { ...callFiguresOfRow(openingAsCallRow(o)), kind: "OPENING_BALANCE" as const };
  return [opening, ...calls];
}

/** The opening balance in the rent calls' row shape (euros). */
const openingAsCallRow = (o: AccountOpening): Row => ({
  id: o.call_id,
  period_start: o.on,
  period_end: o.on,
  due_date: o.on,
  rent_amount: toEuros(o.total_cents),
  charges_amount: 0,
  total_amount: toEuros(o.total_cents),
  paid_amount: toEuros(o.paid_cents),
});

/** The arrears of a lease on `today` (art. 24 I facts included). */
export function arrearsStatement(facts: LetterFacts, calls: ArrearsCall[], today: string): Arrears {
  const { periods, total_owed } = arrearsOf(calls, today);
  const v = commandementVerdict({
    concluded_on: facts.concluded_on,
    today,
    total_owed,
    monthly_rent: facts.rent_amount,
    monthly_charges: facts.charges_amount,
    guarantor_count: facts.guarantor_count,
  });
  const d = v.details as Record<string, unknown>;
  return {
    lease_id: facts.lease_id,
    as_of: today,
    total_owed,
    periods: periods.map((p) => ({ ...p, kind: p.kind ?? "RENT_CALL" })),
    commandement_de_payer: {
      rule: v.rule,
      status: v.status,
      message: v.message,
      legal_reference: v.legal_reference,
      payment_delay: (d.payment_delay as "SIX_WEEKS" | "TWO_MONTHS" | undefined) ?? null,
      last_day_to_pay: (d.last_day_to_pay as string | undefined) ?? null,
      clause_effective_from: (d.clause_effective_from as string | undefined) ?? null,
      guarantor_notice: (d.guarantor_notice as Arrears["commandement_de_payer"]["guarantor_notice"]) ?? null,
      concluded_on: facts.concluded_on,
      monthly_rent: facts.rent_amount,
      monthly_charges: facts.charges_amount,
      required_mentions: d.required_mentions as string[],
    },
  };
}

const DELAY_TEXT = { SIX_WEEKS: "six semaines", TWO_MONTHS: "deux mois" } as const;

async function arrearsPdf(sql: Sql, tenantId: string, facts: LetterFacts, arrears: Arrears) {
  const [source, configuration] = await Promise.all([
    readTemplate(sql, tenantId, "arrears-statement"),
    readConfiguration(sql, tenantId),
  ]);
  const c = arrears.commandement_de_payer;
  const view = documentView(facts, {
    arrears: {
      total: arrears.total_owed,
      as_of: arrears.as_of,
      periods: arrears.periods.map((p) => ({ ...p, opening: p.kind === "OPENING_BALANCE" })),
      monthly_rent: c.monthly_rent,
      monthly_charges: c.monthly_charges,
      payment_delay: c.payment_delay ? DELAY_TEXT[c.payment_delay] : "",
      clause_effective_from: c.clause_effective_from ?? "",
      required_mentions: c.required_mentions,
    },
    sender: { name: configuration.sender.name, email: configuration.sender.email },
  });
  return renderDocument(documentMarkup("arrears-statement", source, view), "Décompte des sommes dues");
}

/** Whether the client asked for the PDF (`Accept: application/pdf` before any JSON). */
const wantsPdf = (accept: string | undefined) => {
  const types = (accept ?? "").split(",").map((t) => t.split(";")[0].trim().toLowerCase());
  const pdf = types.indexOf("application/pdf");
  const json = types.findIndex((t) => t === "application/json" || t === "*/*" || t === "application/*");
  return pdf >= 0 && (json < 0 || pdf < json);
};

export async function rentCollectionQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/leases/:lease_id/reminders",
    {
      schema: {
        tags,
        summary: "The reminders sent for the lease's unpaid rent calls, oldest first (never with a fee)",
        params: leaseParams,
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(rentReminderBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const [facts, reminders] = await Promise.all([
        readLetterFacts(sql, tenantId, lease_id),
        readReminders(sql, tenantId, lease_id),
      ]);
      if (!facts) throw notFound("Lease", lease_id);
      return sendSlice(request, reply, reminders, request.query);
    },
  );

  api.get(
    "/api/leases/:lease_id/arrears",
    {
      schema: {
        tags,
        summary:
          "What the lease owes per period and in total, with the facts a commandement de payer needs (art. 24 I); `Accept: application/pdf` for the statement as PDF",
        params: leaseParams,
        response: answers(arrearsBody),
      },
      config: { ...read, pdfAlternative: true },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const [facts, calls] = await Promise.all([
        readLetterFacts(sql, tenantId, lease_id),
        readCalls(sql, tenantId, lease_id),
      ]);
      if (!facts) throw notFound("Lease", lease_id);
      const arrears = arrearsStatement(facts, calls, legalToday());
      if (!wantsPdf(request.headers.accept)) return arrears;
      const bytes = await arrearsPdf(sql, tenantId, facts, arrears);
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", contentDisposition("attachment", `decompte-${arrears.as_of}.pdf`))
        .send(bytes);
    },
  );
}
