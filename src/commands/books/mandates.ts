import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  evolveMandates,
  type ManagementMandate,
  type MandateEvent,
  mandateStream,
} from "../../events/books/index.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers, createdAnswers } from "../../platform/http/responses.ts";
import { date, uuid } from "../../platform/http/schemas.ts";
import { mandateBody, readMandates } from "../../queries/books/index.ts";
import { ownerExists } from "../../queries/owners.ts";

export type MandateCommand =
  | { type: "SignManagementMandate"; mandate: Omit<ManagementMandate, "ends_on"> }
  | { type: "EndManagementMandate"; owner_id: string; ends_on: string };

export const mandateDecider: Decider<ManagementMandate[], MandateCommand, MandateEvent> = {
  initialState: () => [],
  evolve: evolveMandates,
  decide(command, mandates) {
    const current = mandates.find((m) => m.ends_on === null);
    switch (command.type) {
      case "SignManagementMandate": {
        if (current) throw conflict("The owner's mandate in force must end before a new one is signed");
        const last = mandates.at(-1);
        if (last?.ends_on && command.mandate.starts_on <= last.ends_on)
          throw validationError("Invalid management mandate", [
            { field: "starts_on", message: `Must be after the previous mandate's end (${last.ends_on})` },
          ]);
        return [{ type: "ManagementMandateSigned", data: command.mandate }];
      }
      case "EndManagementMandate": {
        if (!current) throw conflict("The owner has no management mandate in force");
        if (command.ends_on < current.starts_on)
          throw validationError("Invalid mandate end", [
            { field: "ends_on", message: `Must not be before the mandate's start (${current.starts_on})` },
          ]);
        return [
          {
            type: "ManagementMandateEnded",
            data: { mandate_id: current.mandate_id, owner_id: command.owner_id, ends_on: command.ends_on },
          },
        ];
      }
    }
  },
};

// The dates every route takes (bounded, real days).
const day = date;
const rate = (max: number) =>
  z
    .number()
    .min(0, "Must be >= 0")
    .max(max, `Must be at most ${max}`)
    .refine((v) => Math.abs(v * 10_000 - Math.round(v * 10_000)) < 1e-6, "At most four decimals (0.0725)");

const ownerParams = z.strictObject({ owner_id: uuid() });

export async function mandateCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const requireOwner = async (tenantId: string, ownerId: string) => {
    if (!(await ownerExists(sql, tenantId, ownerId))) throw notFound("Owner", ownerId);
  };

  api.post(
    "/api/owners/:owner_id/management-mandates",
    {
      schema: {
        tags: ["Books"],
        summary:
          "Record the owner's management mandate: the fee the agency keeps on what it collects (VAT on top)",
        params: ownerParams,
        body: z.strictObject({
          fee_rate: rate(0.5).describe("Share of the amounts collected, before VAT: 0.07 for 7 %"),
          vat_rate: rate(1).default(0.2),
          starts_on: day(),
        }),
        response: createdAnswers(mandateBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid management mandate" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const mandate_id = randomUUID();
      const result = await handleCommand(request, mandateStream(owner_id), mandateDecider, {
        type: "SignManagementMandate",
        mandate: { mandate_id, owner_id, ...request.body },
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: mandate_id,
        location: `/api/owners/${owner_id}/management-mandates`,
        read: async () => (await readMandates(sql, tenantId, owner_id)).find((m) => m.id === mandate_id),
      });
    },
  );

  api.post(
    "/api/owners/:owner_id/management-mandates/end",
    {
      schema: {
        tags: ["Books"],
        summary: "End the owner's management mandate in force",
        params: ownerParams,
        body: z.strictObject({ ends_on: day() }).meta({ id: "ManagementMandateEnd" }),
        response: answers(mandateBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid mandate end" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { owner_id } = request.params;
      await requireOwner(tenantId, owner_id);
      const result = await handleCommand(request, mandateStream(owner_id), mandateDecider, {
        type: "EndManagementMandate",
        owner_id,
        ends_on: request.body.ends_on,
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        read: async () => (await readMandates(sql, tenantId, owner_id)).at(-1),
      });
    },
  );
}
