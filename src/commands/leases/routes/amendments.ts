import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { tenantOf } from "../../../platform/http/auth.ts";
import { newResourceId } from "../../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../../platform/http/responses.ts";
import { amendmentBody, amendmentParams, leaseParams, readAmendment } from "../../../queries/leases.ts";
import { amendmentChangesOf, amendmentOf } from "../bodies.ts";
import { freezeFacts, handleLease, remove, tags, write } from "../handleLease.ts";
import { amendmentStatusSchema, createAmendmentSchema, updateAmendmentSchema } from "../schemas.ts";

/** POST, PUT and DELETE of /api/leases/{id}/amendments (docs/design.md §6 Leases). */

const answerAmendment = (request: FastifyRequest, leaseId: string, id: string) => () =>
  readAmendment(request.server.platform.sql, tenantOf(request), leaseId, id);

function draftRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/amendments",
    {
      schema: {
        tags,
        summary: "Draft an amendment",
        params: leaseParams,
        body: createAmendmentSchema,
        response: createdAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const amendment_id = newResourceId(request);
      const result = await handleLease(request, lease_id, () => ({
        type: "DraftAmendment",
        lease_id,
        amendment_id,
        amendment: amendmentOf(request.body),
      }));
      return replyWithResource(request, reply, 201, {
        id: amendment_id,
        ...result,
        location: `/api/leases/${lease_id}/amendments/${amendment_id}`,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );
}

function reviseRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "Update a DRAFT amendment",
        params: amendmentParams,
        body: updateAmendmentSchema,
        response: updatedAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "ReviseAmendment",
        lease_id,
        amendment_id,
        changes: amendmentChangesOf(request.body),
      }));
      return replyWithResource(request, reply, 200, {
        id: amendment_id,
        ...result,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );
}

function deleteRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().delete(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "Delete a DRAFT amendment",
        params: amendmentParams,
        response: deletedAnswers,
      },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "DeleteAmendment",
        lease_id,
        amendment_id,
      }));
      return replyWithResource(request, reply, 204, { id: amendment_id, position: result.position });
    },
  );
}

/** What the F/G freeze judges a validation on: the facts on the amendment's effective date. */
async function validationFacts(request: FastifyRequest, leaseId: string, amendmentId: string) {
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  const amendment = await readAmendment(sql, tenantId, leaseId, amendmentId);
  const effective = amendment ? String(amendment.body.effective_date).slice(0, 10) : null;
  return effective ? await freezeFacts(sql, tenantId, leaseId, effective) : { dpe: null };
}

function statusRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/amendments/:amendment_id/status",
    {
      schema: {
        tags,
        summary: "Submit, validate (applies the changes), reject or cancel an amendment",
        params: amendmentParams,
        body: amendmentStatusSchema,
        response: updatedAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const { status, reason } = request.body;
      const facts =
        status === "VALIDATED" ? await validationFacts(request, lease_id, amendment_id) : { dpe: null };
      const result = await handleLease(request, lease_id, () => ({
        type: "ChangeAmendmentStatus",
        lease_id,
        amendment_id,
        status,
        reason: reason ?? null,
        ...facts,
      }));
      return replyWithResource(request, reply, 200, {
        id: amendment_id,
        ...result,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );
}

export function leaseAmendmentRoutes(app: FastifyInstance): void {
  draftRoute(app);
  reviseRoute(app);
  deleteRoute(app);
  statusRoute(app);
}
