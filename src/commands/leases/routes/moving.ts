import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { isLiveLease } from "../../../events/leaseView.ts";
import { legalToday } from "../../../law/calendar.ts";
import {
  LESSEE_NOTICE_REASONS,
  NOTICE_GIVERS,
  NOTICE_REASONS,
  type NoticeGiver,
  type NoticeReason,
  REPOSSESSION_TIES,
} from "../../../law/notice.ts";
import { fieldError, notFound } from "../../../platform/errors.ts";
import { tenantOf } from "../../../platform/http/auth.ts";
import { newResourceId, replyAfterProjection } from "../../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../../platform/http/replyWithResource.ts";
import { createdAnswers, updatedAnswers } from "../../../platform/http/responses.ts";
import { text, uuid } from "../../../platform/http/schemas.ts";
import { exitReportFacts } from "../../../queries/conditionReports.ts";
import { keysReturnedOn } from "../../../queries/estateKeys.ts";
import { readLeaseTerms } from "../../../queries/leaseCompliance.ts";
import { noticeBody, readNotice } from "../../../queries/leaseNotices.ts";
import { leaseBody, leaseParams, readLease } from "../../../queries/leases.ts";
import { date, money } from "../../../queries/leasesSchemas.ts";
import { ensureOwnLease, lesseeOf } from "../../../queries/lesseeSpace.ts";
import { readEstateRentRegulation } from "../../../queries/rentRegulation.ts";
import { handleLease } from "../handleLease.ts";

/** Notices and termination of a lease (docs/moving.md "Notices", "Termination"): Leases. */

const tags = ["Moving in and out"];
const notAfterToday = (d: string) => d <= legalToday();

const noticeSchema = z
  .strictObject({
    given_by: z.enum(NOTICE_GIVERS),
    received_on: date().refine(notAfterToday, "Must not be after today (Europe/Paris)"),
    reason: z.enum(NOTICE_REASONS).nullish(),
    sale: z
      .strictObject({ price: money(), terms: text(2000) })
      .nullish()
      .describe(
        "A lessor's notice for SALE of an unfurnished dwelling: the price and terms (loi n° 89-462 art. 15 II)",
      ),
    repossession: z
      .strictObject({
        beneficiary_name: text(200),
        beneficiary_address: text(500),
        tie: z.enum(REPOSSESSION_TIES),
      })
      .nullish()
      .describe(
        "A lessor's notice for REPOSSESSION: the beneficiary and their tie with the lessor (art. 15 I, 25-8 I)",
      ),
    acquired_occupied_on: date()
      .nullish()
      .describe(
        "The day the lessor bought the dwelling already let to this lessee (art. 15 I: no notice for sale within 3 years, repossession effective 2 years after)",
      ),
    elderly_tenant: z
      .strictObject({
        lessee_born_on: date(),
        lessee_resources_under_ceiling: z.boolean(),
        rehousing_offered: z.boolean(),
        lessor_born_on: date().nullable().default(null),
        lessor_resources_under_ceiling: z.boolean().nullable().default(null),
      })
      .nullish()
      .describe(
        "A lessor's notice to a lessee over 65 (art. 15 III, 25-8 III): ages on the term, resources on the notice's day",
      ),
  })
  .meta({ id: "NewNotice" });

const terminationSchema = z
  .strictObject({
    keys_returned_on: date()
      .refine(notAfterToday, "Must not be after today (Europe/Paris)")
      .optional()
      .describe(
        "Default: the last return of the lease's keys (POST /api/estates/{id}/keys/handovers), else the date of the exit report given when it lists the keys",
      ),
    exit_report_id: uuid()
      .nullish()
      .describe("The SIGNED exit condition report; without: the deposit is due in 2 months"),
    relet_on: date()
      .nullish()
      .describe(
        "The day another lessee occupies the dwelling with the lessor's agreement: after the lessee's notice, its rent stops the day before (loi n° 89-462 art. 15 I)",
      ),
  })
  .meta({ id: "Termination" });

type NewNotice = z.output<typeof noticeSchema>;
type NoticeInput = { given_by: NoticeGiver; received_on: string; reason: NoticeReason | null } & Partial<
  Pick<NewNotice, "sale" | "repossession" | "acquired_occupied_on" | "elderly_tenant">
>;

/** A notice through the lease decider; `location` names where the caller reads it. */
async function giveNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  lease_id: string,
  notice: NoticeInput,
  location: (notice_id: string) => string,
) {
  const { given_by, received_on, reason } = notice;
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  // Art. 15 III's exceptions are a natural-person lessor's: who lets, from the owner.
  const lessor = given_by === "LESSOR" ? (await readLeaseTerms(sql, tenantId, lease_id))?.lessor : undefined;
  const notice_id = newResourceId(request, "notice_id");
  const result = await handleLease(request, lease_id, async (state) => {
    const terms = isLiveLease(state) ? state.terms : null;
    // Only a lessee's notice on an unfurnished lease, without a listed case, depends on the zone.
    const zoneMatters = terms?.lease_type === "UNFURNISHED" && given_by === "LESSEE" && reason === null;
    const regulation = zoneMatters ? await readEstateRentRegulation(sql, tenantId, terms.estate_id) : null;
    return {
      type: "GiveLeaseNotice",
      lease_id,
      notice_id,
      received_on,
      given_by,
      reason,
      high_demand_zone: regulation?.high_demand_zone ?? null,
      sale: notice.sale ?? null,
      repossession: notice.repossession ?? null,
      acquired_occupied_on: notice.acquired_occupied_on ?? null,
      elderly_tenant: notice.elderly_tenant ?? null,
      ...(lessor ? { lessor } : {}),
    };
  });
  return replyAfterProjection(request, reply, {
    position: result.position,
    status: 201,
    id: notice_id,
    location: location(notice_id),
    read: () => readNotice(sql, tenantId, lease_id, notice_id),
  });
}

