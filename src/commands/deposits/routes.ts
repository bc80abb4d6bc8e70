import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { depositStream } from "../../events/deposits.ts";
import { legalToday } from "../../law/calendar.ts";
import { DEDUCTION_KINDS } from "../../law/depositReturn.ts";
import { cents, toEuros } from "../../law/money.ts";
import { type ErrorDetail, fieldError, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers, createdAnswers } from "../../platform/http/responses.ts";
import { text, uuid } from "../../platform/http/schemas.ts";
import { depositBody, readDeposit, readDepositFacts } from "../../queries/deposits.ts";
import { keysReturnedOn } from "../../queries/estateKeys.ts";
import { leaseParams } from "../../queries/leases.ts";
import { date, money } from "../../queries/leasesSchemas.ts";
import { findMediaRow } from "../../queries/media.ts";
import { readRentCall } from "../../queries/rentCycle.ts";
import { depositDecider, type ReturnDeposit } from "./decider.ts";

/** POST /api/leases/{id}/deposit/return (docs/moving.md "Deposit"): Finance. */

const forwardingAddress = z
  .boolean()
  .optional()
  .describe(
    "Whether the tenant gave the address of their new home at the keys' return; false: no late penalty (art. 22 al. 7)",
  );

const returnSchema = z
  .strictObject({
    returned_on: date().refine((d) => d <= legalToday(), "Must not be after today (Europe/Paris)"),
    deductions: z
      .array(
        z
          .strictObject({
            kind: z.enum(DEDUCTION_KINDS),
            amount: money().refine((v) => v > 0, "Must be > 0"),
            description: text(1000).min(1, "Must not be empty"),
            rent_call_id: uuid().nullish(),
            invoice_media_id: uuid().nullish(),
          })
          .superRefine((d, ctx) => {
            if (d.kind === "UNPAID_RENT" && !d.rent_call_id)
              ctx.addIssue({
                code: "custom",
                path: ["rent_call_id"],
                message: "Required: the unpaid rent call",
              });
            if (d.kind === "REPAIR" && !d.invoice_media_id)
              ctx.addIssue({
                code: "custom",
                path: ["invoice_media_id"],
                message: "Required: the repair's invoice (media)",
              });
          }),
      )
      .max(100)
      .default([]),
    held: money()
      .optional()
      .describe("Held until the building's annual accounts: at most 20 % (art. 22 al. 5)"),
    forwarding_address_given: forwardingAddress,
    keys_returned_on: date()
      .refine((d) => d <= legalToday(), "Must not be after today (Europe/Paris)")
      .optional()
      .describe(
        "Only for a lease ended without a keys' return (status route, term): default its last RETURNED handover",
      ),
  })
  .meta({ id: "DepositReturn" });

const balanceSchema = z
  .strictObject({
    accounts_approved_on: date()
      .refine((d) => d <= legalToday(), "Must not be after today (Europe/Paris)")
      .describe("The day the building's annual accounts were approved"),
    charges_deducted: money().describe(
      "The tenant's share of the charges still owed, taken from the held part",
    ),
    settled_on: date().refine((d) => d <= legalToday(), "Must not be after today (Europe/Paris)"),
    forwarding_address_given: forwardingAddress,
  })
  .meta({ id: "DepositBalanceSettlement" });

export async function depositCommandRoutes(app: FastifyInstance): Promise<void> {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/deposit/balance",
    {
      schema: {
        tags: ["Moving in and out"],
        summary:
          "Settle the held part of the deposit once the building's accounts are approved (loi n° 89-462 art. 22 al. 5)",
        params: leaseParams,
        body: balanceSchema,
        response: answers(depositBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid deposit balance" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const facts = await readDepositFacts(sql, tenantId, lease_id);
      if (!facts) throw notFound("Lease", lease_id);
      const result = await handleCommand(
        request,
        depositStream(lease_id),
        depositDecider,
        {
          type: "SettleDepositBalance",
          lease_id,
          ...request.body,
          forwarding_address_given: request.body.forwarding_address_given ?? null,
          monthly_rent: facts.monthly_rent,
        },
        { notFound: () => notFound("Lease", lease_id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: lease_id,
        read: () => readDeposit(sql, tenantId, lease_id),
      });
    },
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/deposit/return",
    {
      schema: {
        tags: ["Moving in and out"],
        summary: "Return the deposit, itemising each justified deduction (loi n° 89-462 art. 22)",
        params: leaseParams,
        body: returnSchema,
        response: createdAnswers(depositBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid deposit return" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const facts = await readDepositFacts(sql, tenantId, lease_id);
      if (!facts) throw notFound("Lease", lease_id);
      const errors: ErrorDetail[] = [];
      const deductions: ReturnDeposit["deductions"] = await Promise.all(
        request.body.deductions.map(async (d, i) => {
          const base = {
            kind: d.kind,
            amount: d.amount,
            description: d.description,
            rent_call_id: d.rent_call_id ?? null,
            invoice_media_id: d.invoice_media_id ?? null,
          };
          if (d.kind === "UNPAID_RENT" && d.rent_call_id) {
            const call = await readRentCall(sql, tenantId, lease_id, d.rent_call_id);
            if (!call)
              errors.push({
                field: `deductions.${i}.rent_call_id`,
                message: "No such rent call on this lease",
              });
            const remaining = call
              ? toEuros(Math.max(0, cents(call.total_amount) - cents(call.paid_amount)))
              : null;
            return { ...base, call_remaining: remaining };
          }
          const found = d.invoice_media_id
            ? (await findMediaRow(sql, tenantId, d.invoice_media_id)) !== null
            : false;
          if (!found) errors.push({ field: `deductions.${i}.invoice_media_id`, message: "No such media" });
          return { ...base, invoice_found: found };
        }),
      );
      if (errors.length > 0) throw validationError("Invalid deposit return", errors);
      const { deposit } = facts;
      if (request.body.keys_returned_on !== undefined && deposit.keys_returned_on !== null)
        throw fieldError(
          "keys_returned_on",
          `The termination recorded the keys' return on ${deposit.keys_returned_on}`,
          "Invalid deposit return",
        );
      const keys =
        deposit.keys_returned_on === null
          ? (request.body.keys_returned_on ?? (await keysReturnedOn(sql, tenantId, lease_id)))
          : null;
      const result = await handleCommand(
        request,
        depositStream(lease_id),
        depositDecider,
        {
          type: "ReturnDeposit",
          lease_id,
          returned_on: request.body.returned_on,
          deductions,
          held: request.body.held ?? 0,
          forwarding_address_given: request.body.forwarding_address_given ?? null,
          in_copropriete: facts.in_copropriete,
          keys_returned_on: keys,
          lease: {
            amount: deposit.amount,
            monthly_rent: facts.monthly_rent,
            ended: deposit.status !== "RUNNING",
            keys_returned_on: deposit.keys_returned_on,
            due_on: deposit.due_on,
          },
        },
        { notFound: () => notFound("Lease", lease_id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: lease_id,
        location: `/api/leases/${lease_id}/deposit`,
        read: () => readDeposit(sql, tenantId, lease_id),
      });
    },
  );
}
