import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leaseStream } from "../../events/leases.ts";
import { type AnnexCategory, type AnnexData, leaseSigningStream } from "../../events/signing.ts";
import { ANNEX_CODES, type AnnexCode } from "../../law/annexes.ts";
import { legalToday } from "../../law/calendar.ts";
import { type BlobStore, blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
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
  conflict,
  type ErrorDetail,
  notFound,
  unsupportedMediaType,
  validationError,
} from "../../platform/errors.ts";
import { certainlyUnwritten } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { isoDate } from "../../platform/http/schemas.ts";
import { leaseParams } from "../../queries/leases.ts";
import {
  annexBody,
  catalogEntry,
  estateRecords,
  listAnnexRows,
  readAnnex,
  signingFacts,
  toAnnex,
} from "../../queries/signing.ts";
import { signingDecider } from "./decider.ts";

/**
 * Attaching annexes (docs/signing.md, "Annexes"): a catalog entry by its code (the shipped notice,
 * the estate's DPE or diagnostics), an upload (multipart), or every mandatory one the estate's
 * records allow at once. Annexes are fixed while a signature is in progress.
 */

const tags = ["Signing"];
const write = { access: "LeasesWrite" as const, invalidBodyMessage: "Invalid annex" };

const catalogBody = z.strictObject({ catalog_code: z.enum(ANNEX_CODES) }).meta({ id: "AnnexFromCatalog" });
const uploadFields = z.strictObject({
  catalog_code: z.enum(ANNEX_CODES).describe("The catalog entry the file is (OTHER for any other annex)"),
  document_date: isoDate.optional().describe("The day the document was made (its validity runs from it)"),
  valid_until: isoDate.optional().describe("The end of validity the document states, if any"),
  negative: z.enum(["true", "false"]).optional().describe("A CREP finding no lead: valid without limit"),
});
const FIELD_NAMES = new Set(Object.keys(uploadFields.shape));

/** Which estate diagnostic type each GENERATED annex links (the DPE has its own area). */
const DIAGNOSTIC_OF: Partial<Record<AnnexCode, string>> = {
  ERP: "risk_assessment",
  CREP: "lead",
  ELECTRICITY: "electrical",
  GAS: "gas",
  ASBESTOS_DAPP: "asbestos",
  COPROPERTY_EXTRACTS: "coownership_rules",
};

type Records = Awaited<ReturnType<typeof estateRecords>>;

/** The record a GENERATED catalog entry links: the estate's DPE or its diagnostic of that kind. */
function recordOf(code: AnnexCode, records: Records) {
  if (code === "DPE") return records.dpe;
  const type = DIAGNOSTIC_OF[code];
  return (type && records.diagnostics.find((d) => d.type === type)) || null;
}

/**
 * The annex a GENERATED or STATIC_FILE catalog entry makes from the estate's records, binding the
 * file uploaded with the record (its `media_id`); null: no record, or a record without its file
 * (a missing annex: no summary stands in for the diagnostic itself, loi n° 89-462 art. 3-3).
 */
function linkedAnnex(
  code: AnnexCode,
  entry: { title: string; category: AnnexCategory },
  leaseId: string,
  records: Records,
): AnnexData | null {
  const base = {
    lease_id: leaseId,
    annex_id: randomUUID(),
    code,
    category: entry.category,
    title: entry.title,
    negative: null,
  };
  if (entry.category === "STATIC_FILE")
    return {
      ...base,
      source: "CATALOG",
      source_id: null,
      document_date: null,
      valid_until: null,
      file: null,
    };
  const found = recordOf(code, records);
  if (!found?.file) return null;
  return {
    ...base,
    source: code === "DPE" ? "DPE" : "ESTATE_DIAGNOSTIC",
    source_id: found.id,
    document_date: found.diagnosis_date,
    valid_until: found.valid_until,
    // A lead report without an end of validity is a negative one (code de la santé publique art. L1334-7).
    negative: code === "CREP" ? found.valid_until === null : null,
    file: found.file,
  };
}

