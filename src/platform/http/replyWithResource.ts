import type { FastifyReply, FastifyRequest } from "fastify";
import type { Position } from "../eventstore/eventStore.ts";
import { setEtag } from "./etag.ts";
import { replyAfterProjection } from "./handleCommand.ts";

/** A resource as a query function finds it: the response body and its stream revision (the ETag). */
export interface Found {
  body: Record<string, unknown>;
  revision: number;
  /** Where the body shows more than its stream (see etagOf): the ETag covering it. */
  etag?: string;
}

/** Read-your-writes answer of a command: the resource from its read model, with its ETag. */
export function replyWithResource(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 200 | 201 | 204,
  options: { id: string; position: Position | null; location?: string; read?: () => Promise<Found | null> },
) {
  const read = options.read;
  return replyAfterProjection(request, reply, {
    position: options.position,
    status,
    id: options.id,
    location: options.location,
    read: async () => {
      const found = read ? await read() : null;
      if (found) setEtag(reply, found.revision, found.etag);
      return found?.body;
    },
  });
}
