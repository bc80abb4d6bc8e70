import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { estateDiagnosticsStream } from "../../events/estateDiagnostics.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, deletedAnswers } from "../../platform/http/responses.ts";
import { id } from "../../platform/http/schemas.ts";
import { estateDiagnosticBody, readEstateDiagnostic } from "../../queries/estateDiagnostics.ts";
import {
  type CreateEstateDiagnosticBody,
  createEstateDiagnosticBody,
} from "../../queries/estateDiagnosticsSchemas.ts";
import { estateRecorded } from "../../queries/estates.ts";
import { mediaRecorded } from "../../queries/media.ts";
import { estateDiagnosticsDecider } from "./decider.ts";

/**
 * POST and DELETE routes of the Estate Diagnostics area. Every command goes to the estate's
 * diagnostics stream, so a new diagnostic and the deactivation of the one it replaces are one append.
 */

const tag = { tags: ["Estate Diagnostics"] };

export async function estateDiagnosticCommandRoutes(app: FastifyInstance) {
  app.post(
    "/api/estates/:estate_id/diagnostics",
    {
      schema: {
        summary: "Record a diagnostic of an estate",
        ...tag,
        params: z.strictObject({ estate_id: id }),
        body: createEstateDiagnosticBody,
        response: createdAnswers(estateDiagnosticBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage: "Invalid estate diagnostic data" },
    },
    async (request, reply) => {
      const { estate_id: estateId } = request.params as { estate_id: string };
      const body = request.body as CreateEstateDiagnosticBody;
      const diagnosticId = newResourceId(request);
      const [estate, media] = await Promise.all([
        estateRecorded(request, estateId),
        body.media_id ? mediaRecorded(request, body.media_id) : undefined,
      ]);
      const result = await handleCommand(
        request,
        estateDiagnosticsStream(estateId),
        estateDiagnosticsDecider,
        {
          type: "RecordEstateDiagnostic",
          estate_id: estateId,
          id: diagnosticId,
          fields: body,
          known: { estate, media },
          now: new Date().toISOString(),
        },
        { notFound: () => notFound("Estate", estateId) },
      );
      const location = `/api/estates/${estateId}/diagnostics/${diagnosticId}`;
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: diagnosticId,
        location,
        revision: result.revision,
        read: async () =>
          (await readEstateDiagnostic(request.server.platform.sql, tenantOf(request), estateId, diagnosticId))
            ?.body,
      });
    },
  );

  app.delete(
    "/api/estates/:estate_id/diagnostics/:id",
    {
      schema: {
        summary: "Delete a diagnostic of an estate",
        ...tag,
        params: z.strictObject({ estate_id: id, id }),
        response: deletedAnswers,
      },
      config: { access: "PropertiesDelete" },
    },
    async (request, reply) => {
      const { estate_id: estateId, id: diagnosticId } = request.params as { estate_id: string; id: string };
      if (!(await estateRecorded(request, estateId))) throw notFound("Estate", estateId);
      const result = await handleCommand(
        request,
        estateDiagnosticsStream(estateId),
        estateDiagnosticsDecider,
        { type: "DeleteEstateDiagnostic", estate_id: estateId, id: diagnosticId },
        { notFound: () => notFound("Estate diagnostic", diagnosticId) },
      );
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 204,
        read: async () => null,
      });
    },
  );
}