interface Upload {
  fields: z.output<typeof uploadFields>;
  stored: { content_type: string; size: number; sha256: string };
  filename: string | undefined;
}

/** The multipart body: the fields and one `file`, streamed to the blob store (as lease documents). */
async function readUpload(request: FastifyRequest, blobs: BlobStore, key: string): Promise<Upload> {
  const fields: Record<string, string> = {};
  let file: Omit<Upload, "fields"> | null = null;
  const details: ErrorDetail[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_MEDIA_BYTES } })) {
      if (part.type === "file") {
        if (part.fieldname !== "file" || file) {
          details.push({ field: part.fieldname, message: "Unknown file field" });
          for await (const _ of withinLimit(part.file));
          continue;
        }
        const { head, chunks } = await peekBytes(withinLimit(part.file), SNIFF_BYTES);
        if (head.byteLength === 0) {
          details.push({ field: "file", message: "The file is empty" });
          continue;
        }
        const decision = decideContentType(part.mimetype, head);
        if (!decision.ok) throw unsupportedMediaType(decision.message);
        const stored = await blobs.putBlobStream(key, chunks, { content_type: decision.content_type });
        file = { stored, filename: part.filename };
      } else if (FIELD_NAMES.has(part.fieldname)) fields[part.fieldname] = String(part.value);
      else details.push({ field: part.fieldname, message: "Unknown field" });
    }
    if (!file && !details.some((d) => d.field === "file"))
      details.push({ field: "file", message: "A file is required" });
    const parsed = uploadFields.safeParse(fields);
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        details.push({ field: issue.path.join(".") || "body", message: issue.message });
    if (details.length > 0 || !file || !parsed.success) throw validationError("Invalid annex", details);
    return { fields: parsed.data, ...file };
  } catch (error) {
    await blobs.deleteBlob(key).catch(() => {});
    const status = (error as { statusCode?: unknown })?.statusCode;
    if (error instanceof ApiError || (typeof status === "number" && status < 500)) throw error;
    throw validationError("Malformed multipart body", [
      { field: "body", message: String((error as Error)?.message) },
    ]);
  }
}

async function requireLeaseStream(request: FastifyRequest, leaseId: string) {
  const [first] = await request.server.platform.store.readStream(leaseStream(leaseId), { max_count: 1 });
  if (!first || first.metadata.tenant_id !== tenantOf(request)) throw notFound("Lease", leaseId);
}

const attach = (request: FastifyRequest, leaseId: string, annex: AnnexData) =>
  handleCommand(request, leaseSigningStream(leaseId), signingDecider(leaseId), {
    type: "AttachAnnex",
    annex,
  });

