import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { leaseStream } from "../../../events/leases.ts";
import { tenantOf } from "../../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../../platform/http/responses.ts";
import { leaseBody, leaseFromEvents, leaseParams } from "../../../queries/leases.ts";
import { createLeaseSchema } from "../../../queries/leasesSchemas.ts";
import { leaseTermsOf, termChangesOf } from "../bodies.ts";
import { leaseDecider } from "../decider.ts";
import {
  estateExists,
  handleLease,
  leaseStreamsOf,
  lesseeFact,
  remove,
  tags,
  write,
} from "../handleLease.ts";
import { updateLeaseSchema } from "../schemas.ts";

/** POST, PUT and DELETE of /api/leases (docs/specification.md Leases, docs/design.md §6 Leases). */

function createLeaseRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases",
    {
      schema: {
        tags,
        summary: "Create a lease in DRAFT with its Primary tenant",
        body: createLeaseSchema,
        response: createdAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const id = newResourceId(request);
      const body = request.body;
      const [estate, primary] = await Promise.all([
        estateExists(sql, tenantId, body.estate_id),
        lesseeFact(sql, tenantId, body.primary_lessee_id),
      ]);
      const command = {
        type: "CreateLease" as const,
        lease_id: id,
        association_id: newResourceId(request, "association_id"),
        terms: leaseTermsOf(body),
        primary_lessee_id: body.primary_lessee_id,
        estate_exists: estate === true,
        primary,
      };
      // A new id: nothing to read; the lease is kept for the commands that follow.
      const cache = leaseStreamsOf(request.server.platform.store);
      const result = await handleCommand(request, leaseStream(id), leaseDecider, command, {
        fresh: true,
        cache,
      });
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: `/api/leases/${id}`,
        // Folded from the stream the command wrote, as the other lease commands answer: no read.
        read: async () => leaseFromEvents(result.stream),
      });
    },
  );
}

function updateLeaseRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id",
    {
      schema: {
        tags,
        summary: "Update a lease (contract terms only before activation)",
        params: leaseParams,
        body: updateLeaseSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const estate_exists = await estateExists(sql, tenantOf(request), request.body.estate_id);
      const changes = termChangesOf(request.body);
      const result = await handleLease(request, lease_id, () => ({
        type: "UpdateLease",
        lease_id,
        changes,
        estate_exists,
      }));
      return replyWithResource(request, reply, 200, { id: lease_id, ...result, read: result.answer });
    },
  );
}

function deleteLeaseRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().delete(
    "/api/leases/:lease_id",
    {
      schema: { tags, summary: "Delete a DRAFT lease", params: leaseParams, response: deletedAnswers },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({ type: "DeleteLease", lease_id }));
      return replyWithResource(request, reply, 204, { id: lease_id, position: result.position });
    },
  );
}

export function leaseTermRoutes(app: FastifyInstance): void {
  createLeaseRoute(app);
  updateLeaseRoute(app);
  deleteLeaseRoute(app);
}
