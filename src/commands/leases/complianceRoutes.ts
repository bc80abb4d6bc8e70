import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { type LeaseEvent, leaseStream } from "../../events/leases.ts";
import { legalToday } from "../../law/calendar.ts";
import { periodStartOn } from "../../law/leaseTypes.ts";
import { quarterPlus, rentFreezeVerdict } from "../../law/rent.ts";
import type { Decider } from "../../platform/decider.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { answers, updatedAnswers } from "../../platform/http/responses.ts";
import { queryEuros, uuid } from "../../platform/http/schemas.ts";
import {
  readDpeSummaryOn,
  readIndexReference,
  readLeaseComplianceFacts,
  readLeaseTerms,
} from "../../queries/leaseCompliance.ts";
import { irlRentRevision } from "../../queries/rentRegulation.ts";
import { type ComplianceResult, evaluateCompliance } from "./compliance.ts";

/** Compliance and IRL revision routes of a lease (docs/compliance.md). */

const tags = ["Leases"];
const params = z.strictObject({ lease_id: uuid() });

/** Euros in a query string: finite, >= 0, at most two decimals. */
const queryMoney = queryEuros();

/**
 * Facts the API cannot know, stated by the caller for the re-letting exceptions (décret 2017-1198
 * art. 4, docs/compliance.md): the cost of works since the previous lease (€ incl. VAT) and the
 * monthly rent of comparable dwellings in the neighbourhood. Either one stated: the other is none.
 */
const complianceQuery = z.strictObject({
  works_amount: queryMoney.optional(),
  neighbourhood_rent: queryMoney.optional(),
});
type ComplianceQuery = z.output<typeof complianceQuery>;

const claimsOf = (q: ComplianceQuery) =>
  q.works_amount === undefined && q.neighbourhood_rent === undefined
    ? null
    : { works_amount: q.works_amount ?? null, neighbourhood_rent: q.neighbourhood_rent ?? null };

const checkStatus = z
  .enum(["PASS", "FAIL", "UNKNOWN", "NOT_APPLICABLE", "WARN"])
  .describe("WARN: advice only (the guidance on incomes), never a non-compliance");
const complianceStatus = z.enum(["COMPLIANT", "NON_COMPLIANT", "UNKNOWN"]);

