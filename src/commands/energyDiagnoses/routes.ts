import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { energyDiagnosisStream } from "../../events/energyDiagnoses.ts";
import { notFound } from "../../platform/errors.ts";
import type { Position } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { id } from "../../platform/http/schemas.ts";
import { energyDiagnosisBody, readEnergyDiagnosis } from "../../queries/energyDiagnoses.ts";
import {
  type CreateEnergyDiagnosisBody,
  createEnergyDiagnosisBody,
  type UpdateEnergyDiagnosisBody,
  updateEnergyDiagnosisBody,
} from "../../queries/energyDiagnosesSchemas.ts";
import { estateRecorded } from "../../queries/estates.ts";
import { mediaRecorded } from "../../queries/media.ts";
import { placeRecorded } from "../../queries/places.ts";
import { energyDiagnosisDecider, type KnownIds } from "./decider.ts";

/** POST, PUT and DELETE routes of the Energy Diagnosis area (docs/architecture.md §6). */

/** Looks up only the ids the request sets (null or absent ids need no fact). */
async function knownIds(
  request: FastifyRequest,
  body: { place_id?: string | null; estate_id?: string | null; media_id?: string | null },
): Promise<KnownIds> {
  const [place, estate, media] = await Promise.all([
    body.place_id ? placeRecorded(request, body.place_id) : undefined,
    body.estate_id ? estateRecorded(request, body.estate_id) : undefined,
    body.media_id ? mediaRecorded(request, body.media_id) : undefined,
  ]);
  return { place, estate, media };
}

const tag = { tags: ["Energy Diagnosis"] };
const idParams = z.strictObject({ id });
const location = (diagnosisId: string) => `/api/energy-diagnoses/${diagnosisId}`;
const notFoundError = (diagnosisId: string) => () => notFound("Energy diagnosis", diagnosisId);
const invalidBodyMessage = "Invalid energy diagnosis data";

function replyWithDiagnosis(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  diagnosisId: string,
  result: { position: Position | null; revision: bigint | null },
) {
  return replyAfterProjection(request, reply, {
    position: result.position,
    status,
    id: diagnosisId,
    location: location(diagnosisId),
    revision: result.revision,
    read: async () =>
      (await readEnergyDiagnosis(request.server.platform.sql, tenantOf(request), diagnosisId))?.body,
  });
}

export async function energyDiagnosisCommandRoutes(app: FastifyInstance) {
  app.post(
    "/api/energy-diagnoses",
    {
      schema: {
        summary: "Record an energy diagnosis (DPE) of a place or an estate",
        ...tag,
        body: createEnergyDiagnosisBody,
        response: createdAnswers(energyDiagnosisBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const body = request.body as CreateEnergyDiagnosisBody;
      const diagnosisId = newResourceId(request);
      const result = await handleCommand(
        request,
        energyDiagnosisStream(diagnosisId),
        energyDiagnosisDecider,
        {
          type: "RecordEnergyDiagnosis",
          id: diagnosisId,
          fields: body,
          known: await knownIds(request, body),
          now: new Date().toISOString(),
        },
        { notFound: notFoundError(diagnosisId) },
      );
      return replyWithDiagnosis(request, reply, 201, diagnosisId, result);
    },
  );

  app.put(
    "/api/energy-diagnoses/:id",
    {
      schema: {
        summary: "Update an energy diagnosis (omitted fields kept, null removes)",
        ...tag,
        params: idParams,
        body: updateEnergyDiagnosisBody,
        response: updatedAnswers(energyDiagnosisBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage },
    },
    async (request, reply) => {
      const { id: diagnosisId } = request.params as { id: string };
      const body = request.body as UpdateEnergyDiagnosisBody;
      const known = await knownIds(request, body);
      const result = await handleCommand(
        request,
        energyDiagnosisStream(diagnosisId),
        energyDiagnosisDecider,
        {
          type: "UpdateEnergyDiagnosis",
          id: diagnosisId,
          changes: body,
          known,
          now: new Date().toISOString(),
        },
        { notFound: notFoundError(diagnosisId) },
      );
      return replyWithDiagnosis(request, reply, 200, diagnosisId, result);
    },
  );

  app.delete(
    "/api/energy-diagnoses/:id",
    {
      schema: { summary: "Delete an energy diagnosis", ...tag, params: idParams, response: deletedAnswers },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const { id: diagnosisId } = request.params as { id: string };
      const result = await handleCommand(
        request,
        energyDiagnosisStream(diagnosisId),
        energyDiagnosisDecider,
        { type: "DeleteEnergyDiagnosis", id: diagnosisId },
        { notFound: notFoundError(diagnosisId) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        read: async () => null,
      });
    },
  );
}
