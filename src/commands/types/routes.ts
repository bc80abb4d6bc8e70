import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type TypeKind, typeStream } from "../../events/types.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers } from "../../platform/http/responses.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { globalCodeExists, readType, typeBody, typeSegments } from "../../queries/types.ts";
import { typeDecider } from "./decider.ts";
import { codeFromName, createTypeSchema } from "./schemas.ts";

/** POST /api/types/estates|rooms|equipment: a type of the tenant's own. */
export async function typeRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  for (const [kind, segment] of Object.entries(typeSegments) as [TypeKind, string][]) {
    api.post(
      `/api/types/${segment}`,
      {
        schema: {
          tags: ["Types"],
          summary: `Create a ${kind} type of the tenant`,
          body: createTypeSchema,
          response: createdAnswers(typeBody),
        },
        config: { access: "PropertiesWrite" },
      },
      async (request, reply) => {
        const tenantId = tenantOf(request);
        const code = request.body.code ?? codeFromName(request.body.name);
        // One stream per (tenant, kind, code): a duplicate code meets the existing stream.
        const id = deterministicUuid("type", tenantId, kind, code);
        const result = await handleCommand(request, typeStream(id), typeDecider, {
          type: "CreateTenantType",
          type_id: id,
          kind,
          code,
          name: request.body.name,
          code_in_global_catalog: await globalCodeExists(sql, kind, code),
        });
        return replyAfterProjection(request, reply, {
          position: result.position,
          status: 201,
          id,
          location: `/api/types/${segment}/${id}`,
          read: () => readType(sql, tenantId, kind, id),
        });
      },
    );
  }
}
