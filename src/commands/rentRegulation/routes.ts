import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import {
  estateRentRegulationStream,
  irlStream,
  PLATFORM_TENANT_ID,
  placeRentRegulationStream,
  type RentRegulationEvent,
} from "../../events/rentRegulation.ts";
import { conflict, notFound, preconditionFailed } from "../../platform/errors.ts";
import { WrongExpectedRevisionError } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { ifMatchRevision } from "../../platform/http/etag.ts";
import { handleCommand, loadStream, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { requirePlace } from "../../queries/places.ts";
import {
  estateRegulationAnswer,
  estateRegulationBody,
  estateRegulationParams,
  irlBody,
  placeRegulationAnswer,
  placeRegulationBody,
  placeRegulationParams,
  readIrl,
  readPlaceRentRegulation,
  requireEstateInPlace,
} from "../../queries/rentRegulation.ts";
import { irlParams, putIrlBody, putRentRegulationBody } from "../../queries/rentRegulationSchemas.ts";
import { type RentRegulationCommand, rentRegulationDecider } from "./decider.ts";

const tag = { tags: ["Rent Regulation and Rent Control"] };

/**
 * An IRL quarter is platform data written with the administrator key: no tenant, so the stream is
 * handled here with the platform tenant in the metadata (handleCommand binds the caller's tenant).
 */
async function publishIrl(
  request: FastifyRequest,
  command: Extract<RentRegulationCommand, { type: "PublishIrlValue" }>,
) {
  const { store } = request.server.platform;
  const stream = irlStream(command.quarter);
  const ifMatch = ifMatchRevision(request);
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadStream(store, stream, PLATFORM_TENANT_ID, rentRegulationDecider);
    if (ifMatch !== undefined && loaded.revision !== ifMatch) throw preconditionFailed();
    const events: RentRegulationEvent[] = rentRegulationDecider.decide(command, loaded.state);
    if (events.length === 0) return { position: null };
    try {
      const result = await store.appendToStream(
        stream,
        events.map((e) => ({
          event_id: randomUUID(),
          type: e.type,
          data: e.data,
          metadata: {
            tenant_id: PLATFORM_TENANT_ID,
            actor_key_id: null,
            correlation_id: String(request.id),
            causation_id: null,
            occurred_at: new Date().toISOString(),
          },
        })),
        { expected_revision: loaded.revision ?? "no_stream" },
      );
      return { position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (ifMatch !== undefined) throw preconditionFailed();
      if (attempt >= 4) throw conflict("The IRL value was changed concurrently; retry");
    }
  }
}

/** PUT of the IRL (admin) and of a place's / an estate's rent regulation (docs/rent-regulation.md). */
export async function rentRegulationCommandRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.put(
    "/api/rent-regulation/irl/:quarter",
    {
      schema: {
        summary: "Set the IRL value of a quarter",
        ...tag,
        params: irlParams,
        body: putIrlBody,
        response: updatedAnswers(irlBody),
      },
      config: { access: "admin" },
    },
    async (request, reply) => {
      const { quarter } = request.params as { quarter: string };
      const body = request.body as z.output<typeof putIrlBody>;
      const { position } = await publishIrl(request, {
        type: "PublishIrlValue",
        quarter,
        value: body.value,
        published_on: body.published_on ?? null,
      });
      return replyAfterProjection(request, reply, {
        position,
        status: 200,
        id: quarter,
        location: `/api/rent-regulation/irl/${quarter}`,
        read: async () => {
          const found = await readIrl(sql, quarter);
          if (!found) return null;
          const { revision, ...irl } = found;
          if (revision !== null) reply.header("etag", `W/"${revision}"`);
          return irl;
        },
      });
    },
  );

  app.put(
    "/api/places/:place_id/rent-regulation",
    {
      schema: {
        summary: "Set the rent regulation (encadrement des loyers) of a place",
        ...tag,
        params: placeRegulationParams,
        body: putRentRegulationBody,
        response: updatedAnswers(placeRegulationAnswer),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId } = request.params as { place_id: string };
      const fields = request.body as z.output<typeof putRentRegulationBody>;
      await requirePlace(sql, tenantId, placeId);
      const result = await handleCommand(
        request,
        placeRentRegulationStream(placeId),
        rentRegulationDecider,
        { type: "SetPlaceRentRegulation", place_id: placeId, fields },
        { notFound: () => notFound("Place", placeId) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: placeId,
        revision: result.revision,
        read: async () => {
          const { revision: _r, ...regulation } = await readPlaceRentRegulation(sql, tenantId, placeId);
          return placeRegulationBody(placeId, regulation);
        },
      });
    },
  );

  app.put(
    "/api/places/:place_id/estates/:estate_id/rent-regulation",
    {
      schema: {
        summary: "Set the rent regulation of an estate (its own reference rents)",
        ...tag,
        params: estateRegulationParams,
        body: putRentRegulationBody,
        response: updatedAnswers(estateRegulationAnswer),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId, estate_id: estateId } = request.params as {
        place_id: string;
        estate_id: string;
      };
      const fields = request.body as z.output<typeof putRentRegulationBody>;
      await requireEstateInPlace(sql, tenantId, placeId, estateId);
      const result = await handleCommand(
        request,
        estateRentRegulationStream(estateId),
        rentRegulationDecider,
        { type: "SetEstateRentRegulation", estate_id: estateId, fields },
        { notFound: () => notFound("Estate", estateId) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: estateId,
        revision: result.revision,
        read: async () => (await estateRegulationBody(sql, tenantId, estateId))?.body,
      });
    },
  );

  app.delete(
    "/api/places/:place_id/estates/:estate_id/rent-regulation",
    {
      schema: {
        summary: "Remove an estate's own rent regulation (its place's applies)",
        ...tag,
        params: estateRegulationParams,
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id: placeId, estate_id: estateId } = request.params as {
        place_id: string;
        estate_id: string;
      };
      await requireEstateInPlace(sql, tenantId, placeId, estateId);
      const result = await handleCommand(
        request,
        estateRentRegulationStream(estateId),
        rentRegulationDecider,
        { type: "RemoveEstateRentRegulation", estate_id: estateId },
        { notFound: () => notFound("Rent regulation override of estate", estateId) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        read: async () => null,
      });
    },
  );
}
