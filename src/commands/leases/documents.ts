import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leaseStream } from "../../events/leases.ts";
import { type BlobInfo, type BlobStore, blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import {
  cleanFilename,
  decideContentType,
  MAX_MEDIA_BYTES,
  type MediaContentType,
  peekBytes,
  SNIFF_BYTES,
  withinLimit,
} from "../../platform/blobs/uploads.ts";
import {
  ApiError,
  type ErrorDetail,
  notFound,
  unsupportedMediaType,
  validationError,
} from "../../platform/errors.ts";
import { certainlyUnwritten } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { documentBody, documentParams, leaseParams, readDocument } from "../../queries/leases.ts";
import { documentFields } from "../../queries/leasesSchemas.ts";
import { documentChangesOf } from "./bodies.ts";
import { handleLease } from "./handleLease.ts";
import { updateDocumentSchema } from "./schemas.ts";

/** Lease documents (docs/design.md §6 Leases): multipart upload, bytes in the blob store, metadata in the lease's stream. */

const tags = ["Leases"];
/** The upload's fields; `amendment_id` attaches the document to one of the lease's amendments (issue 24). */
const fieldsSchema = z.strictObject({ ...documentFields, amendment_id: uuid().optional() });
const FIELD_NAMES = new Set(Object.keys(fieldsSchema.shape));

interface Upload {
  fields: Record<string, string>;
  stored: BlobInfo;
  filename: string | undefined;
}

/**
 * Reads the parts: `document_type`, `description` and one `file`, streamed to the blob store under
 * `key` as it arrives (sha256 and size computed on the way, the type sniffed from the first bytes:
 * 415 before anything is stored). Over 20 MiB the parser stops reading and this answers 413; any
 * refusal removes what was stored (docs/leases.md, Documents).
 */
async function readUpload(request: FastifyRequest, blobs: BlobStore, key: string): Promise<Upload> {
  if (!request.isMultipart()) throw unsupportedMediaType("Expected multipart/form-data");
  const fields: Record<string, string> = {};
  let file: Omit<Upload, "fields"> | null = null;
  let empty = false;
  const details: ErrorDetail[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_MEDIA_BYTES } })) {
      if (part.type === "file") {
        if (part.fieldname !== "file" || file || empty) {
          details.push({ field: part.fieldname, message: "Unknown file field" });
          for await (const _ of withinLimit(part.file)); // read past it, within the limit
          continue;
        }
        const { head, chunks } = await peekBytes(withinLimit(part.file), SNIFF_BYTES);
        if (head.byteLength === 0) {
          empty = true;
          continue;
        }
        const decision = decideContentType(part.mimetype, head);
        if (!decision.ok) throw unsupportedMediaType(decision.message);
        const stored = await blobs.putBlobStream(key, chunks, { content_type: decision.content_type });
        file = { stored, filename: part.filename };
      } else if (FIELD_NAMES.has(part.fieldname)) {
        fields[part.fieldname] = String(part.value);
      } else details.push({ field: part.fieldname, message: "Unknown field" });
    }
    if (!file) details.push({ field: "file", message: empty ? "The file is empty" : "A file is required" });
    const parsed = fieldsSchema.safeParse(fields);
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        details.push({ field: issue.path.join("."), message: issue.message });
    if (details.length > 0 || !file) throw validationError("Invalid lease document", details);
    return { fields, ...file };
  } catch (error) {
    await blobs.deleteBlob(key).catch(() => {});
    const status = (error as { statusCode?: unknown })?.statusCode;
    if (error instanceof ApiError || (typeof status === "number" && status < 500)) throw error;
    throw validationError("Malformed multipart body", [
      { field: "body", message: String((error as Error)?.message) },
    ]);
  }
}

/** The upload as the document the decider adds (its fields trimmed, its name cleaned). */
function uploadedDocument(upload: Upload, ids: { lease_id: string; document_id: string }, key: string) {
  const { stored, fields } = upload;
  return {
    ...ids,
    document_type: fields.document_type.trim(),
    description: fields.description?.trim() || null,
    filename: cleanFilename(upload.filename, stored.content_type as MediaContentType),
    content_type: stored.content_type,
    size: stored.size,
    sha256: stored.sha256,
    blob_key: key,
    // Absent, not null, when none: the event keeps the shape documents had before amendments.
    ...(fields.amendment_id ? { amendment_id: fields.amendment_id.toLowerCase() } : {}),
  };
}

function uploadRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/leases/:lease_id/documents",
    {
      schema: {
        tags,
        summary:
          "Upload a lease document (multipart: document_type, description, amendment_id, file; 20 MiB)",
        ...uploadBody(fieldsSchema),
        params: leaseParams,
        response: createdAnswers(documentBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const document_id = randomUUID();
      const key = blobKey(tenantId, "lease-documents", document_id);
      const blobs = blobStoreFor(sql);
      // An unknown or foreign lease is refused before a byte is stored.
      const [first] = await app.platform.store.readStream(leaseStream(lease_id), { max_count: 1 });
      if (!first || first.metadata.tenant_id !== tenantId) throw notFound("Lease", lease_id);
      // Bytes first, then the event: a refused or failed append removes the unreferenced bytes.
      const upload = await readUpload(request, blobs, key);
      const document = uploadedDocument(upload, { lease_id, document_id }, key);
      const result = await handleLease(request, lease_id, () => ({
        type: "AddLeaseDocument",
        lease_id,
        document,
      })).catch(async (error: unknown) => {
        // Only bytes no event can reference go: a write whose outcome is unknown may have committed.
        if (error instanceof ApiError || certainlyUnwritten(error))
          await blobs.deleteBlob(key).catch(() => {});
        throw error;
      });
      return replyWithResource(request, reply, 201, {
        id: document_id,
        ...result,
        location: `/api/leases/${lease_id}/documents/${document_id}`,
        read: () => readDocument(sql, tenantId, lease_id, document_id),
      });
    },
  );
}

function updateRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().put(
    "/api/leases/:lease_id/documents/:document_id",
    {
      schema: {
        tags,
        summary: "Update a lease document's metadata",
        params: documentParams,
        body: updateDocumentSchema,
        response: updatedAnswers(documentBody),
      },
      config: { access: "LeasesWrite", invalidBodyMessage: "Invalid lease document" },
    },
    async (request, reply) => {
      const { lease_id, document_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "UpdateLeaseDocument",
        lease_id,
        document_id,
        changes: documentChangesOf(request.body),
      }));
      return replyWithResource(request, reply, 200, {
        id: document_id,
        ...result,
        read: () => readDocument(app.platform.sql, tenantOf(request), lease_id, document_id),
      });
    },
  );
}

function deleteRoute(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().delete(
    "/api/leases/:lease_id/documents/:document_id",
    {
      schema: {
        tags,
        summary: "Delete a lease document (its events stay in the lease's history)",
        params: documentParams,
        response: deletedAnswers,
      },
      config: { access: "LeasesDelete" },
    },
    async (request, reply) => {
      const { lease_id, document_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "DeleteLeaseDocument",
        lease_id,
        document_id,
      }));
      return replyWithResource(request, reply, 204, { id: document_id, position: result.position });
    },
  );
}

export async function leaseDocumentRoutes(app: FastifyInstance): Promise<void> {
  uploadRoute(app);
  updateRoute(app);
  deleteRoute(app);
}
