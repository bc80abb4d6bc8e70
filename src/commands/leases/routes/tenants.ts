import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { tenantOf } from "../../../platform/http/auth.ts";
import { newResourceId } from "../../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../../platform/http/responses.ts";
import { associationBody, associationParams, leaseParams, readAssociation } from "../../../queries/leases.ts";
import { tenantChangesOf, tenantTermOf } from "../bodies.ts";
import { handleLease, lesseeFact, remove, tags, today, write } from "../handleLease.ts";
import { addLesseeSchema, endAssociationSchema, updateAssociationSchema } from "../schemas.ts";

/** POST, PUT and DELETE of /api/leases/{id}/lessees: a lease's tenants and guarantors. */

const answerAssociation = (request: FastifyRequest, leaseId: string, lesseeId: string) => () =>
  readAssociation(request.server.platform.sql, tenantOf(request), leaseId, lesseeId);

function addTenantRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/lessees",
    {
      schema: {
        tags,
        summary: "Add a tenant or guarantor to a lease",
        params: leaseParams,
        body: addLesseeSchema,
        response: createdAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const lessee = await lesseeFact(app.platform.sql, tenantOf(request), request.body.lessee_id);
      const result = await handleLease(request, lease_id, () => ({
        type: "AddLeaseLessee",
        lease_id,
        association_id: newResourceId(request, "association_id"),
        tenant: tenantTermOf(request.body),
        lessee,
        today: today(),
      }));
      return replyWithResource(request, reply, 201, {
        id: lease_id,
        ...result,
        location: `/api/leases/${lease_id}/lessees/${request.body.lessee_id}`,
        read: answerAssociation(request, lease_id, request.body.lessee_id),
      });
    },
  );
}

function updateTenantRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "Change a tenant's role or term dates",
        params: associationParams,
        body: updateAssociationSchema,
        response: updatedAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "UpdateLeaseLessee",
        lease_id,
        lessee_id,
        ...tenantChangesOf(request.body),
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: answerAssociation(request, lease_id, lessee_id),
      });
    },
  );
}

function endTenantRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/lessees/:lessee_id/end",
    {
      schema: {
        tags,
        summary: "End a tenant's term",
        params: associationParams,
        body: endAssociationSchema.optional(),
        response: updatedAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "EndLeaseLessee",
        lease_id,
        lessee_id,
        end_date: request.body?.end_date ?? today(),
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: answerAssociation(request, lease_id, lessee_id),
      });
    },
  );
}

function removeTenantRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().delete(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "Remove a tenant from a DRAFT lease",
        params: associationParams,
        response: deletedAnswers,
      },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "RemoveLeaseLessee",
        lease_id,
        lessee_id,
      }));
      return replyWithResource(request, reply, 204, { id: lease_id, position: result.position });
    },
  );
}

export function leaseTenantRoutes(app: FastifyInstance): void {
  addTenantRoute(app);
  updateTenantRoute(app);
  endTenantRoute(app);
  removeTenantRoute(app);
}