/** 200 of GET /api/leases/{id}/compliance and POST /api/leases/{id}/compliance/update. */
export const complianceBody = z
  .object({
    lease_id: z.string(),
    status: complianceStatus,
    checked_at: z.string(),
    checks: z.array(
      z.object({
        rule: z.string(),
        status: checkStatus,
        message: z.string(),
        legal_reference: z.string(),
        details: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .meta({ id: "LeaseCompliance" });

const irlPoint = z.object({ quarter: z.string(), value: z.number() });

/** 200 of GET /api/leases/{id}/rent-revision. */
export const rentRevisionBody = z
  .object({
    lease_id: z.string(),
    quarter: z.string(),
    status: z.enum(["OK", "UNKNOWN"]),
    reason: z.string().nullable(),
    current_rent: z.number(),
    /** The highest rent the revision allows: the IRL cap, or the current rent under the F/G freeze. */
    new_rent: z.number().nullable(),
    frozen: z.boolean(),
    frozen_reason: z.string().nullable(),
    calculation: z
      .object({
        rent: z.number(),
        reference: irlPoint,
        new: irlPoint,
        capped_rent: z.number(),
        increase: z.number(),
        formula: z.string(),
        legal_reference: z.string(),
        note: z.string().nullable(),
      })
      .nullable(),
  })
  .meta({ id: "RentRevision" });

const QUARTER = /^\d{4}-Q[1-4]$/;
const revisionQuery = z.strictObject({
  quarter: z
    .string({ error: "must be a quarter YYYY-Qn, e.g. 2025-Q2" })
    .regex(QUARTER, { error: "must be a quarter YYYY-Qn, e.g. 2025-Q2" }),
});

interface RecordCompliance {
  type: "RecordCompliance";
  result: ComplianceResult;
}

/** The lease stream seen only for existence: the lease decider owns every other rule. */
export const complianceDecider: Decider<{ exists: boolean }, RecordCompliance, LeaseEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (state, event) => {
    switch (event.type) {
      case "LeaseCreated":
        return { exists: true };
      case "LeaseDeleted":
        return { exists: false };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    if (!state.exists) throw notFound("Lease", command.result.lease_id);
    return [{ type: "LeaseComplianceChecked", data: command.result }];
  },
};

async function evaluate(app: FastifyInstance, request: FastifyRequest, leaseId: string) {
  const claims = claimsOf(request.query as ComplianceQuery);
  const { sql } = app.platform;
  const facts = await readLeaseComplianceFacts(sql, tenantOf(request), leaseId, legalToday(), claims);
  if (!facts) throw notFound("Lease", leaseId);
  return evaluateCompliance(facts, new Date().toISOString());
}

export async function leaseComplianceRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/leases/:lease_id/compliance",
    {
      schema: {
        summary: "A lease's compliance with the rent rules",
        tags,
        params,
        querystring: complianceQuery,
        response: answers(complianceBody),
      },
      config: { access: "LeasesRead" },
    },
    async (request) => {
      const { lease_id: id } = request.params as z.output<typeof params>;
      return evaluate(app, request, id);
    },
  );

  app.post(
    "/api/leases/:lease_id/compliance/update",
    {
      schema: {
        summary: "Check a lease's compliance again and record the result",
        tags,
        params,
        querystring: complianceQuery,
        response: updatedAnswers(complianceBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => {
      const { lease_id: id } = request.params as z.output<typeof params>;
      const result = await evaluate(app, request, id);
      const done = await handleCommand(
        request,
        leaseStream(id),
        complianceDecider,
        { type: "RecordCompliance", result },
        { notFound: () => notFound("Lease", id) },
      );
      return replyWithResource(request, reply, 200, {
        id,
        position: done.position,
        read: async () => {
          const lease = await readLeaseTerms(sql, tenantOf(request), id);
          return lease ? { body: { ...result }, revision: lease.revision } : null;
        },
      });
    },
  );

  app.get(
    "/api/leases/:lease_id/rent-revision",
    {
      schema: {
        summary: "The rent revision a lease allows (IRL)",
        tags,
        params,
        querystring: revisionQuery,
        response: answers(rentRevisionBody),
      },
      config: { access: "LeasesRead" },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { lease_id: id } = request.params as z.output<typeof params>;
      const { quarter } = request.query as z.output<typeof revisionQuery>;
      const lease = await readLeaseTerms(sql, tenantId, id);
      if (!lease) throw notFound("Lease", id);
      const base = { lease_id: id, quarter, current_rent: lease.rent_amount };
      const unknown = (reason: string) => ({
        ...base,
        status: "UNKNOWN" as const,
        reason,
        new_rent: null,
        frozen: false,
        frozen_reason: null,
        calculation: null,
      });
      if (lease.revision_index_type !== null && lease.revision_index_type !== "IRL") {
        return unknown(`The lease is revised on ${lease.revision_index_type}, not the IRL`);
      }
      if (lease.lease_type === "MOBILITY")
        return unknown("The rent of a bail mobilité is not revised on an index (loi n° 89-462 art. 25-12)");
      // The current reference: the last applied revision's new quarter, else the contract's (art. 17-1 I).
      const current = (await readIndexReference(sql, tenantId, lease)).irl_reference_quarter;
      if (!current) return unknown("The lease names no IRL reference quarter");
      // One year of variation: a year not revised in time is lost, never caught up.
      const reference = quarterPlus(quarter, -4);
      if (reference < current)
        return unknown(
          `The current IRL reference is ${current} (each applied revision becomes the next one's reference, loi n° 89-462 art. 17-1 I): the next revision is for ${quarterPlus(current, 4)}`,
        );
      const found = await irlRentRevision(sql, reference, quarter, lease.rent_amount);
      if (found.status === "unknown") return unknown(found.reason);
      // The F/G freeze (loi n° 89-462 art. 17-1) by the same rule that refuses the rent change.
      const today = legalToday();
      const dpe = await readDpeSummaryOn(sql, tenantId, lease.estate_id, today);
      const freeze = rentFreezeVerdict({
        current_rent: lease.rent_amount,
        new_rent: found.revision.capped_rent,
        effective_date: today,
        dpe,
        period_start: periodStartOn(lease, today, lease.lessor),
      });
      const frozenReason = freeze.status === "FAIL" ? freeze.message : null;
      return {
        ...base,
        status: "OK" as const,
        reason: null,
        new_rent: frozenReason ? lease.rent_amount : found.revision.capped_rent,
        frozen: frozenReason !== null,
        frozen_reason: frozenReason,
        calculation: found.revision,
      };
    },
  );
}
