import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { blobStoreFor } from "../platform/blobs/index.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { answers, fileBytes, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import { renderCacheStats } from "../platform/pdf/renderCache.ts";
import { subjectOf } from "../platform/personalData/erasure.ts";
import type { Row } from "../platform/projections/projection.ts";
import { leaseParams, readLease } from "./leases.ts";
import { ensureOwnLease, lesseeOf } from "./lesseeSpace.ts";
import { contentDisposition } from "./media.ts";
import type { Found } from "./places.ts";

/** GET routes of generated lease contract PDFs (docs/pdf.md), from the `lease_pdfs` read model. */

/** The render cache's kind for lease contracts (src/platform/pdf/renderCache.ts). */
export const LEASE_CONTRACT_CACHE = "lease-contract";

const tags = ["Leases"];
const read = { access: "LeasesRead" as const };

export const leasePdfParams = z.strictObject({ pdf_id: uuid() });

export const leasePdfBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    template: z.string(),
    template_version: z.string(),
    lease_revision: z.number().int(),
    filename: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    created_at: timestamp,
  })
  .meta({ id: "LeasePdf" });

const cacheStatsBody = z.strictObject({
  entries: z.number().int(),
  bytes: z.number().int(),
  hits: z.number().int(),
  misses: z.number().int(),
});

const COLUMNS =
  "id, lease_id, template, template_version, lease_revision, filename, size, sha256, blob_key, revision, created_at";

const toLeasePdf = (r: Row) => ({
  id: String(r.id),
  lease_id: String(r.lease_id),
  template: String(r.template),
  template_version: String(r.template_version),
  lease_revision: Number(r.lease_revision),
  filename: String(r.filename),
  size: Number(r.size),
  sha256: String(r.sha256),
  created_at: iso(r.created_at),
});

async function findLeasePdf(sql: Sql, tenantId: string, id: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${COLUMNS} FROM lease_pdfs WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ?? null;
}

/**
 * The lease's oldest PDF record printing this very contract (same lease revision, template
 * version and contract hash), if one is still present: `POST .../pdf` answers it instead of
 * making a copy (docs/pdf.md, "Same contract, same record").
 */
/**
 * The oldest of a lease revision's PDF records (rows as jsonb, from the contract's facts) made
 * from the same contract, or null.
 */
export function sameLeasePdf(records: Row[], contractSha256: string): (Found & { id: string }) | null {
  const row = records.find((r) => r.contract_sha256 === contractSha256);
  return row ? { id: String(row.id), body: toLeasePdf(row), revision: Number(row.revision) } : null;
}

/**
 * The contract PDFs that print a data subject, and their leases: those of the leases a lessee
 * (`lessee-<id>`) is or was party to; those naming an owner (`owner-<id>`) as lessor, as each PDF
 * records it, and for PDFs made before it was recorded, those of the estates the owner owns or
 * owned before its last transfer. A lease signed after a sale keeps its PDFs when the seller is
 * erased. The leases area's part of an erasure.
 */
export async function leasePdfsNaming(sql: Sql, tenantId: string, dataSubject: string) {
  const { kind, id } = subjectOf(dataSubject);
  if (kind !== "lessee" && kind !== "owner") return { pdfs: [], lease_ids: [] };
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ pdfs: { id: string; lease_id: string }[]; lease_ids: string[] }>(
      `WITH named AS (
         SELECT lease_id FROM lease_lessees WHERE tenant_id = $1 AND lessee_id = $2 AND $3 = 'lessee'
         UNION
         SELECT l.id FROM leases l JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
          WHERE l.tenant_id = $1 AND $3 = 'owner' AND (e.owner_id = $2 OR e.previous_owner_id = $2))
       , pdfs AS (
         SELECT p.id, p.lease_id FROM lease_pdfs p
          WHERE p.tenant_id = $1
            AND CASE WHEN $3 = 'owner' AND p.owner_recorded THEN p.owner_id = $2
                     ELSE p.lease_id IN (SELECT lease_id FROM named) END)
       SELECT coalesce((SELECT json_agg(json_build_object('id', id, 'lease_id', lease_id) ORDER BY id)
                          FROM pdfs), '[]') AS pdfs,
              coalesce((SELECT array_agg(lease_id::text)
                          FROM (SELECT lease_id FROM named UNION SELECT lease_id FROM pdfs) l), '{}') AS lease_ids`,
      [tenantId, id, kind],
    ),
  );
  return row;
}

/**
 * Erased lessees and owners (their key destroyed: `personal_data_keys` outlives a deletion) whose
 * leases' contract PDFs are still held (kept while the lease needed them): the retention job
 * erases them again (src/platform/personalData/erasure.ts).
 */
