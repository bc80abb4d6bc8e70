import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { syndicBudgetStream } from "../../events/syndic.ts";
import { legalToday } from "../../law/calendar.ts";
import { cents } from "../../law/money.ts";
import { type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import type { Position } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { isoDate, uuid } from "../../platform/http/schemas.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { readEstate } from "../../queries/estates.ts";
import { money } from "../../queries/leasesSchemas.ts";
import { requirePlace } from "../../queries/places.ts";
import { readSyndicBudget, syndicBudgetBody } from "../../queries/syndic.ts";
import { type SyndicCommand, syndicDecider } from "./decider.ts";

/** Syndic budgets, fund calls, formal notices and payments (docs/charges.md, "Syndic"): FinanceWrite. */

const tags = ["Syndic"];

const newBudget = z
  .strictObject({
    year: z.number().int().min(2000, "Must be 2000 or later").max(2100, "Must be 2100 or earlier"),
    amount: money()
      .refine((v) => v > 0, "Must be > 0")
      .describe("The voted budget (budget prévisionnel), euros"),
    works_fund_amount: money().describe(
      "The year's works fund contribution (fonds de travaux), called apart: at least 5 % of the budget (loi n° 65-557 art. 14-2-1 II) unless dispensed",
    ),
    works_fund_dispensed: z
      .boolean()
      .optional()
      .describe(
        "The copropriété is dispensed from the works fund (art. 14-2-1: fewer than ten lots deciding so unanimously, or a technical diagnosis showing no works for ten years)",
      ),
    shares: z
      .array(
        z.strictObject({
          estate_id: uuid(),
          tantiemes: z.number().int().min(1, "Must be >= 1").max(1_000_000_000),
        }),
      )
      .min(1, "At least one lot")
      .max(1000, "At most 1000 lots")
      .describe("The lots (estates of the place) and their tantièmes of the common charges"),
  })
  .meta({ id: "NewSyndicBudget" });

const newNotice = z
  .strictObject({ estate_id: uuid(), sent_on: isoDate.describe("The day the formal notice was received") })
  .meta({ id: "NewSyndicFormalNotice" });
const answer = z.strictObject({
  answered_on: isoDate.describe("The day the lot paid what the notice claimed"),
});

const newPayment = z
  .strictObject({
    estate_id: uuid().describe("The lot that paid"),
    paid_on: isoDate.describe("The day the syndic received it"),
    amount: money()
      .refine((v) => v > 0, "Must be > 0")
      .describe("Euros"),
  })
  .meta({ id: "NewSyndicPayment" });

const run = (request: FastifyRequest, id: string, command: SyndicCommand) =>
  handleCommand(request, syndicBudgetStream(id), syndicDecider, command, {
    notFound: () => notFound("Syndic budget", id),
  });

export async function syndicCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  /** The budget after the command, once projected; a 201 says where it is. */
  const replyBudget = (
    request: FastifyRequest,
    reply: FastifyReply,
    budget_id: string,
    result: { position: Position | null; revision: bigint | null },
    status: 200 | 201,
  ) =>
    replyAfterProjection(request, reply, {
      position: result.position,
      status,
      id: budget_id,
      ...(status === 201 ? { location: `/api/syndic-budgets/${budget_id}` } : {}),
      revision: result.revision,
      read: () => readSyndicBudget(sql, tenantOf(request), budget_id),
    });

  api.post(
    "/api/places/:place_id/syndic-budgets",
    {
      schema: {
        tags,
        summary:
          "Vote a place's budget for a year: quarterly fund calls (loi n° 65-557, art. 14-1) and the works fund apart (art. 14-2), per lot by tantièmes, to the cent",
        params: z.strictObject({ place_id: uuid() }),
        body: newBudget,
        response: createdAnswers(syndicBudgetBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid syndic budget data" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      const b = request.body;
      await requirePlace(sql, tenantId, place_id);
      const details: ErrorDetail[] = [];
      const seen = new Set<string>();
      for (const [i, share] of b.shares.entries()) {
        if (seen.has(share.estate_id))
          details.push({ field: `shares.${i}.estate_id`, message: "Listed twice" });
        seen.add(share.estate_id);
        const estate = await readEstate(sql, tenantId, share.estate_id);
        if (!estate)
          details.push({ field: `shares.${i}.estate_id`, message: `Estate ${share.estate_id} not found` });
        else if (estate.place_id !== place_id)
          details.push({
            field: `shares.${i}.estate_id`,
            message: `Estate ${share.estate_id} is not in place ${place_id}`,
          });
      }
      if (details.length > 0) throw validationError("Invalid syndic budget data", details);
      // One budget per place and year: its id derives from them, a second vote finds the stream.
      const budget_id = deterministicUuid("syndic-budget", tenantId, place_id, String(b.year));
      const result = await run(request, budget_id, {
        type: "VoteSyndicBudget",
        budget_id,
        place_id,
        year: b.year,
        amount_cents: cents(b.amount),
        works_fund_cents: cents(b.works_fund_amount),
        works_fund_dispensed: b.works_fund_dispensed === true,
        lots: b.shares.map((s) => ({ estate_id: s.estate_id, tantiemes: s.tantiemes })),
      });
      return replyBudget(request, reply, budget_id, result, 201);
    },
  );

  api.post(
    "/api/syndic-budgets/:budget_id/formal-notices",
    {
      schema: {
        tags,
        summary:
          "Record a formal notice to a lot: unanswered more than 30 days, the year's remaining calls fall due (loi n° 65-557, art. 19-2)",
        params: z.strictObject({ budget_id: uuid() }),
        body: newNotice,
        response: createdAnswers(syndicBudgetBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid formal notice data" },
    },
    async (request, reply) => {
      const { budget_id } = request.params;
      const result = await run(request, budget_id, {
        type: "SendFormalNotice",
        budget_id,
        notice_id: newResourceId(request),
        estate_id: request.body.estate_id,
        sent_on: request.body.sent_on,
        today: legalToday(),
      });
      return replyBudget(request, reply, budget_id, result, 201);
    },
  );

  api.post(
    "/api/syndic-budgets/:budget_id/formal-notices/:notice_id/answer",
    {
      schema: {
        tags,
        summary: "Record that the lot paid what a formal notice claimed",
        params: z.strictObject({ budget_id: uuid(), notice_id: uuid() }),
        body: answer,
        response: updatedAnswers(syndicBudgetBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid formal notice data" },
    },
    async (request, reply) => {
      const { budget_id, notice_id } = request.params;
      const result = await run(request, budget_id, {
        type: "AnswerFormalNotice",
        budget_id,
        notice_id,
        answered_on: request.body.answered_on,
        today: legalToday(),
      });
      return replyBudget(request, reply, budget_id, result, 200);
    },
  );

  api.post(
    "/api/syndic-budgets/:budget_id/payments",
    {
      schema: {
        tags,
        summary:
          "Record a lot's payment: applied to its calls due first, the oldest first (code civil art. 1342-10)",
        params: z.strictObject({ budget_id: uuid() }),
        body: newPayment,
        response: createdAnswers(syndicBudgetBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid syndic payment" },
    },
    async (request, reply) => {
      const { budget_id } = request.params;
      const result = await run(request, budget_id, {
        type: "RecordSyndicPayment",
        budget_id,
        payment_id: newResourceId(request),
        estate_id: request.body.estate_id,
        paid_on: request.body.paid_on,
        amount_cents: cents(request.body.amount),
        today: legalToday(),
      });
      return replyBudget(request, reply, budget_id, result, 201);
    },
  );
}