export async function annexCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/leases/:lease_id/annexes",
    {
      schema: {
        tags,
        summary:
          "Attach an annex: JSON {catalog_code} for the notice, the DPE and the estate's diagnostics; multipart (catalog_code, document_date, valid_until, negative, file; 20 MiB) for an upload",
        ...uploadBody(uploadFields),
        params: leaseParams,
        response: createdAnswers(annexBody),
      },
      config: write,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      await requireLeaseStream(request, lease_id);
      let annex: AnnexData;
      let cleanup: (() => Promise<unknown>) | null = null;
      if (request.isMultipart()) {
        const annex_id = randomUUID();
        const key = blobKey(tenantId, "lease-annexes", annex_id);
        const blobs = blobStoreFor(sql);
        const upload = await readUpload(request, blobs, key);
        const code = upload.fields.catalog_code;
        const entry = await catalogEntry(sql, code);
        // Any entry, the notice too: its official text uploaded binds that file instead of the
        // service's summary (docs/decisions.md).
        if (!entry) {
          await blobs.deleteBlob(key);
          throw validationError("Invalid annex", [{ field: "catalog_code", message: "Unknown code" }]);
        }
        cleanup = () => blobs.deleteBlob(key);
        annex = {
          lease_id,
          annex_id,
          code,
          category: "USER_UPLOAD",
          title: String(entry.title),
          source: "UPLOAD",
          source_id: null,
          document_date: upload.fields.document_date ?? null,
          valid_until: upload.fields.valid_until ?? null,
          negative: upload.fields.negative === undefined ? null : upload.fields.negative === "true",
          file: {
            filename: cleanFilename(upload.filename, upload.stored.content_type as MediaContentType),
            content_type: upload.stored.content_type,
            size: upload.stored.size,
            sha256: upload.stored.sha256,
            blob_key: key,
          },
        };
      } else {
        const parsed = catalogBody.safeParse(request.body ?? {});
        if (!parsed.success)
          throw validationError(
            "Invalid annex",
            parsed.error.issues.map((i) => ({ field: i.path.join(".") || "body", message: i.message })),
          );
        const code = parsed.data.catalog_code;
        const entry = await catalogEntry(sql, code);
        if (!entry)
          throw validationError("Invalid annex", [{ field: "catalog_code", message: "Unknown code" }]);
        const category = entry.category as AnnexCategory;
        if (category === "USER_UPLOAD")
          throw validationError("Invalid annex", [
            { field: "catalog_code", message: `${code} is uploaded: send multipart/form-data with a file` },
          ]);
        const facts = await signingFacts(sql, tenantId, lease_id);
        if (!facts) throw notFound("Lease", lease_id);
        const records = await estateRecords(sql, tenantId, facts.estate_id, legalToday());
        const linked = linkedAnnex(code, { title: String(entry.title), category }, lease_id, records);
        if (!linked) {
          const what = code === "DPE" ? "DPE valid today" : `active ${DIAGNOSTIC_OF[code]} diagnostic`;
          throw conflict(
            recordOf(code, records)
              ? `The estate's ${what} has no file: record it with its media_id, or upload the document itself`
              : `The estate has no ${what} to attach; record it first or upload the document`,
          );
        }
        annex = linked;
      }
      const result = await attach(request, lease_id, annex).catch(async (error: unknown) => {
        if (cleanup && (error instanceof ApiError || certainlyUnwritten(error)))
          await cleanup().catch(() => {});
        throw error;
      });
      return replyWithResource(request, reply, 201, {
        id: annex.annex_id,
        position: result.position,
        location: `/api/leases/${lease_id}/annexes/${annex.annex_id}`,
        read: () => readAnnex(sql, tenantId, lease_id, annex.annex_id),
      });
    },
  );

  api.post(
    "/api/leases/:lease_id/annexes/attach-mandatory",
    {
      schema: {
        tags,
        summary:
          "Attach every mandatory annex the catalog and the estate's records allow (the notice, the DPE, the estate's diagnostics) not attached yet",
        params: leaseParams,
        response: updatedAnswers(z.array(annexBody)),
      },
      config: write,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const facts = await signingFacts(sql, tenantId, lease_id);
      if (!facts) throw notFound("Lease", lease_id);
      const [records, catalog, attached] = await Promise.all([
        estateRecords(sql, tenantId, facts.estate_id, legalToday()),
        sql.query<{ code: AnnexCode; title: string; category: AnnexCategory }>(
          "SELECT code, title, category FROM annex_catalog WHERE category <> 'USER_UPLOAD' OR code = 'COPROPERTY_EXTRACTS' ORDER BY position",
        ),
        listAnnexRows(sql, tenantId, lease_id),
      ]);
      const linkedAlready = new Set(attached.map((r) => String(r.source_id ?? r.code)));
      const annexes = catalog
        .map((entry) => linkedAnnex(entry.code, entry, lease_id, records))
        .filter((a): a is AnnexData => a !== null && !linkedAlready.has(a.source_id ?? a.code));
      let position = null;
      for (const annex of annexes) position = (await attach(request, lease_id, annex)).position;
      const ids = new Set(annexes.map((a) => a.annex_id));
      // Read-your-writes: the annexes this call attached (none when everything was there).
      return replyAfterProjection(request, reply, {
        position,
        status: 200,
        read: async () =>
          (await listAnnexRows(sql, tenantId, lease_id)).filter((r) => ids.has(String(r.id))).map(toAnnex),
      });
    },
  );
}
