import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  type CompletedElement,
  conditionReportStream,
  REPORT_TYPES,
  type ReportContent,
} from "../../events/conditionReports.ts";
import { CONDITIONS } from "../../events/equipment.ts";
import { legalToday } from "../../law/calendar.ts";
import type { ErrorDetail } from "../../platform/errors.ts";
import { notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { ignored, isoDate, text, uuid } from "../../platform/http/schemas.ts";
import { conditionReportBody, readConditionReport } from "../../queries/conditionReports.ts";
import { requireLease } from "../../queries/leases.ts";
import { ensureOwnLease, lesseeOf } from "../../queries/lesseeSpace.ts";
import { type ConditionReportCommand, conditionReportDecider } from "./decider.ts";

/** The report as the parties write it (docs/design.md §7.3, "Shapes fixed for clients"). */
const elementFields = {
  element: text(255).describe("What is described: floor, walls, ceiling, window, an item of equipment..."),
  condition: z.enum(CONDITIONS),
  comment: text(2000).nullish(),
  media_ids: z.array(uuid()).max(20).nullish().describe("Photos (media ids)"),
};
const notAfterToday = (field: string) =>
  isoDate.refine((d) => d <= legalToday(), `${field} must not be after today (Europe/Paris)`);

export const conditionReportInput = z.strictObject({
  type: z.enum(REPORT_TYPES),
  date: isoDate,
  rooms: z
    .array(
      z.strictObject({
        room_id: uuid().nullish().describe("A room of the lease's estate"),
        name: text(255),
        elements: z.array(z.strictObject(elementFields)).max(200),
      }),
    )
    .min(1)
    .max(100),
  meter_readings: z
    .array(
      z.strictObject({
        meter_id: uuid().nullish(),
        kind: text(100).describe("Electricity, gas, cold water, hot water..."),
        value: z.number().finite().min(0).max(1e12),
      }),
    )
    .max(50)
    .default([]),
  keys: z
    .array(z.strictObject({ kind: text(100), count: z.number().int().min(0).max(1000) }))
    .max(50)
    .default([]),
  lease_id: ignored(uuid()),
  status: ignored(z.string()),
  signed_on: ignored(z.string().nullable()),
  completions: ignored(z.array(z.unknown())),
});
type Input = z.output<typeof conditionReportInput>;

const statusInput = z.strictObject({
  status: z.literal("SIGNED"),
  signed_on: notAfterToday("signed_on").optional().describe("The signing day; default today (Europe/Paris)"),
});

const completionInput = z.strictObject({
  received_on: notAfterToday("received_on").describe("The day the tenant's request was received"),
  elements: z
    .array(
      z.strictObject({
        room_name: text(255).describe("A room of the report, by name"),
        ...elementFields,
        heating: z
          .boolean()
          .default(false)
          .describe(
            "A heating element: may be completed in the first month of the heating season (art. 3-2)",
          ),
      }),
    )
    .min(1)
    .max(200),
});

const lesseeCompletionInput = z
  .strictObject({
    elements: z
      .array(
        z.strictObject({
          room_name: text(255).describe("A room of the report, by name"),
          element: elementFields.element,
          condition: elementFields.condition,
          comment: elementFields.comment,
          heating: z.boolean().default(false),
        }),
      )
      .min(1)
      .max(200),
  })
  .meta({ id: "LesseeEntryReportCompletion" });

const location = (lease_id: string, report_id: string) =>
  `/api/leases/${lease_id}/condition-reports/${report_id}`;

const leaseParams = z.strictObject({ lease_id: uuid() });
const reportParams = z.strictObject({ lease_id: uuid(), report_id: uuid() });
const tags = ["Condition reports"];
const write = { access: "LeasesWrite" } as const;

const contentOf = (input: Input): ReportContent => ({
  type: input.type,
  date: input.date,
  rooms: input.rooms.map((r) => ({
    room_id: r.room_id ?? null,
    name: r.name,
    elements: r.elements.map((e) => ({
      element: e.element,
      condition: e.condition,
      comment: e.comment ?? null,
      media_ids: e.media_ids ?? [],
    })),
  })),
  meter_readings: input.meter_readings.map((m) => ({
    meter_id: m.meter_id ?? null,
    kind: m.kind,
    value: m.value,
  })),
  keys: input.keys,
});

/** An id of the body to check, with its field path (docs/design.md §4). */
type BodyId = { field: string; kind: "room" | "media"; id: string };

/** The room and photo ids of a report's body, with their paths. */
const idsOfReport = (input: Input): BodyId[] =>
  input.rooms.flatMap((r, i) => [
    ...(r.room_id ? [{ field: `rooms[${i}].room_id`, kind: "room" as const, id: r.room_id }] : []),
    ...r.elements.flatMap((e, j) =>
      (e.media_ids ?? []).map((id, k) => ({
        field: `rooms[${i}].elements[${j}].media_ids[${k}]`,
        kind: "media" as const,
        id,
      })),
    ),
  ]);

/** 400 for a room of another estate or a photo the tenant does not have (ids in a body, docs/design.md §4). */
async function checkIds(request: FastifyRequest, estateId: string, ids: BodyId[]) {
  if (ids.length === 0) return;
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  const of = (kind: BodyId["kind"]) => [...new Set(ids.filter((i) => i.kind === kind).map((i) => i.id))];
  const [rooms, media] = await sql.asTenant(tenantId, (tx) =>
    Promise.all([
      tx.query<{ id: string }>(
        "SELECT id FROM rooms WHERE tenant_id = $1 AND estate_id = $2 AND id = ANY($3::uuid[])",
        [tenantId, estateId, of("room")],
      ),
      tx.query<{ id: string }>("SELECT id FROM media WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [
        tenantId,
        of("media"),
      ]),
    ]),
  );
  const known = new Set([...rooms, ...media].map((r) => r.id));
  const details: ErrorDetail[] = ids
    .filter((i) => !known.has(i.id))
    .map((i) => ({
      field: i.field,
      message:
        i.kind === "room"
          ? `Room ${i.id} is not a room of estate ${estateId}`
          : `Media ${i.id} does not exist`,
    }));
  if (details.length > 0) throw validationError("Invalid condition report data", details);
}