const lesseeNoticeSchema = z
  .strictObject({
    reason: z
      .enum(LESSEE_NOTICE_REASONS)
      .nullish()
      .describe(
        "A case of loi n° 89-462 art. 15 I that shortens the notice to one month; none: the general rule",
      ),
  })
  .meta({ id: "LesseeNotice" });

function noticeRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    "/api/leases/:lease_id/notices",
    {
      schema: {
        tags,
        summary: "Give notice (loi n° 89-462 art. 15, 25-8): computes its end, the lease goes to NOTICE",
        params: leaseParams,
        body: noticeSchema,
        response: createdAnswers(noticeBody),
      },
      config: { access: "LeasesWrite", invalidBodyMessage: "Invalid notice" },
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const { given_by, received_on } = request.body;
      return giveNotice(
        request,
        reply,
        lease_id,
        {
          given_by,
          received_on,
          reason: request.body.reason ?? null,
          sale: request.body.sale ?? null,
          repossession: request.body.repossession ?? null,
          acquired_occupied_on: request.body.acquired_occupied_on ?? null,
          elderly_tenant: request.body.elderly_tenant ?? null,
        },
        (id) => `/api/leases/${lease_id}/notices/${id}`,
      );
    },
  );
  // The lessee gives notice from their own space (docs/portal.md): received today, by the
  // service that acts for the lessor; another lessee's lease is a 404 and writes nothing.
  api.post(
    "/api/lessee/leases/:lease_id/notices",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "The signed-in lessee gives notice on their lease, received today (loi n° 89-462 art. 15): its end computed, the lease goes to NOTICE",
        params: leaseParams,
        body: lesseeNoticeSchema,
        response: createdAnswers(noticeBody),
      },
      config: { access: "lessee:leases:write", invalidBodyMessage: "Invalid notice" },
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      await ensureOwnLease(sql, lesseeOf(request), lease_id);
      return giveNotice(
        request,
        reply,
        lease_id,
        { given_by: "LESSEE", received_on: legalToday(), reason: request.body.reason ?? null },
        () => `/api/lessee/leases/${lease_id}`,
      );
    },
  );
}

function terminationRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/termination",
    {
      schema: {
        tags,
        summary: "End the lease at the keys' return; starts the deposit's clock (loi n° 89-462 art. 22)",
        params: leaseParams,
        body: terminationSchema,
        response: updatedAnswers(leaseBody),
      },
      config: { access: "LeasesWrite", invalidBodyMessage: "Invalid termination" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const exit_report_id = request.body.exit_report_id ?? null;
      if ((await readLease(sql, tenantId, lease_id)) === null) throw notFound("Lease", lease_id);
      const exit = exit_report_id ? await exitReportFacts(sql, tenantId, lease_id, exit_report_id) : null;
      if (exit_report_id && exit === null)
        throw fieldError(
          "exit_report_id",
          `Lease ${lease_id} has no SIGNED exit condition report ${exit_report_id}`,
          "Invalid termination",
        );
      // The keys' return: as given, else the last RETURNED handover, else the exit report's day
      // when the report lists the keys handed back.
      const keys =
        request.body.keys_returned_on ??
        (await keysReturnedOn(sql, tenantId, lease_id)) ??
        exit?.keys_returned_on ??
        null;
      if (keys === null)
        throw fieldError(
          "keys_returned_on",
          "Required: no return of this lease's keys is recorded (POST /api/estates/{id}/keys/handovers, or a signed exit report listing the keys as exit_report_id)",
          "Invalid termination",
        );
      if (!notAfterToday(keys))
        throw fieldError(
          "keys_returned_on",
          `The keys' return (${keys}) is after today`,
          "Invalid termination",
        );
      const matches = exit?.matches ?? null;
      const result = await handleLease(request, lease_id, () => ({
        type: "TerminateLease",
        lease_id,
        keys_returned_on: keys,
        exit_report_id,
        exit_report_matches: matches,
        relet_on: request.body.relet_on ?? null,
      }));
      return replyWithResource(request, reply, 200, { id: lease_id, ...result, read: result.answer });
    },
  );
}

export function leaseMovingRoutes(app: FastifyInstance): void {
  noticeRoute(app);
  terminationRoute(app);
}

/** The plugin the moving area registers. */
export async function leaseMovingCommandRoutes(app: FastifyInstance): Promise<void> {
  leaseMovingRoutes(app);
}
