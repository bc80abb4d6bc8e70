import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { mediaResource } from "../../events/media.ts";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import { readOneFile } from "../../platform/blobs/readOneFile.ts";
import { cleanFilename, decideContentType } from "../../platform/blobs/uploads.ts";
import { notFound, unsupportedMediaType } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { honourIdempotencyKey } from "../../platform/http/idempotency.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { createdAnswers } from "../../platform/http/responses.ts";
import { readResource } from "../../platform/resource/read.ts";
import { mediaDecider } from "./decider.ts";

/** POST /api/media: multipart upload of one `file` part (PDF, JPEG, PNG, GIF, WebP; 20 MiB). */

export async function mediaCommandRoutes(app: FastifyInstance) {
  app.post(
    "/api/media",
    {
      schema: {
        tags: ["Media"],
        summary:
          "Upload a file (multipart/form-data, field `file`): PDF, JPEG, PNG, GIF or WebP, at most 20 MiB",
        ...uploadBody(),
        response: createdAnswers(mediaResource.body),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const upload = await readOneFile(request);
      // Idempotency-Key as on every POST (DESIGN.md §4): the same file under the same key replays.
      const sha256 = createHash("sha256").update(upload.bytes).digest("hex");
      if (
        await honourIdempotencyKey(
          request,
          reply,
          `${upload.filename}\u0000${upload.mimetype}\u0000${sha256}`,
        )
      )
        return reply;
      const decision = decideContentType(upload.mimetype, upload.bytes);
      if (!decision.ok) throw unsupportedMediaType(decision.message);
      const mediaId = newResourceId(request);
      const key = blobKey(tenantId, "media", mediaId);
      const { sql } = request.server.platform;
      const blobs = blobStoreFor(sql);
      // Bytes first, then the event: a failed append leaves an unreferenced blob, never an event
      // pointing at missing bytes.
      const stored = await blobs.putBlob(key, upload.bytes, { content_type: decision.content_type });
      const record = () =>
        handleCommand(
          request,
          mediaResource.stream(mediaId),
          mediaDecider,
          {
            type: "RecordMediaUpload",
            media_id: mediaId,
            input: {
              filename: cleanFilename(upload.filename, decision.content_type),
              content_type: decision.content_type,
              size: stored.size,
              sha256: stored.sha256,
              blob_key: key,
            },
          },
          { notFound: () => notFound("Media", mediaId) },
        );
      const result = await record().catch(async (error: unknown) => {
        await blobs.deleteBlob(key).catch(() => {});
        throw error;
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: mediaId,
        location: `/api/media/${mediaId}`,
        revision: result.revision,
        read: async () => (await readResource(sql, mediaResource, tenantId, mediaId))?.body ?? null,
      });
    },
  );
}
