import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, type ErrorDetail } from "../../platform/errors.ts";
import type { Position } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { ifMatchRevision, setEtag } from "../../platform/http/etag.ts";
import { metadataOf, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { activeLeaseCounts } from "../../projections/lessees.ts";
import { lesseeBody, readLessee, readLessees } from "../../queries/lessees.ts";
import {
  deleteLessee,
  deleteLessees,
  latestPosition,
  registerLessee,
  registerLessees,
  updateLessee,
  type WriteContext,
} from "./handlers.ts";
import {
  createLesseeSchema,
  INVALID_CATEGORY,
  INVALID_DATA,
  MAX_BULK_ITEMS,
  toLesseeData,
  updateLesseeSchema,
  uuidSchema,
} from "./schemas.ts";

/** POST, PUT and DELETE routes of the Lessees area (SPEC.md Endpoints, DESIGN.md §6). */

/** SPEC.md names a category problem "Invalid lessee category", any other "Invalid lessee data". */
const invalidBodyMessage = (details: ErrorDetail[]) =>
  details.some((d) => /^(\[\d+\]\.)?category$/.test(d.field)) ? INVALID_CATEGORY : INVALID_DATA;

/** DESIGN.md §4: a bulk request over 1000 items is a 413, checked before item validation. */
async function bulkLimit(request: FastifyRequest) {
  if (Array.isArray(request.body) && request.body.length > MAX_BULK_ITEMS) {
    throw new ApiError("PayloadTooLarge", `A bulk request holds at most ${MAX_BULK_ITEMS} items`);
  }
}

const idParams = z.strictObject({ id: uuidSchema });
const bulkCreateBody = z.array(createLesseeSchema).min(1, "Must contain at least one lessee");
const bulkDeleteBody = z.array(uuidSchema).min(1, "Must contain at least one id");
const tag = { tags: ["Lessees"] };

function contextOf(request: FastifyRequest): WriteContext {
  return { store: request.server.platform.store, tenantId: tenantOf(request), metadata: metadataOf(request) };
}

const location = (id: string) => `/api/lessees/${id}`;

function replyWithLessee(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  result: { lessee_id: string; position: Position | null; revision: bigint | null },
) {
  const { sql } = request.server.platform;
  return replyAfterProjection(request, reply, {
    position: result.position,
    status,
    id: result.lessee_id,
    location: location(result.lessee_id),
    read: async () => {
      const found = await readLessee(sql, tenantOf(request), result.lessee_id);
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
      const result = await registerLessee(contextOf(request), toLesseeData(request.body));
      return replyWithLessee(request, reply, 201, result);
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
      const ifMatch = ifMatchRevision(request);
      const id = request.params.id.toLowerCase();
      const result = await updateLessee(contextOf(request), id, request.body, ifMatch);
      return replyWithLessee(request, reply, 200, result);
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
      const ctx = contextOf(request);
      const id = request.params.id.toLowerCase();
      const result = await deleteLessee(
        ctx,
        id,
        async () => (await activeLeaseCounts(sql, ctx.tenantId, [id])).get(id) ?? 0,
        ifMatchRevision(request),
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
      const ctx = contextOf(request);
      const results = await registerLessees(ctx, request.body.map(toLesseeData));
      const ids = results.map((r) => r.lessee_id);
      return replyAfterProjection(request, reply, {
        position: latestPosition(results.map((r) => r.position)),
        status: 201,
        read: () => readLessees(sql, ctx.tenantId, ids),
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
      const ctx = contextOf(request);
      const ids = request.body.map((id) => id.toLowerCase());
      const position = await deleteLessees(ctx, ids, (list) => activeLeaseCounts(sql, ctx.tenantId, list));
      return replyAfterProjection(request, reply, { position, status: 204, read: async () => null });
    },
  );
}
