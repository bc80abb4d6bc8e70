import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { PAYMENT_METHODS } from "../../events/leases.ts";
import { type LeaseAccount, leaseAccountStream } from "../../events/rentCycle.ts";
import { legalToday } from "../../law/calendar.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { text, uuid } from "../../platform/http/schemas.ts";
import { streamCachesPerStore } from "../../platform/streamCache.ts";
import { paymentRow } from "../../projections/rentCycle.ts";
import { date, money } from "../../queries/leasesSchemas.ts";
import { isLeaseParty, paymentBody, readLeaseStatus } from "../../queries/rentCycle.ts";
import { type AccountCommand, accountDecider } from "./decider.ts";

/** Payments on a lease's account (docs/design.md §7.1, docs/rent-cycle.md): FinanceWrite. */

const tags = ["Rent cycle"];
const write = { access: "FinanceWrite" as const, invalidBodyMessage: "Invalid payment data" };

const paymentSchema = z
  .strictObject({
    amount: money().refine((v) => v > 0, "Must be > 0"),
    paid_on: date(),
    method: z.enum(PAYMENT_METHODS),
    reference: text(200).nullish(),
    payer_lessee_id: uuid().nullish(),
  })
  .meta({ id: "NewPayment" });

const cancelSchema = z
  .strictObject({ reason: text(1000).min(1, "Must not be empty") })
  .meta({ id: "PaymentCancellation" });

/**
 * Leases whose account takes payments: any but a draft or one awaiting signature (no rent is due
 * yet). Gives the lease's start and signature dates, the facts a payment's date is checked against.
 */
async function requireAccountLease(request: FastifyRequest, leaseId: string, emptyAccount: boolean) {
  const lease = await readLeaseStatus(request.server.platform.sql, tenantOf(request), leaseId);
  if (lease === null) throw notFound("Lease", leaseId);
  if (emptyAccount && (lease.status === "DRAFT" || lease.status === "PENDING_SIGNATURE"))
    throw conflict(`Lease ${leaseId} is ${lease.status}: it has no account before it is signed`);
  return { lease_start_date: lease.start_date, lease_signed_on: lease.signed_at };
}

/** Account streams as this process's commands left them (src/platform/streamCache.ts), per store. */
const accountStreamsOf = streamCachesPerStore();

async function runAccount(
  request: FastifyRequest,
  leaseId: string,
  command: AccountCommand | ((account: LeaseAccount) => Promise<AccountCommand>),
) {
  return handleCommand(request, leaseAccountStream(leaseId), accountDecider, command, {
    notFound: () => notFound("Lease", leaseId),
    cache: accountStreamsOf(request.server.platform.store),
  });
}

export async function rentCycleCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/leases/:lease_id/payments",
    {
      schema: {
        tags,
        summary: "Record a payment: allocated to the oldest open call first, the rest kept as credit",
        params: z.strictObject({ lease_id: uuid() }),
        body: paymentSchema,
        response: createdAnswers(paymentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const b = request.body;
      if (b.payer_lessee_id && !(await isLeaseParty(sql, tenantOf(request), lease_id, b.payer_lessee_id)))
        throw validationError("Invalid payment data", [
          { field: "payer_lessee_id", message: "Must be a lessee of this lease" },
        ]);
      const payment_id = newResourceId(request);
      const result = await runAccount(request, lease_id, async (account) => {
        // An account with entries (of this tenant: another's reads as empty) was opened on a signed
        // lease: only an empty one needs its status checked.
        const empty = account.calls.length === 0 && account.payments.length === 0;
        const lease = await requireAccountLease(request, lease_id, empty);
        return {
          type: "RecordPayment",
          lease_id,
          payment_id,
          amount: b.amount,
          paid_on: b.paid_on,
          method: b.method,
          reference: b.reference ?? null,
          payer_lessee_id: b.payer_lessee_id ?? null,
          today: legalToday(),
          ...lease,
        };
      });
      const payment = result.state.payments.find((p) => p.payment_id === payment_id);
      // The answer is folded from the stream the command wrote: what the read model holds once caught up.
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: payment_id,
        location: `/api/leases/${lease_id}/payments/${payment_id}`,
        read: async () => (payment ? paymentRow(payment, lease_id) : null),
      });
    },
  );

  api.post(
    "/api/leases/:lease_id/payments/:payment_id/cancel",
    {
      schema: {
        tags,
        summary: "Cancel a payment: a reversing entry (the payment stays, its allocations are undone)",
        params: z.strictObject({ lease_id: uuid(), payment_id: uuid() }),
        body: cancelSchema,
        response: updatedAnswers(paymentBody),
      },
      config: { access: "FinanceWrite" as const, invalidBodyMessage: "Invalid cancellation" },
    },
    async (request, reply) => {
      const { lease_id, payment_id } = request.params;
      if ((await readLeaseStatus(sql, tenantOf(request), lease_id)) === null)
        throw notFound("Lease", lease_id);
      const result = await runAccount(request, lease_id, {
        type: "CancelPayment",
        lease_id,
        payment_id,
        reason: request.body.reason,
      });
      const payment = result.state.payments.find((p) => p.payment_id === payment_id);
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: payment_id,
        read: async () => (payment ? paymentRow(payment, lease_id) : null),
      });
    },
  );
}
