import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";

/** A single resource's ETag is its stream revision. */
export const etagOf = (revision: number | bigint) => `W/"${revision}"`;

export function setEtag(reply: FastifyReply, revision: number | bigint | null | undefined): void {
  if (revision !== null && revision !== undefined) reply.header("etag", etagOf(revision));
}

/** The revision an `If-Match` header demands, or undefined without one. */
export function ifMatchRevision(request: FastifyRequest): bigint | undefined {
  const header = request.headers["if-match"];
  if (header === undefined) return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,18})"\s*$/.exec(String(header));
  if (!match)
    throw new ApiError("PreconditionFailed", 'If-Match must be an ETag this API issued, like W/"3"');
  return BigInt(match[1]);
}
