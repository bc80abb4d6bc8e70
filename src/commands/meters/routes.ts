import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  DEFAULT_UNITS,
  METER_BILLINGS,
  METER_TYPES,
  type MeterFields,
  type MeterState,
  meterStream,
  READING_SOURCES,
} from "../../events/meters.ts";
import { legalToday } from "../../law/calendar.ts";
import { ApiError, type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers, createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { decimalsMeta, hasAtMostDecimals, isoDate, text, uuid } from "../../platform/http/schemas.ts";
import { readEstate } from "../../queries/estates.ts";
import { findMediaRow } from "../../queries/media.ts";
import {
  ancestorsOf,
  countSubMeters,
  existingLeases,
  findMeterRow,
  meterBody,
  readingBody,
  readMeter,
  readReadings,
} from "../../queries/meters.ts";
import { requirePlace } from "../../queries/places.ts";
import { alertAnomalies } from "./alerts.ts";
import { recordReadingBatch } from "./bulk.ts";
import { judgeReadings, type MeterCommand, meterDecider, type ReadingInput } from "./decider.ts";

/** POST, PUT, DELETE of meters, readings and replacements (docs/charges.md, "Meters"): Properties. */

const tags = ["Meters"];
const invalidMeter = { invalidBodyMessage: "Invalid meter data" };

/** An index: >= 0, 3 decimals at most (thousandths of the unit). */
const index = z
  .number()
  .finite()
  .min(0, "Must be >= 0")
  .max(1e12, "Must be at most 1e12")
  .refine((v) => hasAtMostDecimals(v, 3), "At most 3 decimals")
  .meta(decimalsMeta(3));

const meterFields = {
  type: z.enum(METER_TYPES),
  billing: z.enum(METER_BILLINGS),
  label: text(200).nullish(),
  serial: text(100).nullish(),
  unit: text(20).nullish().describe("Default by type: kWh (electricity, heating, cooling), m3 (gas, water)"),
  rollover_at: index
    .refine((v) => v > 0, "Must be > 0")
    .nullish()
    .describe("The highest index: the counter then goes to 0"),
  parent_meter_id: uuid().nullish().describe("The meter this one is a sub-meter of (same type, same place)"),
  lease_ids: z.array(uuid()).max(100, "At most 100 leases").nullish(),
};
const readOnly = {
  id: uuid().optional(),
  place_id: uuid().optional(),
  estate_id: uuid().nullish(),
  last_index: z.unknown().optional(),
  last_read_on: z.unknown().optional(),
  readings_count: z.unknown().optional(),
  anomalies_count: z.unknown().optional(),
  replacements: z.unknown().optional(),
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
};
const newMeter = z.strictObject({ ...meterFields, ...readOnly }).meta({ id: "NewMeter" });
const meterChanges = z
  .strictObject({
    ...meterFields,
    type: meterFields.type.optional(),
    billing: meterFields.billing.optional(),
    ...readOnly,
  })
  .meta({ id: "MeterChanges" });

const newReading = z
  .strictObject({
    value: index,
    read_on: isoDate,
    source: z.enum(READING_SOURCES),
    media_id: uuid().nullish().describe("A photo of the index (media)"),
  })
  .meta({ id: "NewMeterReading" });

const replacementSchema = z
  .strictObject({
    on: isoDate,
    final_index: index.describe("The old meter's last index"),
    new_serial: text(100).nullish(),
    initial_index: index.describe("The new meter's first index"),
  })
  .meta({ id: "MeterReplacementRequest" });

const meterParams = z.strictObject({ meter_id: uuid() });

export const MAX_BULK_READINGS = 10_000;

const bulkBody = z
  .array(
    z.strictObject({
      meter_id: uuid(),
      value: index,
      read_on: isoDate,
      source: z.enum(READING_SOURCES),
    }),
  )
  .min(1, "Must contain at least one reading")
  .meta({ id: "MeterReadingsBulk" });

const bulkAnswer = z
  .strictObject({
    accepted: z.number().int(),
    flagged: z.number().int(),
    rejected: z.number().int(),
    items: z.array(
      z.strictObject({
        index: z.number().int(),
        meter_id: uuid(),
        reading_id: uuid().nullable(),
        status: z.enum(["accepted", "flagged", "rejected"]),
        consumption: z.number().nullable().optional(),
        error: z
          .strictObject({
            error: z.string(),
            message: z.string(),
            details: z.array(z.strictObject({ field: z.string(), message: z.string() })).optional(),
          })
          .optional(),
      }),
    ),
  })
  .meta({ id: "MeterReadingsBulkResult" });

type Body = z.infer<typeof meterChanges>;

/** The body's references checked against the read models: 400 on the field naming what is unknown. */
async function checkReferences(
  request: FastifyRequest,
  meterId: string,
  placeId: string,
  type: string,
  body: Body,
): Promise<void> {
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  const details: ErrorDetail[] = [];
  if (body.parent_meter_id) {
    const parent = await findMeterRow(sql, tenantId, body.parent_meter_id);
    if (!parent)
      details.push({ field: "parent_meter_id", message: `Meter ${body.parent_meter_id} not found` });
    else if (parent.type !== type)
      details.push({ field: "parent_meter_id", message: `The parent meter is ${parent.type}, not ${type}` });
    else if (parent.place_id !== placeId)
      details.push({ field: "parent_meter_id", message: "The parent meter belongs to another place" });
    else if ((await ancestorsOf(sql, tenantId, body.parent_meter_id)).includes(meterId))
      details.push({
        field: "parent_meter_id",
        message: "A meter cannot be a sub-meter of itself or of its sub-meters",
      });
  }
  const leases = body.lease_ids ?? [];
  const found = await existingLeases(sql, tenantId, leases);
  leases.forEach((id, i) => {
    if (!found.has(id)) details.push({ field: `lease_ids.${i}`, message: `Lease ${id} not found` });
  });
  if (details.length > 0) throw validationError("Invalid meter data", details);
}

const fieldsOf = (body: z.infer<typeof newMeter>): MeterFields => ({
  type: body.type,
  billing: body.billing,
  label: body.label ?? null,
  serial: body.serial ?? null,
  unit: body.unit ?? DEFAULT_UNITS[body.type],
  rollover_at: body.rollover_at ?? null,
  parent_meter_id: body.parent_meter_id ?? null,
  lease_ids: [...new Set(body.lease_ids ?? [])],
});

/** Changes of a PUT: omitted keeps, null removes (unit: back to the type's default). */
function changesOf(body: Body, type: MeterFields["type"]): Partial<MeterFields> {
  const changes: Partial<MeterFields> = {};
  if (body.type !== undefined) changes.type = body.type;
  if (body.billing !== undefined) changes.billing = body.billing;
  if (body.label !== undefined) changes.label = body.label;
  if (body.serial !== undefined) changes.serial = body.serial;
  if (body.unit !== undefined) changes.unit = body.unit ?? DEFAULT_UNITS[body.type ?? type];
  if (body.rollover_at !== undefined) changes.rollover_at = body.rollover_at;
  if (body.parent_meter_id !== undefined) changes.parent_meter_id = body.parent_meter_id;
  if (body.lease_ids !== undefined) changes.lease_ids = [...new Set(body.lease_ids ?? [])];
  return changes;
}

const runMeter = (
  request: FastifyRequest,
  id: string,
  command: MeterCommand | ((state: MeterState) => MeterCommand),
) =>
  handleCommand(request, meterStream(id), meterDecider, command, { notFound: () => notFound("Meter", id) });

export async function meterCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  const install = async (
    request: FastifyRequest,
    reply: FastifyReply,
    placeId: string,
    estateId: string | null,
    body: z.infer<typeof newMeter>,
  ) => {
    const meter_id = newResourceId(request);
    await checkReferences(request, meter_id, placeId, body.type, body);
    const result = await runMeter(request, meter_id, {
      type: "InstallMeter",
      meter_id,
      place_id: placeId,
      estate_id: estateId,
      fields: fieldsOf(body),
    });
    return replyAfterProjection(request, reply, {
      position: result.position,
      status: 201,
      id: meter_id,
      location: `/api/meters/${meter_id}`,
      revision: result.revision,
      read: () => readMeter(sql, tenantOf(request), meter_id),
    });
  };

  api.post(
    "/api/places/:place_id/meters",
    {
      schema: {
        tags,
        summary: "Install a meter on a place (a collective or shared meter)",
        params: z.strictObject({ place_id: uuid() }),
        body: newMeter,
        response: createdAnswers(meterBody),
      },
      config: { access: "PropertiesWrite", ...invalidMeter },
    },
    async (request, reply) => {
      await requirePlace(sql, tenantOf(request), request.params.place_id);
      return install(request, reply, request.params.place_id, null, request.body);
    },
  );

  api.post(
    "/api/estates/:estate_id/meters",
    {
      schema: {
        tags,
        summary: "Install a meter on an estate",
        params: z.strictObject({ estate_id: uuid() }),
        body: newMeter,
        response: createdAnswers(meterBody),
      },
      config: { access: "PropertiesWrite", ...invalidMeter },
    },
    async (request, reply) => {
      const estate = await readEstate(sql, tenantOf(request), request.params.estate_id);
      if (!estate) throw notFound("Estate", request.params.estate_id);
      return install(request, reply, estate.place_id, request.params.estate_id, request.body);
    },
  );

  api.put(
    "/api/meters/:meter_id",
    {
      schema: {
        tags,
        summary: "Update a meter: omitted fields keep their value, null removes it",
        params: meterParams,
        body: meterChanges,
        response: updatedAnswers(meterBody),
      },
      config: { access: "PropertiesWrite", ...invalidMeter },
    },
    async (request, reply) => {
      const { meter_id } = request.params;
      const tenantId = tenantOf(request);
      const row = await findMeterRow(sql, tenantId, meter_id);
      if (!row) throw notFound("Meter", meter_id);
      const type = request.body.type ?? (row.type as MeterFields["type"]);
      const body = request.body;
      await checkReferences(request, meter_id, String(row.place_id), type, body);
      const result = await runMeter(request, meter_id, {
        type: "UpdateMeter",
        meter_id,
        changes: changesOf(body, type),
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: meter_id,
        revision: result.revision,
        read: () => readMeter(sql, tenantId, meter_id),
      });
    },
  );

  api.delete(
    "/api/meters/:meter_id",
    {
      schema: {
        tags,
        summary: "Remove a meter (not while it has sub-meters)",
        params: meterParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const { meter_id } = request.params;
      const sub_meters = await countSubMeters(sql, tenantOf(request), meter_id);
      const result = await runMeter(request, meter_id, { type: "RemoveMeter", meter_id, sub_meters });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        read: async () => null,
      });
    },
  );

  api.post(
    "/api/meters/:meter_id/readings",
    {
      schema: {
        tags,
        summary:
          "Record a reading: consumption = index minus the previous (across a rollover); flagged `anomaly` when its daily consumption is more than 50 % off the average",
        params: meterParams,
        body: newReading,
        response: createdAnswers(readingBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage: "Invalid reading data" },
    },
    async (request, reply) => {
      const { meter_id } = request.params;
      const tenantId = tenantOf(request);
      const b = request.body;
      if (b.media_id && !(await findMediaRow(sql, tenantId, b.media_id)))
        throw validationError("Invalid reading data", [
          { field: "media_id", message: `Media ${b.media_id} not found` },
        ]);
      const reading: ReadingInput = {
        reading_id: newResourceId(request),
        value: b.value,
        read_on: b.read_on,
        source: b.source,
        media_id: b.media_id ?? null,
      };
      const today = legalToday();
      const result = await runMeter(request, meter_id, (state) => {
        // A refusal of the one reading is the answer (the bulk route reports it per item instead).
        const { outcomes } = judgeReadings(state, meter_id, [reading], today);
        const [outcome] = outcomes;
        if (outcome.status === "rejected") throw outcome.error;
        return { type: "RecordReadings" as const, meter_id, readings: [reading], today };
      });
      await alertAnomalies(request, result.events);
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: reading.reading_id,
        location: `/api/meters/${meter_id}/readings`,
        read: async () => (await readReadings(sql, tenantId, meter_id, [reading.reading_id]))[0] ?? null,
      });
    },
  );

  api.post(
    "/api/meters/:meter_id/replacement",
    {
      schema: {
        tags,
        summary:
          "Record the meter's replacement: the old meter's final index closes its consumption, the new one counts from its initial index",
        params: meterParams,
        body: replacementSchema,
        response: createdAnswers(meterBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage: "Invalid replacement data" },
    },
    async (request, reply) => {
      const { meter_id } = request.params;
      const b = request.body;
      const result = await runMeter(request, meter_id, {
        type: "ReplaceMeter",
        meter_id,
        replacement_id: newResourceId(request),
        on: b.on,
        final_index: b.final_index,
        new_serial: b.new_serial ?? null,
        initial_index: b.initial_index,
        today: legalToday(),
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: meter_id,
        location: `/api/meters/${meter_id}`,
        revision: result.revision,
        read: () => readMeter(sql, tenantOf(request), meter_id),
      });
    },
  );

  api.post(
    "/api/meters/readings/bulk",
    {
      schema: {
        tags,
        summary: `Record up to ${MAX_BULK_READINGS} readings of any meters: each accepted, flagged (an anomaly, recorded) or rejected (with its reason)`,
        body: bulkBody,
        response: answers(bulkAnswer),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage: "Invalid readings" },
      // 10,000 readings are about 1.3 MB of JSON: over the platform's 1 MiB default.
      bodyLimit: 8 * 1024 * 1024,
      preValidation: async (request) => {
        if (Array.isArray(request.body) && request.body.length > MAX_BULK_READINGS)
          throw new ApiError("PayloadTooLarge", `A bulk request holds at most ${MAX_BULK_READINGS} readings`);
      },
    },
    async (request, reply) => {
      const items = request.body.map((item) => ({ ...item, media_id: null, reading_id: randomUUID() }));
      const done = await recordReadingBatch(request, items, legalToday());
      const answer = {
        accepted: done.outcomes.filter((o) => o.status === "accepted").length,
        flagged: done.outcomes.filter((o) => o.status === "flagged").length,
        rejected: done.outcomes.filter((o) => o.status === "rejected").length,
        items: done.outcomes.map((o, index) =>
          o.status === "rejected"
            ? {
                index,
                meter_id: items[index].meter_id,
                reading_id: null,
                status: o.status,
                error: o.error.toBody(),
              }
            : {
                index,
                meter_id: items[index].meter_id,
                reading_id: o.reading_id,
                status: o.status,
                consumption: o.reading.consumption,
              },
        ),
      };
      await alertAnomalies(request, done.events);
      const seen = done.position ? await app.platform.projections.waitFor(done.position) : true;
      return reply.status(seen ? 200 : 202).send(answer);
    },
  );
}
