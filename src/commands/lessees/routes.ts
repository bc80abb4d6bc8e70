import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { lesseeStream } from "../../events/lessees.ts";
import { ApiError, notFound } from "../../platform/errors.ts";
import { latestPosition, type Position, type RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { setEtag } from "../../platform/http/etag.ts";
import {
  commandContext,
  handleCommand,
  newResourceId,
  replyAfterProjection,
} from "../../platform/http/handleCommand.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { activeLeaseCounts } from "../../queries/leases.ts";
import { lesseeBody, lesseeFromEvents, readLessees } from "../../queries/lessees.ts";
import { createLesseeSchema, uuidSchema } from "../../queries/lesseesSchemas.ts";
import { lesseeDecider } from "./decider.ts";
import { deleteLessees, lesseeEmailsOf, registerLessees } from "./handlers.ts";
import {
  INVALID_DATA,
  invalidBodyMessage,
  MAX_BULK_ITEMS,
  toLesseeData,
  updateLesseeSchema,
} from "./schemas.ts";

/** POST, PUT and DELETE routes of the Lessees area (docs/architecture.md §6 Lessees). */

/** docs/architecture.md §4: a bulk request over 1000 items is a 413, checked before item validation. */
async function bulkLimit(request: FastifyRequest) {
  if (Array.isArray(request.body) && request.body.length > MAX_BULK_ITEMS) {
    throw new ApiError("PayloadTooLarge", `A bulk request holds at most ${MAX_BULK_ITEMS} items`);
  }
}

const idParams = z.strictObject({ id: uuidSchema });
const bulkCreateBody = z.array(createLesseeSchema).min(1, "Must contain at least one lessee");
const bulkDeleteBody = z.array(uuidSchema).min(1, "Must contain at least one id");
const tag = { tags: ["Lessees"] };

const location = (id: string) => `/api/lessees/${id}`;

function replyWithLessee(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  result: { lessee_id: string; position: Position | null; stream: readonly RecordedEvent[] },
) {
  return replyAfterProjection(request, reply, {
    position: result.position,
    status,
    id: result.lessee_id,
    location: location(result.lessee_id),
    // Folded from the stream the command saw and wrote, which the read model holds once the
    // wait above is over: no read of the row back (docs/performance.md).
    read: async () => {
      const found = lesseeFromEvents(result.stream);
      if (found) setEtag(reply, found.revision);
      return found?.body;
    },
  });
}

export async function lesseeCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/lessees",
    {
      schema: {
        ...tag,
        summary: "Create a lessee",
        body: createLesseeSchema,
        response: createdAnswers(lesseeBody),
      },
      config: { access: "LesseeWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const id = newResourceId(request);
      const data = toLesseeData(request.body);
      const { position, stream } = await handleCommand(
        request,
        lesseeStream(id),
        lesseeDecider,
        { type: "RegisterLessee", lessee_id: id, data, now: new Date().toISOString() },
        { reserving: lesseeEmailsOf(id), fresh: true },
      );
      return replyWithLessee(request, reply, 201, { lessee_id: id, position, stream });
    },
  );

  api.put(
    "/api/lessees/:id",
    {
      schema: {
        ...tag,
        summary: "Update a lessee: omitted fields keep their value, null removes it",
        params: idParams,
        body: updateLesseeSchema,
        response: updatedAnswers(lesseeBody),
      },
      config: { access: "LesseeWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const { position, stream } = await handleCommand(
        request,
        lesseeStream(id),
        lesseeDecider,
        { type: "UpdateLessee", lessee_id: id, changes: request.body, now: new Date().toISOString() },
        { reserving: lesseeEmailsOf(id), notFound: () => notFound("Lessee", id) },
      );
      return replyWithLessee(request, reply, 200, { lessee_id: id, position, stream });
    },
  );

  api.delete(
    "/api/lessees/:id",
    {
      schema: {
        ...tag,
        summary: "Delete a lessee (refused while on active leases)",
        params: idParams,
        response: deletedAnswers,
      },
      config: { access: "LesseeDelete" },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const counts = await activeLeaseCounts(sql, tenantOf(request), [id]);
      const result = await handleCommand(
        request,
        lesseeStream(id),
        lesseeDecider,
        { type: "DeleteLessee", lessee_id: id, active_lease_count: counts.get(id) ?? 0 },
        { reserving: lesseeEmailsOf(id), notFound: () => notFound("Lessee", id) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        id,
        read: async () => null,
      });
    },
  );

  api.post(
    "/api/lessees/bulk",
    {
      schema: {
        ...tag,
        summary: `Create up to ${MAX_BULK_ITEMS} lessees, all or nothing`,
        body: bulkCreateBody,
        response: createdAnswers(z.array(lesseeBody)),
      },
      config: { access: "LesseeWrite", invalidBodyMessage },
      preValidation: bulkLimit,
    },
    async (request, reply) => {
      const ctx = commandContext(request);
      const results = await registerLessees(ctx, request.body.map(toLesseeData));
      const ids = results.map((r) => r.lessee_id);
      return replyAfterProjection(request, reply, {
        position: latestPosition(results.map((r) => r.position)),
        status: 201,
        read: () => readLessees(sql, ctx.tenant_id, ids),
      });
    },
  );

  api.delete(
    "/api/lessees/bulk",
    {
      schema: {
        ...tag,
        summary: `Delete up to ${MAX_BULK_ITEMS} lessees, all or nothing`,
        body: bulkDeleteBody,
        response: deletedAnswers,
      },
      config: { access: "LesseeDelete", invalidBodyMessage: INVALID_DATA },
      preValidation: bulkLimit,
    },
    async (request, reply) => {
      const ctx = commandContext(request);
      const ids = request.body.map((id) => id.toLowerCase());
      const position = await deleteLessees(ctx, ids, (list) => activeLeaseCounts(sql, ctx.tenant_id, list));
      return replyAfterProjection(request, reply, { position, status: 204, read: async () => null });
    },
  );
}
