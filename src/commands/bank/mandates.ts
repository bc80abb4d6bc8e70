import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bankAccountResource } from "../../events/bank/index.ts";
import {
  evolveMandate,
  type Mandate,
  type MandateEvent,
  rumOf,
  sepaMandateStream,
} from "../../events/bank/mandates.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { mandateBody, mandateOf } from "../../queries/bank/mandates.ts";
import { date } from "../../queries/leasesSchemas.ts";
import { isLeaseParty, readLeaseStatus } from "../../queries/rentCycle.ts";

/**
 * SEPA mandates of a lease (docs/bank.md, "SEPA mandates"): signed by a lessee of the lease for
 * an IBAN, revoked by the payer's request. FinanceWrite.
 */
export type MandateCommand =
  | {
      type: "SignMandate";
      mandate_id: string;
      lease_id: string;
      lessee_id: string;
      iban: string;
      bic: string | null;
      signed_on: string;
      today: string;
    }
  | { type: "RevokeMandate"; mandate_id: string; lease_id: string; today: string }
  /** A collection batch used it (written after the batch; a repeat writes nothing). */
  | { type: "UseMandate"; mandate_id: string; lease_id: string; collection_id: string; used_on: string };

export const mandateDecider: Decider<Mandate, MandateCommand, MandateEvent> = {
  initialState: () => ({ status: "absent" }),
  evolve: evolveMandate,
  decide(command, state) {
    switch (command.type) {
      case "SignMandate": {
        if (state.status !== "absent") throw conflict(`Mandate ${command.mandate_id} already exists`);
        if (command.signed_on > command.today)
          throw validationError("Invalid mandate", [
            { field: "signed_on", message: `Must not be after today (${command.today}, Europe/Paris)` },
          ]);
        const { today: _, type: __, ...data } = command;
        return [{ type: "SepaMandateSigned", data: { ...data, rum: rumOf(command.mandate_id) } }];
      }
      case "RevokeMandate": {
        if (state.status === "absent" || state.lease_id !== command.lease_id)
          throw notFound("Mandate", command.mandate_id);
        if (state.revoked_on) throw conflict(`Mandate ${command.mandate_id} is already revoked`);
        return [
          {
            type: "SepaMandateRevoked",
            data: { mandate_id: command.mandate_id, lease_id: command.lease_id, revoked_on: command.today },
          },
        ];
      }
      case "UseMandate": {
        if (state.status === "absent" || (state.last_used_on ?? "") >= command.used_on) return [];
        const { type: _, ...data } = command;
        return [{ type: "SepaMandateUsed", data }];
      }
    }
  },
};

const signSchema = z
  .strictObject({
    lessee_id: uuid(),
    iban: bankAccountResource.fields.iban,
    bic: bankAccountResource.fields.bic,
    signed_on: date(),
  })
  .meta({ id: "NewSepaMandate" });

export async function mandateRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const tags = ["Bank"];

  api.post(
    "/api/leases/:lease_id/sepa-mandates",
    {
      schema: {
        tags,
        summary:
          "Record a SEPA Direct Debit mandate signed by a lessee of the lease (its RUM derived, sequence FRST)",
        params: z.strictObject({ lease_id: uuid() }),
        body: signSchema,
        response: createdAnswers(mandateBody),
      },
      config: { access: "FinanceWrite" as const, invalidBodyMessage: "Invalid mandate" },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { lease_id } = request.params;
      if ((await readLeaseStatus(sql, tenant, lease_id)) === null) throw notFound("Lease", lease_id);
      const b = request.body;
      if (!(await isLeaseParty(sql, tenant, lease_id, b.lessee_id)))
        throw validationError("Invalid mandate", [
          { field: "lessee_id", message: "Must be a lessee of this lease" },
        ]);
      const mandate_id = newResourceId(request);
      const today = legalToday();
      const result = await handleCommand(request, sepaMandateStream(mandate_id), mandateDecider, {
        type: "SignMandate",
        mandate_id,
        lease_id,
        lessee_id: b.lessee_id,
        iban: b.iban,
        bic: b.bic ?? null,
        signed_on: b.signed_on,
        today,
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: mandate_id,
        location: `/api/leases/${lease_id}/sepa-mandates/${mandate_id}`,
        read: async () => mandateOf(result.state, today),
      });
    },
  );

  api.post(
    "/api/leases/:lease_id/sepa-mandates/:mandate_id/revoke",
    {
      schema: {
        tags,
        summary: "Revoke a mandate (the payer's request): no collection may use it again",
        params: z.strictObject({ lease_id: uuid(), mandate_id: uuid() }),
        response: updatedAnswers(mandateBody),
      },
      config: { access: "FinanceWrite" as const },
    },
    async (request, reply) => {
      const { lease_id, mandate_id } = request.params;
      const today = legalToday();
      const result = await handleCommand(
        request,
        sepaMandateStream(mandate_id),
        mandateDecider,
        { type: "RevokeMandate", mandate_id, lease_id, today },
        { notFound: () => notFound("Mandate", mandate_id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: mandate_id,
        read: async () => mandateOf(result.state, today),
      });
    },
  );
}
