import type { FastifyInstance } from "fastify";
import {
  type Configuration,
  configurationStream,
  type TemplateCode,
  templateStream,
} from "../../events/settings.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { configurationAnswer, templateFound } from "../../queries/settings.ts";
import {
  configurationBody,
  configurationInput,
  templateBody,
  templateInput,
  templateParams,
} from "../../queries/settingsSchemas.ts";
import { configurationDecider, templateDecider } from "./decider.ts";

/**
 * PUT /api/configurations, PUT and DELETE /api/templates/{code} (docs/settings.md): each saves a
 * whole document of the caller's tenant, If-Match honoured, answered read-your-writes.
 */
export const settingsCommandRoutes = async (app: FastifyInstance) => {
  const { sql } = app.platform;
  const tags = ["Settings"];

  app.put(
    "/api/configurations",
    {
      schema: {
        tags,
        summary: "Replace the configuration (every field; read-only ones sent back are ignored)",
        body: configurationInput,
        response: updatedAnswers(configurationBody),
      },
      config: { access: "SettingsWrite", invalidBodyMessage: "Invalid configuration" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const {
        customised: _,
        version: __,
        ...configuration
      } = request.body as Configuration & {
        customised?: boolean;
        version?: number;
      };
      const result = await handleCommand(request, configurationStream(tenantId), configurationDecider, {
        type: "SaveConfiguration",
        configuration: {
          ...configuration,
          sender: { ...configuration.sender, address: configuration.sender.address ?? null },
        },
      });
      return replyWithResource(request, reply, 200, {
        id: tenantId,
        position: result.position,
        read: () => configurationAnswer(sql, tenantId),
      });
    },
  );

  app.put(
    "/api/templates/:code",
    {
      schema: {
        tags,
        summary:
          "Save a template: checked against its sample view first (422 lists the problems, nothing saved)",
        params: templateParams,
        body: templateInput,
        response: { ...updatedAnswers(templateBody) },
      },
      config: { access: "SettingsWrite", invalidBodyMessage: "Invalid template" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { code } = request.params as { code: TemplateCode };
      const { source } = request.body as { source: string };
      const result = await handleCommand(request, templateStream(tenantId, code), templateDecider, {
        type: "SaveTemplate",
        code,
        source,
      });
      return replyWithResource(request, reply, 200, {
        id: code,
        position: result.position,
        read: () => templateFound(sql, tenantId, code),
      });
    },
  );

  app.delete(
    "/api/templates/:code",
    {
      schema: {
        tags,
        summary: "Back to the built-in default (a new version; the history keeps the old sources)",
        params: templateParams,
        response: deletedAnswers,
      },
      config: { access: "SettingsWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { code } = request.params as { code: TemplateCode };
      const result = await handleCommand(request, templateStream(tenantId, code), templateDecider, {
        type: "ResetTemplate",
        code,
      });
      return replyWithResource(request, reply, 204, { id: code, position: result.position });
    },
  );
};
