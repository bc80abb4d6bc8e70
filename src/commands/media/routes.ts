import { createHash } from "node:crypto";
import { mediaResource } from "../../events/media.ts";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import { readOneFile } from "../../platform/blobs/readOneFile.ts";
import { cleanFilename, decideContentType } from "../../platform/blobs/uploads.ts";
import { unsupportedMediaType } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { honourIdempotencyKey } from "../../platform/http/idempotency.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { mediaDecider } from "./decider.ts";

/** POST /api/media: multipart upload of one `file` part (PDF, JPEG, PNG, GIF, WebP; 20 MiB). */
export const mediaCommandRoutes = resourceCommandRoutes(mediaResource, mediaDecider, {
  upload: {
    body: uploadBody(),
    async create(request, reply, id, record) {
      const upload = await readOneFile(request);
      // Idempotency-Key as on every POST (docs/design.md §4): the same file under the same key replays.
      const sha256 = createHash("sha256").update(upload.bytes).digest("hex");
      const fingerprint = `${upload.filename}\u0000${upload.mimetype}\u0000${sha256}`;
      if (await honourIdempotencyKey(request, reply, fingerprint)) return null;
      const decision = decideContentType(upload.mimetype, upload.bytes);
      if (!decision.ok) throw unsupportedMediaType(decision.message);
      const { content_type } = decision;
      const key = blobKey(tenantOf(request), "media", id);
      const blobs = blobStoreFor(request.server.platform.sql);
      // Bytes first: a failed append leaves no blob behind, never an event pointing at missing bytes.
      const stored = await blobs.putBlob(key, upload.bytes, { content_type });
      const input = { filename: cleanFilename(upload.filename, content_type), content_type, blob_key: key };
      try {
        return await record({ ...input, size: stored.size, sha256: stored.sha256 });
      } catch (error) {
        await blobs.deleteBlob(key).catch(() => {});
        throw error;
      }
    },
  },
});