export async function leasePdfKeptMentions(sql: Sql, tenantId: string | null) {
  return sql.query<{ tenant_id: string; data_subject: string }>(
    `SELECT p.tenant_id, k.subject AS data_subject
       FROM lease_pdfs p
       JOIN lease_lessees ll ON ll.tenant_id = p.tenant_id AND ll.lease_id = p.lease_id
       JOIN personal_data_keys k ON k.tenant_id = p.tenant_id AND k.subject = 'lessee-' || ll.lessee_id
      WHERE k.destroyed_at IS NOT NULL AND ($1::uuid IS NULL OR p.tenant_id = $1)
     UNION
     SELECT p.tenant_id, k.subject
       FROM lease_pdfs p
       JOIN personal_data_keys k ON k.tenant_id = p.tenant_id AND k.subject = 'owner-' || p.owner_id
      WHERE p.owner_recorded AND k.destroyed_at IS NOT NULL AND ($1::uuid IS NULL OR p.tenant_id = $1)
     UNION
     SELECT p.tenant_id, k.subject
       FROM lease_pdfs p
       JOIN leases le ON le.tenant_id = p.tenant_id AND le.id = p.lease_id
       JOIN estates e ON e.tenant_id = le.tenant_id AND e.id = le.estate_id
       JOIN personal_data_keys k ON k.tenant_id = e.tenant_id
        AND k.subject IN ('owner-' || e.owner_id, 'owner-' || e.previous_owner_id)
      WHERE NOT p.owner_recorded AND k.destroyed_at IS NOT NULL AND ($1::uuid IS NULL OR p.tenant_id = $1)`,
    [tenantId],
  );
}

export async function readLeasePdf(sql: Sql, tenantId: string, id: string): Promise<Found | null> {
  const row = await findLeasePdf(sql, tenantId, id);
  return row ? { body: toLeasePdf(row), revision: Number(row.revision) } : null;
}

export async function leasePdfQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/leases/:lease_id/pdfs",
    {
      schema: {
        tags,
        summary: "The lease's generated contract PDFs, oldest first",
        params: leaseParams,
        response: answers(z.array(leasePdfBody)),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      if (!(await readLease(sql, tenantId, lease_id))) throw notFound("Lease", lease_id);
      const rows = await sql.asTenant(tenantId, (tx) =>
        tx.query<Row>(
          `SELECT ${COLUMNS} FROM lease_pdfs WHERE tenant_id = $1 AND lease_id = $2 ORDER BY created_at, id`,
          [tenantId, lease_id],
        ),
      );
      return rows.map(toLeasePdf);
    },
  );

  api.get(
    "/api/leases/pdf/:pdf_id",
    {
      schema: {
        tags,
        summary: "A generated lease PDF's bytes (application/pdf, attachment with a readable name)",
        params: leasePdfParams,
        response: answers(fileBytes),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { pdf_id } = request.params;
      const row = await findLeasePdf(sql, tenantId, pdf_id);
      if (!row) throw notFound("Lease PDF", pdf_id);
      const blob = await blobStoreFor(sql).getBlob(String(row.blob_key));
      if (!blob) throw notFound("Lease PDF", pdf_id);
      setEtag(reply, Number(row.revision));
      return reply
        .header("content-type", "application/pdf")
        .header("content-length", String(blob.size))
        .header("content-disposition", contentDisposition("attachment", String(row.filename)))
        .send(blob.bytes);
    },
  );

  // The lessee's contract (docs/portal.md): the newest PDF printed for their lease.
  api.get(
    "/api/lessee/leases/:lease_id/contract",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "The newest contract PDF of one of the signed-in lessee's leases (404 before one is printed; another lessee's lease answers 404)",
        params: leaseParams,
        response: answers(fileBytes),
      },
      config: { access: "lessee:leases:download" },
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const caller = lesseeOf(request);
      await ensureOwnLease(sql, caller, lease_id);
      const [row] = await sql.asTenant(caller.tenant_id, (tx) =>
        tx.query<Row>(
          `SELECT ${COLUMNS} FROM lease_pdfs WHERE tenant_id = $1 AND lease_id = $2
           ORDER BY lease_revision DESC, created_at DESC, id DESC LIMIT 1`,
          [caller.tenant_id, lease_id],
        ),
      );
      const blob = row ? await blobStoreFor(sql).getBlob(String(row.blob_key)) : null;
      if (!row || !blob) throw notFound("Contract of lease", lease_id);
      return reply
        .header("content-type", "application/pdf")
        .header("content-length", String(blob.size))
        .header("content-disposition", contentDisposition("attachment", String(row.filename)))
        .send(blob.bytes);
    },
  );

  api.get(
    "/api/leases/cache/stats",
    {
      schema: {
        tags,
        summary: "The caller's PDF render cache: entries, bytes, hits and misses",
        response: answers(cacheStatsBody),
      },
      config: read,
    },
    async (request) => renderCacheStats(sql, tenantOf(request), LEASE_CONTRACT_CACHE),
  );
}
