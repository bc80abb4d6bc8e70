import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { placeStream } from "../../events/places.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { countEstates } from "../../queries/estates.ts";
import { placeBody, placeParams, readPlace } from "../../queries/places.ts";
import { placeDecider } from "./decider.ts";
import { createPlaceSchema, updatePlaceSchema } from "./schemas.ts";

const tag = { tags: ["Places"] };
const location = (id: string) => `/api/places/${id}`;

/** POST, PUT and DELETE of /api/places (docs/architecture.md §6 Places). */
export async function placeRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/places",
    {
      schema: {
        ...tag,
        summary: "Create a place",
        body: createPlaceSchema,
        response: createdAnswers(placeBody),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const id = newResourceId(request);
      const result = await handleCommand(request, placeStream(id), placeDecider, {
        type: "CreatePlace",
        place_id: id,
        input: request.body,
      });
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: location(id),
        read: () => readPlace(sql, tenantOf(request), id),
      });
    },
  );

  api.put(
    "/api/places/:place_id",
    {
      schema: {
        ...tag,
        summary: "Update a place: omitted fields keep their value, null removes it",
        params: placeParams,
        body: updatePlaceSchema,
        response: updatedAnswers(placeBody),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const id = request.params.place_id;
      const result = await handleCommand(
        request,
        placeStream(id),
        placeDecider,
        { type: "UpdatePlace", place_id: id, input: request.body },
        { notFound: () => notFound("Place", id) },
      );
      return replyWithResource(request, reply, 200, {
        id,
        position: result.position,
        read: () => readPlace(sql, tenantOf(request), id),
      });
    },
  );

  api.delete(
    "/api/places/:place_id",
    {
      schema: {
        ...tag,
        summary: "Delete a place (refused while it holds estates)",
        params: placeParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const id = request.params.place_id;
      const estate_count = await countEstates(sql, tenantOf(request), "place_id", id);
      const result = await handleCommand(
        request,
        placeStream(id),
        placeDecider,
        { type: "DeletePlace", place_id: id, estate_count },
        { notFound: () => notFound("Place", id) },
      );
      return replyWithResource(request, reply, 204, { id, position: result.position });
    },
  );
}
