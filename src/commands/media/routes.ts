import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { mediaStream } from "../../events/media.ts";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import { cleanFilename, decideContentType, MAX_MEDIA_BYTES } from "../../platform/blobs/uploads.ts";
import { ApiError, notFound, unsupportedMediaType, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { honourIdempotencyKey } from "../../platform/http/idempotency.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { createdAnswers } from "../../platform/http/responses.ts";
import { findMediaRow, mediaBody, toMediaResponse } from "../../queries/media.ts";
import { mediaDecider } from "./decider.ts";

/** POST /api/media: multipart upload of one `file` part (PDF, JPEG, PNG, GIF, WebP; 20 MiB). */

interface Upload {
  bytes: Buffer;
  filename: string | undefined;
  mimetype: string | undefined;
}

/** Reads every part: exactly one file in the field `file`, no other fields. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) throw unsupportedMediaType("Expected multipart/form-data with a file field");
  let upload: Upload | null = null;
  const unknown: string[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_MEDIA_BYTES } })) {
      if (part.type === "file") {
        // Throws FST_REQ_FILE_TOO_LARGE (413) past the limit; the stream must be drained either way.
        const bytes = await part.toBuffer();
        if (part.fieldname === "file" && !upload)
          upload = { bytes, filename: part.filename, mimetype: part.mimetype };
        else unknown.push(part.fieldname);
      } else {
        unknown.push(part.fieldname);
      }
    }
  } catch (error) {
    // The multipart plugin's own errors carry a status (413 and the like); the parser's
    // ("Boundary not found", "Unexpected end of form") do not: they are the client's malformed body.
    const status = (error as { statusCode?: unknown })?.statusCode;
    if (error instanceof ApiError || (typeof status === "number" && status < 500)) throw error;
    throw validationError("Malformed multipart body", [
      { field: "body", message: String((error as Error)?.message) },
    ]);
  }
  const details = unknown.map((field) => ({ field, message: "Unknown field" }));
  if (!upload) details.push({ field: "file", message: "A file is required" });
  else if (upload.bytes.byteLength === 0) details.push({ field: "file", message: "The file is empty" });
  if (details.length > 0 || !upload) throw validationError("Invalid upload", details);
  return upload;
}

export async function mediaCommandRoutes(app: FastifyInstance) {
  app.post(
    "/api/media",
    {
      schema: {
        tags: ["Media"],
        summary:
          "Upload a file (multipart/form-data, field `file`): PDF, JPEG, PNG, GIF or WebP, at most 20 MiB",
        ...uploadBody(),
        response: createdAnswers(mediaBody),
      },
      config: { access: "PropertiesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const upload = await readUpload(request);
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
          mediaStream(mediaId),
          mediaDecider,
          {
            type: "RecordMediaUpload",
            media: {
              media_id: mediaId,
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
        read: async () => {
          const row = await findMediaRow(sql, tenantId, mediaId);
          return row ? toMediaResponse(row) : null;
        },
      });
    },
  );
}
