import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { mediaResource } from "../events/media.ts";
import { blobStoreFor } from "../platform/blobs/index.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { answers, fileBytes } from "../platform/http/responses.ts";
import { id } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { resourceRecorded } from "../platform/resource/read.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";

/** A media's row with its hidden `blob_key`, for the areas that read its bytes. */
export async function findMediaRow(sql: Sql, tenantId: string, mediaId: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT * FROM media WHERE tenant_id = $1 AND id = $2", [tenantId, mediaId]),
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

/** GET /api/media/{media_id}: the metadata, from the `media` read model (the kit). */
export const mediaQueries = resourceQueryRoutes(mediaResource);

/** GET /api/media/{media_id}/file: the bytes, from the blob store. */
export async function mediaFileRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.get(
    "/api/media/:media_id/file",
    {
      schema: {
        tags: ["Media"],
        summary: "Download a media's bytes",
        params: z.strictObject({ media_id: id }),
        response: answers(fileBytes),
      },
      config: { access: "PropertiesRead" },
    },
    async (request, reply) => {
      const { media_id: mediaId } = request.params as { media_id: string };
      const row = await findMediaRow(sql, tenantOf(request), mediaId);
      const blob = row && (await blobStoreFor(sql).getBlob(String(row.blob_key)));
      if (!row || !blob) throw notFound("Media", mediaId);
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
export const mediaRecorded = (request: FastifyRequest, id: string) =>
  resourceRecorded(request, mediaResource, id);
