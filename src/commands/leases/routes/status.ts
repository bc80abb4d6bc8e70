import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Sql } from "../../../platform/db.ts";
import { tenantOf } from "../../../platform/http/auth.ts";
import { replyWithResource } from "../../../platform/http/replyWithResource.ts";
import { updatedAnswers } from "../../../platform/http/responses.ts";
import { readLeaseTerms } from "../../../queries/leaseCompliance.ts";
import { leaseBody, leaseParams } from "../../../queries/leases.ts";
import { rentSchema } from "../../../queries/leasesSchemas.ts";
import { readEstateRentRegulation } from "../../../queries/rentRegulation.ts";
import { rentChangeOf } from "../bodies.ts";
import { freezeFacts, handleLease, noticeFacts, publishedIrlOf, tags, today, write } from "../handleLease.ts";
import { statusSchema } from "../schemas.ts";

/** PUT .../status and PUT .../rent: the lease's status and rent (docs/design.md §6 Leases). */

function statusRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/status",
    {
      schema: {
        tags,
        summary: "Change the status of a lease",
        params: leaseParams,
        body: statusSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const b = request.body;
      const result = await handleLease(request, lease_id, async (state) => ({
        type: "ChangeLeaseStatus",
        lease_id,
        status: b.status,
        effective_date: b.effective_date ?? today(),
        reason: b.reason ?? null,
        notice: b.status === "NOTICE" ? await noticeFacts(request, state, b) : undefined,
      }));
      return replyWithResource(request, reply, 200, { id: lease_id, ...result, read: result.answer });
    },
  );
}

/** The zone of the lease's estate from its rent regulation; null: none recorded. */
async function zoneOf(sql: Sql, tenantId: string, leaseId: string): Promise<boolean | null> {
  const lease = await readLeaseTerms(sql, tenantId, leaseId);
  if (!lease) return null;
  return (await readEstateRentRegulation(sql, tenantId, lease.estate_id))?.high_demand_zone ?? null;
}

function rentRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/rent",
    {
      schema: {
        tags,
        summary: "Change the rent (kept in the rent history)",
        params: leaseParams,
        body: rentSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const facts = await freezeFacts(sql, tenantOf(request), lease_id, request.body.effective_date);
      const published_irl = await publishedIrlOf(sql, request.body.index);
      // A re-evaluation's cap depends on the zone (décret n° 2017-1198 art. 5).
      const zone =
        request.body.reason === "REEVALUATION" ? await zoneOf(sql, tenantOf(request), lease_id) : undefined;
      const rent = rentChangeOf(request.body);
      const result = await handleLease(request, lease_id, () => ({
        type: "ChangeRent",
        lease_id,
        rent,
        ...facts,
        published_irl,
        ...(zone === undefined ? {} : { high_demand_zone: zone }),
      }));
      return replyWithResource(request, reply, 200, { id: lease_id, ...result, read: result.answer });
    },
  );
}

export function leaseStatusRoutes(app: FastifyInstance): void {
  statusRoute(app);
  rentRoute(app);
}
