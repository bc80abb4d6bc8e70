import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  EXPENSE_KINDS,
  evolveOwnerExpenses,
  type OwnerExpense,
  type OwnerExpenseEvent,
  type OwnerExpensesState,
  ownerExpensesStream,
} from "../../events/books/index.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, unprocessable } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers, createdAnswers } from "../../platform/http/responses.ts";
import { date, euros, text, uuid } from "../../platform/http/schemas.ts";
import { expenseBody, propertyOwners, readExpense } from "../../queries/books/index.ts";
import { ownerExists } from "../../queries/owners.ts";

/** Where the lease or estate an expense names belongs: its owner (null: unknown to the books). */
export interface ExpenseFacts {
  estate_owner_id: string | null | undefined;
  lease_owner_id: string | null | undefined;
}

export type ExpenseCommand =
  | { type: "RecordOwnerExpense"; expense: OwnerExpense; facts: ExpenseFacts }
  | { type: "CancelOwnerExpense"; owner_id: string; expense_id: string; today: string };

export const ownerExpenseDecider: Decider<OwnerExpensesState, ExpenseCommand, OwnerExpenseEvent> = {
  initialState: () => ({}),
  evolve: evolveOwnerExpenses,
  decide(command, state) {
    switch (command.type) {
      case "RecordOwnerExpense": {
        const { expense: x, facts } = command;
        // An expense is the owner's: the estate or lease it names must be one of theirs.
        if (x.estate_id && facts.estate_owner_id !== x.owner_id)
          throw unprocessable("The estate is not the owner's", [
            { field: "estate_id", message: "Must be an estate of this owner" },
          ]);
        if (x.lease_id && facts.lease_owner_id !== x.owner_id)
          throw unprocessable("The lease is not of an estate of the owner", [
            { field: "lease_id", message: "Must be a lease of an estate of this owner" },
          ]);
        return [{ type: "OwnerExpenseRecorded", data: x }];
      }
      case "CancelOwnerExpense": {
        const known = state[command.expense_id];
        if (!known) throw notFound("Expense", command.expense_id);
        if (known.cancelled_on) throw conflict(`The expense was already cancelled on ${known.cancelled_on}`);
        // The reversal is dated the day it is cancelled: a closed period is never written to.
        return [
          {
            type: "OwnerExpenseCancelled",
            data: { expense_id: command.expense_id, owner_id: command.owner_id, cancelled_on: command.today },
          },
        ];
      }
    }
  },
};

const ownerParams = z.strictObject({ owner_id: uuid() });

export async function expenseCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const requireOwner = async (tenantId: string, ownerId: string) => {
    if (!(await ownerExists(sql, tenantId, ownerId))) throw notFound("Owner", ownerId);
  };

  api.post(
    "/api/owners/:owner_id/expenses",
    {
      schema: {
        tags: ["Books"],
        summary:
          "Record an expense paid for the owner's property: posted to its account (purchases journal) and its line of the 2044",
        params: ownerParams,
        body: z
          .strictObject({
            kind: z.enum(EXPENSE_KINDS),
            amount: euros({ min: 0.01 }),
            paid_on: date(),
            label: text(200).min(1, "Must not be empty"),
            lease_id: uuid().nullish(),
            estate_id: uuid().nullish(),
          })
          .describe("An expense paid for the owner"),
        response: createdAnswers(expenseBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid expense" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const b = request.body;
      const expense_id = randomUUID();
      const owners = await propertyOwners(sql, tenantId, { estate_id: b.estate_id, lease_id: b.lease_id });
      const result = await handleCommand(request, ownerExpensesStream(owner_id), ownerExpenseDecider, {
        type: "RecordOwnerExpense",
        expense: {
          expense_id,
          owner_id,
          kind: b.kind,
          amount: b.amount,
          paid_on: b.paid_on,
          label: b.label,
          lease_id: b.lease_id ?? null,
          estate_id: b.estate_id ?? null,
        },
        facts: owners,
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: expense_id,
        location: `/api/owners/${owner_id}/expenses/${expense_id}`,
        read: () => readExpense(sql, tenantId, owner_id, expense_id),
      });
    },
  );

  api.post(
    "/api/owners/:owner_id/expenses/:expense_id/cancel",
    {
      schema: {
        tags: ["Books"],
        summary: "Cancel an expense: its reversal is posted, dated today (the books are never edited)",
        params: z.strictObject({ owner_id: uuid(), expense_id: uuid() }),
        response: answers(expenseBody),
      },
      config: { access: "FinanceWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id, expense_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const result = await handleCommand(request, ownerExpensesStream(owner_id), ownerExpenseDecider, {
        type: "CancelOwnerExpense",
        owner_id,
        expense_id,
        today: legalToday(),
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        read: () => readExpense(sql, tenantId, owner_id, expense_id),
      });
    },
  );
}
