import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { MEDIA_CONTENT_TYPES, mediaFold, mediaStream } from "../events/media.ts";
import { blobStoreFor } from "../platform/blobs/index.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { stateOf } from "../platform/http/handleCommand.ts";
import { answers, fileBytes, timestamp } from "../platform/http/responses.ts";
import { id } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";

/** GET routes of the Media area: metadata from the `media` read model, bytes from the blob store. */

/** A media's metadata as the API shows it (the bytes are at .../file). */
export const mediaBody = z.strictObject({
  id,
  filename: z.string(),
  content_type: z.enum(MEDIA_CONTENT_TYPES),
  size: z.number().int(),
  sha256: z.string(),
  created_at: timestamp,
});

export function toMediaResponse(row: Row): Record<string, unknown> {
  return {
    id: row.id,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    created_at: iso(row.created_at),
  };
}

export async function findMediaRow(sql: Sql, tenantId: string, mediaId: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT id, filename, content_type, size, sha256, blob_key, created_at, revision
       FROM media WHERE tenant_id = $1 AND id = $2`,
      [tenantId, mediaId],
    ),
  );
  return row ?? null;
}

/** RFC 6266: an ASCII fallback name and the exact name in UTF-8. */
export function contentDisposition(kind: "attachment" | "inline", filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

const tag = { tags: ["Media"] };
const idParams = z.strictObject({ id });

export async function mediaQueryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;

  app.get(
    "/api/media/:id",
    {
      schema: { ...tag, params: idParams, response: answers(mediaBody) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { id: mediaId } = request.params as { id: string };
      const row = await findMediaRow(sql, tenantOf(request), mediaId);
      if (!row) throw notFound("Media", mediaId);
      setEtag(reply, Number(row.revision));
      return toMediaResponse(row);
    },
  );

  app.get(
    "/api/media/:id/file",
    {
      schema: { ...tag, params: idParams, response: answers(fileBytes) },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { id: mediaId } = request.params as { id: string };
      const row = await findMediaRow(sql, tenantOf(request), mediaId);
      if (!row) throw notFound("Media", mediaId);
      const blob = await blobStoreFor(sql).getBlob(String(row.blob_key));
      if (!blob) throw notFound("Media", mediaId);
      return reply
        .header("content-type", String(row.content_type))
        .header("content-length", String(blob.bytes.byteLength))
        .header("content-disposition", contentDisposition("attachment", String(row.filename)))
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "private, max-age=31536000, immutable")
        .header("etag", `"${row.sha256}"`)
        .send(blob.bytes);
    },
  );
}

/** Fact for other areas' commands, from the stream (not a read model that may lag). */
export const mediaRecorded = async (request: FastifyRequest, id: string) =>
  (await stateOf(request, mediaStream(id), mediaFold)).status === "uploaded";
