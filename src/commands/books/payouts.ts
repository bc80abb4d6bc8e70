import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bankAccountResource } from "../../events/bank/index.ts";
import {
  evolvePayouts,
  type PayoutEvent,
  type PayoutsState,
  payoutsStream,
} from "../../events/books/index.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, unprocessable } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers } from "../../platform/http/responses.ts";
import { date, uuid } from "../../platform/http/schemas.ts";
import { readResource } from "../../platform/resource/read.ts";
import {
  dueToOwner,
  mandantsOf,
  ownerBank,
  payoutBody,
  postedPayouts,
  readPayout,
} from "../../queries/books/index.ts";

/** What the books say on the day of the payout: each owner's due (cents) and whether it has an IBAN. */
export interface PayoutFacts {
  posted_payouts: number;
  owners: { owner_id: string; due_cents: number; has_iban: boolean }[];
}

export interface IssuePayout {
  type: "IssuePayout";
  payout_id: string;
  bank_account_id: string;
  on: string;
  created_at: string;
  facts: PayoutFacts;
}

export const payoutDecider: Decider<PayoutsState, IssuePayout, PayoutEvent> = {
  initialState: () => ({ payouts: [] }),
  evolve: evolvePayouts,
  decide(c, state) {
    // The amounts due come from the books: a payout not yet posted there would be paid twice.
    if (c.facts.posted_payouts !== state.payouts.length)
      throw conflict("The previous payout of this account is not yet in the books; retry in a moment");
    const due = c.facts.owners.filter((o) => o.due_cents > 0);
    if (due.length === 0) throw conflict(`Nothing is due to any owner on ${c.on}`);
    const noIban = due.filter((o) => !o.has_iban);
    if (noIban.length)
      throw unprocessable(
        "An owner to be paid has no IBAN",
        noIban.map((o) => ({ field: "owner_id", message: `Owner ${o.owner_id} has no IBAN` })),
      );
    const ref = c.payout_id.replaceAll("-", "").slice(0, 24).toUpperCase();
    return [
      {
        type: "PayoutIssued",
        data: {
          payout_id: c.payout_id,
          bank_account_id: c.bank_account_id,
          on: c.on,
          created_at: c.created_at,
          transfers: due.map((o, i) => ({
            owner_id: o.owner_id,
            amount: o.due_cents / 100,
            end_to_end_id: `RV${ref}${String(i + 1).padStart(4, "0")}`,
          })),
        },
      },
    ];
  },
};

export async function payoutCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/bank-accounts/:bank_account_id/payouts",
    {
      schema: {
        tags: ["Books"],
        summary:
          "Pay each owner what is due to them on a day (collected, less fees, expenses and earlier payouts) by SEPA credit transfer",
        params: z.strictObject({ bank_account_id: uuid() }),
        body: z.strictObject({ on: date().describe("The requested execution date of the transfers") }),
        response: createdAnswers(payoutBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid payout" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { bank_account_id } = request.params;
      const { on } = request.body;
      const account = await readResource(sql, bankAccountResource, tenantId, bank_account_id);
      if (!account) throw notFound(bankAccountResource.label, bank_account_id);
      const accountOwner = (account.body.owner_id as string | null | undefined) ?? null;
      // Counted before the amounts due: a payout posted in between makes the decider refuse.
      const posted_payouts = await postedPayouts(sql, tenantId, bank_account_id);
      const owners = [];
      for (const owner_id of await mandantsOf(sql, tenantId, accountOwner, on)) {
        const bank = await ownerBank(sql, tenantId, owner_id);
        owners.push({
          owner_id,
          due_cents: await dueToOwner(sql, tenantId, owner_id, on),
          has_iban: Boolean(bank?.iban),
        });
      }
      const payout_id = randomUUID();
      const result = await handleCommand(request, payoutsStream(bank_account_id), payoutDecider, {
        type: "IssuePayout",
        payout_id,
        bank_account_id,
        on,
        created_at: new Date().toISOString(),
        facts: { posted_payouts, owners },
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: payout_id,
        location: `/api/payouts/${payout_id}`,
        read: () => readPayout(sql, tenantId, payout_id),
      });
    },
  );
}
