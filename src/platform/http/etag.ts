import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";

/**
 * A single resource's ETag: its stream revision, `W/"3"`. A resource whose answer also shows
 * what other streams change (an estate's rental status, rent and current DPE, kept by other
 * areas' projectors) passes its representation too: `W/"3-<digest>"`, so the ETag changes
 * whenever the answer does (docs/decisions.md, "ETags cover the representation").
 */
export function etagOf(revision: number | bigint, representation?: unknown): string {
  if (representation === undefined) return `W/"${revision}"`;
  const digest = createHash("sha256").update(JSON.stringify(representation)).digest("base64url");
  return `W/"${revision}-${digest.slice(0, 16)}"`;
}

/** Sets the ETag: the one given (`Found.etag`), else the revision's. */
export function setEtag(
  reply: FastifyReply,
  revision: number | bigint | null | undefined,
  etag?: string,
): void {
  if (etag !== undefined) reply.header("etag", etag);
  else if (revision !== null && revision !== undefined) reply.header("etag", etagOf(revision));
}

/**
 * The revision an `If-Match` header demands, or undefined without one. The revision decides: the
 * digest covers only what other streams change, which no write of this resource can (decisions.md).
 */
export function ifMatchRevision(request: FastifyRequest): bigint | undefined {
  const header = request.headers["if-match"];
  if (header === undefined) return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,18})(?:-[A-Za-z0-9_-]{1,64})?"\s*$/.exec(String(header));
  if (!match)
    throw new ApiError("PreconditionFailed", 'If-Match must be an ETag this API issued, like W/"3"');
  return BigInt(match[1]);
}