/** POST, PUT, status and completions of condition reports (docs/moving.md). */
export async function conditionReportRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  const run = async (request: FastifyRequest, command: ConditionReportCommand, create = false) => {
    const tenantId = tenantOf(request);
    const result = await handleCommand(
      request,
      conditionReportStream(command.report_id),
      conditionReportDecider,
      command,
      create ? { fresh: true } : { notFound: () => notFound("Condition report", command.report_id) },
    );
    return {
      id: command.report_id,
      position: result.position,
      read: () => readConditionReport(sql, tenantId, command.lease_id, command.report_id),
    };
  };

  app.post(
    "/api/leases/:lease_id/condition-reports",
    {
      schema: {
        tags,
        summary: "Draft a condition report (entry or exit) of a lease (décret n° 2016-382)",
        params: leaseParams,
        body: conditionReportInput,
        response: createdAnswers(conditionReportBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params as z.infer<typeof leaseParams>;
      const input = request.body as Input;
      const lease = await requireLease(sql, tenantOf(request), lease_id);
      await checkIds(request, String(lease.body.estate_id), idsOfReport(input));
      const report_id = newResourceId(request);
      const done = await run(
        request,
        { type: "DraftConditionReport", report_id, lease_id, content: contentOf(input) },
        true,
      );
      return replyWithResource(request, reply, 201, {
        ...done,
        location: `/api/leases/${lease_id}/condition-reports/${report_id}`,
      });
    },
  );

  app.put(
    "/api/leases/:lease_id/condition-reports/:report_id",
    {
      schema: {
        tags,
        summary: "Replace a DRAFT condition report's content (409 once signed)",
        params: reportParams,
        body: conditionReportInput,
        response: updatedAnswers(conditionReportBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      const input = request.body as Input;
      const lease = await requireLease(sql, tenantOf(request), lease_id);
      await checkIds(request, String(lease.body.estate_id), idsOfReport(input));
      const done = await run(request, {
        type: "ReviseConditionReport",
        report_id,
        lease_id,
        content: contentOf(input),
      });
      return replyWithResource(request, reply, 200, done);
    },
  );

  app.put(
    "/api/leases/:lease_id/condition-reports/:report_id/status",
    {
      schema: {
        tags,
        summary: "Sign a DRAFT condition report: it is then frozen (409 on any change)",
        params: reportParams,
        body: statusInput,
        response: updatedAnswers(conditionReportBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      const body = request.body as z.infer<typeof statusInput>;
      // No lease look-up: the report's stream names its lease (another lease's report is a 404).
      const signed_on = body.signed_on ?? legalToday();
      const done = await run(request, { type: "SignConditionReport", report_id, lease_id, signed_on });
      return replyWithResource(request, reply, 200, done);
    },
  );

  /** The tenant's completion of a signed entry report, decided by the report's decider (art. 3-2). */
  const complete = async (
    request: FastifyRequest,
    reply: FastifyReply,
    lease_id: string,
    report_id: string,
    body: z.output<typeof completionInput>,
  ) => {
    const lease = await requireLease(sql, tenantOf(request), lease_id);
    await checkIds(
      request,
      String(lease.body.estate_id),
      body.elements.flatMap((e, j) =>
        (e.media_ids ?? []).map((id, k) => ({
          field: `elements[${j}].media_ids[${k}]`,
          kind: "media" as const,
          id,
        })),
      ),
    );
    const elements: CompletedElement[] = body.elements.map((e) => ({
      room_name: e.room_name,
      element: e.element,
      condition: e.condition,
      comment: e.comment ?? null,
      media_ids: e.media_ids ?? [],
      heating: e.heating,
    }));
    const done = await run(request, {
      type: "CompleteEntryReport",
      report_id,
      lease_id,
      received_on: body.received_on,
      elements,
    });
    return replyWithResource(request, reply, 201, { ...done, location: location(lease_id, report_id) });
  };

  app.post(
    "/api/leases/:lease_id/condition-reports/:report_id/completions",
    {
      schema: {
        tags,
        summary:
          "The tenant completes a signed entry report: within ten days of its signing, heating elements also in the first month of the heating season (loi n° 89-462 art. 3-2; 422 after)",
        params: reportParams,
        body: completionInput,
        response: createdAnswers(conditionReportBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      return complete(request, reply, lease_id, report_id, request.body as z.output<typeof completionInput>);
    },
  );

  // The lessee completes it from their own space (docs/portal.md): received today, no photos.
  app.post(
    "/api/lessee/leases/:lease_id/condition-reports/:report_id/completions",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "The signed-in lessee completes the signed entry report of their lease, received today: within ten days of its signing, heating elements also in the first month of the heating season (loi n° 89-462 art. 3-2; 422 after)",
        params: reportParams,
        body: lesseeCompletionInput,
        response: createdAnswers(conditionReportBody),
      },
      config: { access: "lessee:leases:write" },
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      await ensureOwnLease(sql, lesseeOf(request), lease_id);
      const body = request.body as z.output<typeof lesseeCompletionInput>;
      return complete(request, reply, lease_id, report_id, {
        received_on: legalToday(),
        elements: body.elements.map((e) => ({ ...e, media_ids: [] })),
      });
    },
  );
}
