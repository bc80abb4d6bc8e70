import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { estateStream } from "../../events/estates.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import {
  estateBody,
  estateDependents,
  estateParams,
  nestedEstateParams,
  readEstate,
} from "../../queries/estates.ts";
import {
  createEstateSchema,
  type UpdateEstateInput,
  updateEstateSchema,
} from "../../queries/estatesSchemas.ts";
import { ownerExists } from "../../queries/owners.ts";
import { placeExists, placeParams, requirePlace } from "../../queries/places.ts";
import { typeExists } from "../../queries/types.ts";
import { type EstateFacts, estateDecider } from "./decider.ts";

const tag = { tags: ["Estates"] };
const invalidBodyMessage = "Invalid estate data";
const location = (placeId: string, id: string) => `/api/places/${placeId}/estates/${id}`;

/** Looks up, in read models, only the facts the body makes relevant. */
async function factsFor(
  sql: Sql,
  tenantId: string,
  input: { estate_type_id?: string; owner_id?: string | null; place_id?: string },
  withTargetPlace: boolean,
): Promise<EstateFacts> {
  const [estate_type_exists, owner_exists, target_place_exists] = await Promise.all([
    input.estate_type_id ? typeExists(sql, tenantId, "estate", input.estate_type_id) : undefined,
    input.owner_id ? ownerExists(sql, tenantId, input.owner_id) : undefined,
    withTargetPlace && input.place_id ? placeExists(sql, tenantId, input.place_id) : undefined,
  ]);
  return { estate_type_exists, owner_exists, target_place_exists };
}

async function updateEstate(
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  pathPlaceId: string | null,
  input: UpdateEstateInput,
) {
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  if (pathPlaceId !== null) await requirePlace(sql, tenantId, pathPlaceId);
  const [current, facts] = await Promise.all([
    readEstate(sql, tenantId, id),
    factsFor(sql, tenantId, input, pathPlaceId === null),
  ]);
  const result = await handleCommand(
    request,
    estateStream(id),
    estateDecider,
    {
      type: "UpdateEstate",
      estate_id: id,
      path_place_id: pathPlaceId,
      input,
      rental_status: current?.rental_status ?? "VACANT",
      effective_rent_amount: current?.rent_amount ?? null,
      now: new Date().toISOString(),
      ...facts,
    },
    { notFound: () => notFound("Estate", id) },
  );
  return replyWithResource(request, reply, 200, {
    id,
    position: result.position,
    read: () => readEstate(sql, tenantId, id),
  });
}

async function deleteEstate(
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  pathPlaceId: string | null,
) {
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  if (pathPlaceId !== null) await requirePlace(sql, tenantId, pathPlaceId);
  const dependents = await estateDependents(sql, tenantId, id);
  const result = await handleCommand(
    request,
    estateStream(id),
    estateDecider,
    { type: "DeleteEstate", estate_id: id, path_place_id: pathPlaceId, ...dependents },
    { notFound: () => notFound("Estate", id) },
  );
  return replyWithResource(request, reply, 204, { id, position: result.position });
}

/** POST, PUT and DELETE of estates (docs/architecture.md §6 Estates). */
export async function estateRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/places/:place_id/estates",
    {
      schema: {
        ...tag,
        summary: "Create an estate in a place",
        params: placeParams,
        body: createEstateSchema,
        response: createdAnswers(estateBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      const id = newResourceId(request);
      const facts = await factsFor(sql, tenantId, request.body, false);
      const result = await handleCommand(request, estateStream(id), estateDecider, {
        type: "CreateEstate",
        estate_id: id,
        place_id,
        input: request.body,
        ...facts,
      });
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: location(place_id, id),
        read: () => readEstate(sql, tenantId, id),
      });
    },
  );

  api.put(
    "/api/places/:place_id/estates/:estate_id",
    {
      schema: {
        ...tag,
        summary: "Update an estate of a place: omitted fields keep their value, null removes it",
        params: nestedEstateParams,
        body: updateEstateSchema,
        response: updatedAnswers(estateBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) =>
      updateEstate(request, reply, request.params.estate_id, request.params.place_id, request.body),
  );

  api.put(
    "/api/estates/:id",
    {
      schema: {
        ...tag,
        summary: "Update an estate; place_id moves it to another place",
        params: estateParams,
        body: updateEstateSchema,
        response: updatedAnswers(estateBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => updateEstate(request, reply, request.params.id, null, request.body),
  );

  api.delete(
    "/api/places/:place_id/estates/:estate_id",
    {
      schema: {
        ...tag,
        summary: "Delete an estate (refused while it has rooms or leases not terminated)",
        params: nestedEstateParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => deleteEstate(request, reply, request.params.estate_id, request.params.place_id),
  );

  api.delete(
    "/api/estates/:id",
    {
      schema: {
        ...tag,
        summary: "Delete an estate (refused while it has rooms or leases not terminated)",
        params: estateParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => deleteEstate(request, reply, request.params.id, null),
  );
}
