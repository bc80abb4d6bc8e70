import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ownerStream } from "../../events/owners.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { countEstates } from "../../queries/estates.ts";
import { ownerBody, readOwner } from "../../queries/owners.ts";
import { ownerDecider } from "./decider.ts";
import { createOwnerSchema, updateOwnerSchema } from "./schemas.ts";

const tag = { tags: ["Owners"] };
const ownerParams = z.strictObject({ owner_id: uuid() });
const location = (id: string) => `/api/owners/${id}`;
const invalidBodyMessage = "Invalid owner data";

/** POST, PUT and DELETE of /api/owners. */
export async function ownerRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/owners",
    {
      schema: {
        ...tag,
        summary: "Create an owner",
        body: createOwnerSchema,
        response: createdAnswers(ownerBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const id = newResourceId(request);
      const result = await handleCommand(request, ownerStream(id), ownerDecider, {
        type: "RegisterOwner",
        owner_id: id,
        input: request.body,
      });
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: location(id),
        read: () => readOwner(sql, tenantOf(request), id),
      });
    },
  );

  api.put(
    "/api/owners/:owner_id",
    {
      schema: {
        ...tag,
        summary: "Update an owner: omitted fields keep their value, null removes it",
        params: ownerParams,
        body: updateOwnerSchema,
        response: updatedAnswers(ownerBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const id = request.params.owner_id;
      const result = await handleCommand(
        request,
        ownerStream(id),
        ownerDecider,
        { type: "UpdateOwner", owner_id: id, input: request.body },
        { notFound: () => notFound("Owner", id) },
      );
      return replyWithResource(request, reply, 200, {
        id,
        position: result.position,
        read: () => readOwner(sql, tenantOf(request), id),
      });
    },
  );

  api.delete(
    "/api/owners/:owner_id",
    {
      schema: {
        ...tag,
        summary: "Delete an owner (refused while owning estates)",
        params: ownerParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const id = request.params.owner_id;
      const estate_count = await countEstates(sql, tenantOf(request), "owner_id", id);
      const result = await handleCommand(
        request,
        ownerStream(id),
        ownerDecider,
        { type: "DeleteOwner", owner_id: id, estate_count },
        { notFound: () => notFound("Owner", id) },
      );
      return replyWithResource(request, reply, 204, { id, position: result.position });
    },
  );
}
