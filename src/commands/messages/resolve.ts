import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  evolveMessage,
  initialMessageState,
  type MessageEvent,
  type MessageState,
  messageStream,
} from "../../events/messages.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { updatedAnswers } from "../../platform/http/responses.ts";
import { messageBody, messageParams, readMessage } from "../../queries/messages.ts";

/**
 * An operator settles an UNCERTAIN message (docs/messages.md, "Never sent twice"): it did arrive
 * (DELIVERED), or it is to be sent again (RESEND: queued anew, same Message-ID header, so a
 * receiving system that keeps both can tell them apart).
 */
export interface ResolveMessageOutcome {
  type: "ResolveMessageOutcome";
  message_id: string;
  resolution: "DELIVERED" | "RESEND";
  now: string;
}

export const messageDecider: Decider<MessageState, ResolveMessageOutcome, MessageEvent> = {
  initialState: initialMessageState,
  evolve: evolveMessage,
  decide(command, state) {
    switch (command.type) {
      case "ResolveMessageOutcome": {
        if (state.status === null) throw notFound("Message", command.message_id);
        if (state.status !== "UNCERTAIN")
          throw conflict(
            `Message ${command.message_id} is ${state.status}: only an UNCERTAIN message is resolved`,
          );
        return [
          {
            type: "MessageOutcomeResolved",
            data: {
              message_id: command.message_id,
              resolution: command.resolution,
              resolved_at: command.now,
            },
          },
        ];
      }
      default: {
        const exhaustive: never = command.type;
        return exhaustive;
      }
    }
  },
};

const resolveBody = z
  .strictObject({
    resolution: z
      .enum(["DELIVERED", "RESEND"])
      .describe("DELIVERED: it arrived (checked with the recipient or the provider); RESEND: send it again"),
  })
  .meta({ id: "MessageResolution" });

export async function messageCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    "/api/messages/:message_id/resolve",
    {
      schema: {
        tags: ["Messages"],
        summary: "Settle an UNCERTAIN message: it was delivered, or send it again",
        params: messageParams,
        body: resolveBody,
        response: updatedAnswers(messageBody),
      },
      config: { access: "SettingsWrite" },
    },
    async (request, reply) => {
      const { message_id } = request.params;
      const result = await handleCommand(
        request,
        messageStream(message_id),
        messageDecider,
        {
          type: "ResolveMessageOutcome",
          message_id,
          resolution: request.body.resolution,
          now: new Date().toISOString(),
        },
        { notFound: () => notFound("Message", message_id) },
      );
      return replyWithResource(request, reply, 200, {
        id: message_id,
        position: result.position,
        read: () => readMessage(app.platform.sql, tenantOf(request), message_id),
      });
    },
  );
}
