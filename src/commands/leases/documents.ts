import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import { cleanFilename, decideContentType, MAX_MEDIA_BYTES } from "../../platform/blobs/uploads.ts";
import { ApiError, type ErrorDetail, unsupportedMediaType, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { documentBody, documentParams, leaseParams, readDocument } from "../../queries/leases.ts";
import { handleLease } from "./routes.ts";
import { documentFields, updateDocumentSchema } from "./schemas.ts";

/** Lease documents (DESIGN.md §6 Leases): multipart upload, bytes in the blob store, metadata in the lease's stream. */

const tags = ["Leases"];
const fieldsSchema = z.strictObject(documentFields);

interface Upload {
  fields: Record<string, string>;
  bytes: Buffer;
  filename: string | undefined;
  mimetype: string | undefined;
}

/** Reads the parts: `document_type`, `description` and one `file` (20 MiB: 413 beyond, read no further). */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) throw unsupportedMediaType("Expected multipart/form-data");
  const fields: Record<string, string> = {};
  let file: Omit<Upload, "fields"> | null = null;
  const details: ErrorDetail[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_MEDIA_BYTES } })) {
      if (part.type === "file") {
        const bytes = await part.toBuffer();
        if (part.fieldname === "file" && !file)
          file = { bytes, filename: part.filename, mimetype: part.mimetype };
        else details.push({ field: part.fieldname, message: "Unknown file field" });
      } else if (part.fieldname === "document_type" || part.fieldname === "description") {
        fields[part.fieldname] = String(part.value);
      } else details.push({ field: part.fieldname, message: "Unknown field" });
    }
  } catch (error) {
    const status = (error as { statusCode?: unknown })?.statusCode;
    if (error instanceof ApiError || (typeof status === "number" && status < 500)) throw error;
    throw validationError("Malformed multipart body", [
      { field: "body", message: String((error as Error)?.message) },
    ]);
  }
  if (!file) details.push({ field: "file", message: "A file is required" });
  else if (file.bytes.byteLength === 0) details.push({ field: "file", message: "The file is empty" });
  const parsed = fieldsSchema.safeParse(fields);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      details.push({ field: issue.path.join("."), message: issue.message });
  if (details.length > 0 || !file) throw validationError("Invalid lease document", details);
  return { fields, ...file };
}

export async function leaseDocumentRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/leases/:lease_id/documents",
    {
      schema: {
        tags,
        summary: "Upload a lease document (multipart: document_type, description, file; 20 MiB)",
        params: leaseParams,
        response: createdAnswers(documentBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const upload = await readUpload(request);
      const decision = decideContentType(upload.mimetype, upload.bytes);
      if (!decision.ok) throw unsupportedMediaType(decision.message);
      const document_id = randomUUID();
      const key = blobKey(tenantId, "lease-documents", document_id);
      const blobs = blobStoreFor(sql);
      // Bytes first, then the event: a refused or failed append removes the unreferenced bytes.
      const stored = await blobs.putBlob(key, upload.bytes, { content_type: decision.content_type });
      const result = await handleLease(request, lease_id, () => ({
        type: "AddLeaseDocument",
        lease_id,
        document: {
          lease_id,
          document_id,
          document_type: upload.fields.document_type.trim(),
          description: upload.fields.description?.trim() || null,
          filename: cleanFilename(upload.filename, decision.content_type),
          content_type: decision.content_type,
          size: stored.size,
          sha256: stored.sha256,
          blob_key: key,
        },
      })).catch(async (error: unknown) => {
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

  api.put(
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
        input: request.body,
      }));
      return replyWithResource(request, reply, 200, {
        id: document_id,
        ...result,
        read: () => readDocument(sql, tenantOf(request), lease_id, document_id),
      });
    },
  );

  api.delete(
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
