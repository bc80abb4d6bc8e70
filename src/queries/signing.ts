import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ANNEX_CATEGORIES, ANNEX_SOURCES, SIGNATORY_ROLES } from "../events/signing.ts";
import {
  ANNEX_CODES,
  type AnnexCode,
  type AnnexFacts,
  type AttachedAnnex,
  annexCompliance,
} from "../law/annexes.ts";
import { legalToday } from "../law/calendar.ts";
import type { LeaseType } from "../law/leaseTypes.ts";
import { blobStoreFor } from "../platform/blobs/index.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import { answers, fileBytes, timestamp, verdictBody } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import { sha256Of } from "../platform/pdf/renderCache.ts";
import { renderMarkup } from "../platform/pdf/renderMarkup.ts";
import { subjectOf } from "../platform/personalData/erasure.ts";
import type { Row } from "../platform/projections/projection.ts";
import { readDpeOn } from "./energyDiagnoses.ts";
import { readLeaseContractFacts } from "./leaseContractFacts.ts";
import { leaseParams, requireLease } from "./leases.ts";
import { isOwnLease, lesseeOf } from "./lesseeSpace.ts";
import { contentDisposition } from "./media.ts";

/**
 * Signing a lease, read side (docs/design.md §7.2, docs/signing.md): the annex catalog, a lease's
 * annexes and their compliance (src/law/annexes.ts), its signature process, the signed PDF and
 * the evidence file; and the facts the commands look up (estate, parties, diagnostics).
 */

const tags = ["Signing"];
const read = { access: "LeasesRead" as const };

export const annexParams = leaseParams.extend({ annex_id: uuid() });

const annexCode = z.enum(ANNEX_CODES);

export const catalogEntryBody = z
  .strictObject({
    code: annexCode,
    title: z.string(),
    category: z.enum(ANNEX_CATEGORIES),
    legal_reference: z.string(),
    mandatory_rule: z.string(),
  })
  .meta({ id: "AnnexCatalogEntry", description: "An entry of the global annex catalog" });

export const annexBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    code: annexCode,
    category: z.enum(ANNEX_CATEGORIES),
    title: z.string(),
    source: z
      .enum(ANNEX_SOURCES)
      .describe("CATALOG (shipped text), DPE or ESTATE_DIAGNOSTIC (linked record), UPLOAD"),
    source_id: uuid().nullable().describe("The DPE or estate diagnostic linked"),
    document_date: z.iso.date().nullable(),
    valid_until: z.iso.date().nullable(),
    negative: z.boolean().nullable(),
    filename: z.string().nullable(),
    content_type: z.string().nullable(),
    size: z.number().int().nullable(),
    sha256: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: "LeaseAnnex", description: "An annex attached to a lease" });

const problem = z.strictObject({ code: annexCode, reason: z.string(), legal_reference: z.string() });

export const complianceBody = z
  .strictObject({
    status: z.enum(["COMPLIANT", "NON_COMPLIANT"]),
    signing_date: z.iso.date().describe("The day the annexes are judged on (today in Paris)"),
    missing: z.array(problem),
    due_at_handover: z
      .array(problem)
      .describe(
        "Drawn up at the keys' handover (art. 3-2, 25-5), not attached yet: never a reason to refuse signing",
      ),
    expired: z.array(problem.extend({ valid_until: z.iso.date().nullable() })),
    verdicts: z.array(verdictBody).describe("Every rule's verdict; UNKNOWN: a fact is not recorded"),
  })
  .meta({
    id: "AnnexCompliance",
    description: "Whether the lease's mandatory annexes are attached and valid",
  });

const signatoryBody = z.strictObject({
  signatory_id: uuid(),
  role: z.enum(SIGNATORY_ROLES),
  lessee_id: uuid().nullable(),
  name: z.string().nullable().describe("Null once a data subject of the process was erased"),
  email: z.string().nullable(),
  status: z.enum(["PENDING", "SIGNED", "LOCKED"]),
  attempts: z.number().int(),
  code_sent_at: timestamp.nullable(),
  code_expires_at: timestamp.nullable(),
  signed_at: timestamp.nullable(),
});
const fileBody = z.strictObject({ sha256: z.string(), size: z.number().int() });

export const signatureBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    status: z.enum(["PENDING", "SIGNED", "COMPLETED", "CANCELLED"]),
    signature_level: z
      .literal("SIMPLE")
      .describe(
        "A simple electronic signature (code civil art. 1366, one-time password by email); the art. 1367 presumption of reliability needs a qualified one (eIDAS art. 25 and 26)",
      ),
    document_sha256: z
      .string()
      .describe("SHA-256 of what is signed: the contract PDF and the annexes' hashes"),
    contract: z.strictObject({ pdf_id: uuid(), sha256: z.string(), filename: z.string() }),
    annexes: z.array(
      z.strictObject({ annex_id: uuid(), code: annexCode, title: z.string(), sha256: z.string().nullable() }),
    ),
    signatories: z.array(signatoryBody),
    signed_pdf: fileBody.nullable(),
    evidence: fileBody.nullable(),
    end_cause: z.enum(["CANCELLED", "LEASE_CHANGED"]).nullable(),
    end_reason: z.string().nullable(),
    initiated_at: timestamp,
    completed_at: timestamp.nullable(),
    ended_at: timestamp.nullable(),
    erased_at: timestamp
      .nullable()
      .describe(
        "When a signatory's personal data was erased (GDPR art. 17): names, emails and where each signed from are gone",
      ),
  })
  .meta({ id: "LeaseSignature", description: "A lease's signature process (simple electronic signature)" });

// ---------------------------------------------------------------- reads

export const toAnnex = (row: Row) => ({
  id: String(row.id),
  lease_id: String(row.lease_id),
  code: row.code,
  category: row.category,
  title: row.title,
  source: row.source,
  source_id: row.source_id ?? null,
  document_date: isoDay(row.document_date),
  valid_until: isoDay(row.valid_until),
  negative: row.negative ?? null,
  filename: row.filename ?? null,
  content_type: row.content_type ?? null,
  size: row.size === null || row.size === undefined ? null : Number(row.size),
  sha256: row.sha256 ?? null,
  created_at: iso(row.created_at),
});

export async function readCatalog(sql: Sql) {
  return sql.query<Row>(
    "SELECT code, title, category, legal_reference, mandatory_rule FROM annex_catalog ORDER BY position",
  );
}

export async function catalogEntry(sql: Sql, code: string) {
  const [row] = await sql.query<Row>(
    "SELECT code, title, category, legal_reference, mandatory_rule FROM annex_catalog WHERE code = $1",
    [code],
  );
  return row ?? null;
}

export async function listAnnexRows(sql: Sql, tenantId: string, leaseId: string): Promise<Row[]> {
  return sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT * FROM lease_annexes WHERE tenant_id = $1 AND lease_id = $2 ORDER BY created_at, id",
      [tenantId, leaseId],
    ),
  );
}

export async function readAnnex(sql: Sql, tenantId: string, leaseId: string, annexId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT * FROM lease_annexes WHERE tenant_id = $1 AND lease_id = $2 AND id = $3", [
      tenantId,
      leaseId,
      annexId,
    ]),
  );
  return row ? { body: toAnnex(row), revision: 0, row } : null;
}

/**
 * The leases whose signing processes name a data subject (`lessee-<id>`, or `owner-<id>` as the
 * lessor), with the stored files of every process of theirs: the signing area's part of an erasure.
 */
export async function signingNaming(sql: Sql, tenantId: string, dataSubject: string) {
  const { kind, id } = subjectOf(dataSubject);
  const field = kind === "lessee" ? "lessee_id" : kind === "owner" ? "owner_id" : null;
  if (!field) return [];
  return sql.asTenant(tenantId, (tx) =>
    tx.query<{ lease_id: string; blob_keys: string[] }>(
      `SELECT lease_id, array_remove(array_agg(signed_pdf->>'blob_key') || array_agg(evidence->>'blob_key'), NULL) AS blob_keys
         FROM lease_signatures WHERE tenant_id = $1 AND lease_id IN
              (SELECT lease_id FROM lease_signatures WHERE tenant_id = $1 AND signatories @> $2::jsonb)
        GROUP BY lease_id ORDER BY lease_id`,
      [tenantId, JSON.stringify([{ [field]: id }])],
    ),
  );
}

/**
 * Erased lessees and owners (their key destroyed: `personal_data_keys` outlives a deletion) that
 * signing processes not erased still name (kept while their lease needed them): the retention job
 * erases them again (src/platform/personalData/erasure.ts).
 */
export async function signingKeptMentions(sql: Sql, tenantId: string | null) {
  return sql.query<{ tenant_id: string; data_subject: string }>(
    `SELECT DISTINCT s.tenant_id, k.subject AS data_subject
       FROM lease_signatures s CROSS JOIN jsonb_array_elements(s.signatories) AS x
       JOIN personal_data_keys k ON k.tenant_id = s.tenant_id
        AND k.subject IN ('lessee-' || (x->>'lessee_id'), 'owner-' || (x->>'owner_id'))
      WHERE s.personal_data_erased_at IS NULL AND k.destroyed_at IS NOT NULL
        AND ($1::uuid IS NULL OR s.tenant_id = $1)`,
    [tenantId],
  );
}

/** The lease's newest signature process row, or null. */
export async function readSignatureRow(sql: Sql, tenantId: string, leaseId: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT * FROM lease_signatures WHERE tenant_id = $1 AND lease_id = $2 ORDER BY initiated_at DESC LIMIT 1",
      [tenantId, leaseId],
    ),
  );
  return row ?? null;
}

const toSignature = (row: Row) => ({
  id: String(row.id),
  lease_id: String(row.lease_id),
  status: row.status,
  signature_level: "SIMPLE" as const,
  document_sha256: row.document_sha256,
  contract: row.contract,
  annexes: row.annexes,
  // owner_id stays in the read model: it finds an owner's processes for their erasure.
  signatories: (row.signatories as Row[]).map(({ owner_id: _, ...s }) => s),
  signed_pdf: row.signed_pdf
    ? { sha256: (row.signed_pdf as Row).sha256, size: (row.signed_pdf as Row).size }
    : null,
  evidence: row.evidence ? { sha256: (row.evidence as Row).sha256, size: (row.evidence as Row).size } : null,
  end_cause: row.end_cause ?? null,
  end_reason: row.end_reason ?? null,
  initiated_at: iso(row.initiated_at),
  completed_at: iso(row.completed_at),
  ended_at: iso(row.ended_at),
  erased_at: iso(row.personal_data_erased_at),
});

/** `forLessee`: the signatories' emails are not shown to a lessee (co-tenants', the lessor's). */
export async function readSignature(sql: Sql, tenantId: string, leaseId: string, forLessee = false) {
  const row = await readSignatureRow(sql, tenantId, leaseId);
  if (!row) return null;
  const body = toSignature(row);
  if (forLessee) body.signatories = (body.signatories as Row[]).map((s) => ({ ...s, email: null }));
  return { body, revision: Number(row.revision) };
}

/** The processes still open (pending or all signed): the reaction loop's work list, every tenant. */
export async function openSignatures(sql: Sql, limit: number) {
  return sql.query<{
    tenant_id: string;
    id: string;
    lease_id: string;
    status: string;
    lease_revision: number;
  }>(
    `SELECT tenant_id, id, lease_id, status, lease_revision FROM lease_signatures
     WHERE status IN ('PENDING', 'SIGNED') ORDER BY initiated_at, id LIMIT $1`,
    [limit],
  );
}

/**
 * Credits held for a lease signature with no process to show for it, `minutes` after they were
 * reserved (a crash between the reservation and the process's start): the loop releases them.
 */
export async function strandedReservations(sql: Sql, minutes: number, limit: number) {
  return sql.query<{ tenant_id: string; reservation_id: string; purpose: string }>(
    `SELECT r.tenant_id, r.reservation_id, r.purpose FROM credit_transactions r
     WHERE r.kind = 'RESERVATION' AND r.purpose LIKE 'lease_signature:%'
       AND r.created_at < now() - make_interval(mins => $1)
       AND NOT EXISTS (SELECT 1 FROM credit_transactions s WHERE s.tenant_id = r.tenant_id
         AND s.reservation_id = r.reservation_id AND s.kind IN ('CAPTURE', 'RELEASE'))
       AND NOT EXISTS (SELECT 1 FROM lease_signatures p WHERE p.tenant_id = r.tenant_id AND p.id = r.reservation_id)
     ORDER BY r.created_at LIMIT $2`,
    [minutes, limit],
  );
}

/** The newest contract PDF generated from the lease's current revision, or null. */
export async function currentContractPdf(sql: Sql, tenantId: string, leaseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT r.id, r.sha256, r.filename, r.blob_key FROM lease_pdfs r JOIN leases l
         ON l.tenant_id = r.tenant_id AND l.id = r.lease_id AND l.revision = r.lease_revision
       WHERE r.tenant_id = $1 AND r.lease_id = $2 ORDER BY r.created_at DESC, r.id DESC LIMIT 1`,
      [tenantId, leaseId],
    ),
  );
  return row
    ? {
        pdf_id: String(row.id),
        sha256: String(row.sha256),
        filename: String(row.filename),
        blob_key: String(row.blob_key),
      }
    : null;
}

/** The file uploaded with a DPE or a diagnostic (its `media_id`), as an annex binds it. */
export interface RecordFile {
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  blob_key: string;
}

/**
 * The estate's active diagnostics and its DPE valid on `date`, each with the file uploaded with it
 * (null when none was): what attach-mandatory links.
 */
export async function estateRecords(sql: Sql, tenantId: string, estateId: string, date: string) {
  const dpe = await readDpeOn(sql, tenantId, estateId, date);
  const [diagnostics, dpeFiles] = await sql.asTenant(tenantId, (tx) =>
    Promise.all([
      tx.query<Row>(
        `SELECT d.id, d.type, d.diagnosis_date, d.valid_until, to_jsonb(m) AS file FROM estate_diagnostics d
         LEFT JOIN LATERAL (SELECT filename, content_type, size, sha256, blob_key FROM media
                             WHERE tenant_id = d.tenant_id AND id = d.media_id) m ON true
         WHERE d.tenant_id = $1 AND d.estate_id = $2 AND d.active ORDER BY d.diagnosis_date DESC, d.id`,
        [tenantId, estateId],
      ),
      tx.query<Row>(
        `SELECT to_jsonb(m) AS file FROM energy_diagnoses e
         JOIN LATERAL (SELECT filename, content_type, size, sha256, blob_key FROM media
                        WHERE tenant_id = e.tenant_id AND id = e.media_id) m ON true
         WHERE e.tenant_id = $1 AND e.id = $2`,
        [tenantId, dpe?.id ?? null],
      ),
    ]),
  );
  const fileOf = (v: unknown): RecordFile | null =>
    v ? { ...(v as RecordFile), size: Number((v as RecordFile).size) } : null;
  return {
    diagnostics: diagnostics.map((d) => ({
      id: String(d.id),
      type: String(d.type),
      diagnosis_date: isoDay(d.diagnosis_date) as string,
      valid_until: isoDay(d.valid_until),
      file: fileOf(d.file),
    })),
    dpe: dpe
      ? {
          ...dpe,
          diagnosis_date: isoDay(dpe.diagnosis_date) as string,
          valid_until: isoDay(dpe.valid_until),
          file: fileOf(dpeFiles[0]?.file),
        }
      : null,
  };
}

/** The lease as signing needs it: its parties, lessor, estate facts; null when unknown to the tenant. */
export async function signingFacts(sql: Sql, tenantId: string, leaseId: string) {
  const facts = await readLeaseContractFacts(sql, tenantId, leaseId, "");
  if (!facts) return null;
  const estate = facts.estate;
  const day = (v: unknown) => (v ? String(iso(v)).slice(0, 10) : null);
  const types = new Set(facts.diagnostics.map((d) => String(d.type)));
  return {
    lease_type: String(facts.lease.lease_type) as LeaseType,
    estate_id: String(facts.lease.estate_id),
    parties: facts.parties,
    owner: facts.owner,
    construction_date: day(estate?.construction_date),
    installation_date: day(estate?.renovation_date) ?? day(estate?.construction_date),
    // A recorded gas report or copropriété rules tell the fact; their absence tells nothing.
    has_gas_installation: types.has("gas") ? true : null,
    in_copropriete: types.has("coownership_rules") ? true : null,
  };
}

export type SigningFacts = NonNullable<Awaited<ReturnType<typeof signingFacts>>>;

/**
 * Whether an attached annex is there in full: the service's own notice, or a file (an upload, or
 * the file uploaded with the DPE or diagnostic it links). A link made without its file (before
 * links carried it) is a missing annex, never stood in for by a summary.
 */
export const hasItsFile = (row: Row) => row.source === "CATALOG" || Boolean(row.blob_key);

export const attachedOf = (rows: Row[]): AttachedAnnex[] =>
  rows.map((r) => ({
    code: r.code as AnnexCode,
    document_date: isoDay(r.document_date),
    valid_until: isoDay(r.valid_until),
    negative: (r.negative as boolean | null) ?? null,
  }));

/** The annexes' compliance on `date` (today in Paris unless given); null when the lease is unknown. */
export async function leaseAnnexCompliance(sql: Sql, tenantId: string, leaseId: string, date = legalToday()) {
  const facts = await signingFacts(sql, tenantId, leaseId);
  if (!facts) return null;
  const input: AnnexFacts = {
    signing_date: date,
    lease_type: facts.lease_type,
    construction_date: facts.construction_date,
    installation_date: facts.installation_date,
    has_gas_installation: facts.has_gas_installation,
    in_copropriete: facts.in_copropriete,
    attached: attachedOf((await listAnnexRows(sql, tenantId, leaseId)).filter(hasItsFile)),
  };
  return { signing_date: date, ...annexCompliance(input) };
}

// ---------------------------------------------------------------- files

/** The notice d'information (arrêté du 29 mai 2015): the service's text of its headings. */
export const NOTICE_MARKUP = `# Notice d'information relative aux droits et obligations des locataires et des bailleurs
Annexe au contrat de location (loi n° 89-462 du 6 juillet 1989, art. 3 ; arrêté du 29 mai 2015).

Ce document présente les rubriques de la notice fixée par l'arrêté du 29 mai 2015. Il ne remplace pas le texte officiel de la notice, que le bailleur joint au bail.

## 1. Établissement du bail
Forme et contenu du contrat, durée, pièces annexées (dossier de diagnostic technique, état des lieux, inventaire pour un meublé), pièces justificatives pouvant être demandées.

## 2. Droits et obligations des parties
Obligations du bailleur (logement décent, jouissance paisible, entretien) et du locataire (paiement du loyer et des charges, usage paisible, entretien courant, assurance).

## 3. Loyer, charges et dépôt de garantie
Fixation et révision du loyer, encadrement éventuel, charges récupérables et régularisation, plafond et restitution du dépôt de garantie.

## 4. Fin du contrat
Congé du locataire et du bailleur, préavis, état des lieux de sortie.

## 5. Règlement des litiges
Commission départementale de conciliation, juge des contentieux de la protection, aides et informations (ADIL).`;

/**
 * The bytes of an annex: its file (an upload, or the file of the DPE or diagnostic it links), or
 * for the service's own notice its PDF; null when a link has no file (it is a missing annex).
 */
export async function annexFile(
  sql: Sql,
  row: Row,
): Promise<{ bytes: Buffer; content_type: string; filename: string } | null> {
  if (row.blob_key) {
    const blob = await blobStoreFor(sql).getBlob(String(row.blob_key));
    return blob
      ? { bytes: blob.bytes, content_type: blob.content_type, filename: String(row.filename) }
      : null;
  }
  if (row.code !== "NOTICE_INFORMATION" || row.source !== "CATALOG") return null;
  return {
    bytes: await renderMarkup(NOTICE_MARKUP, String(row.title)),
    content_type: "application/pdf",
    filename: "notice-information-locataires-bailleurs.pdf",
  };
}

const sendFile = (reply: FastifyReply, file: { bytes: Buffer; content_type: string; filename: string }) =>
  reply
    .header("content-type", file.content_type)
    .header("content-length", String(file.bytes.byteLength))
    .header("content-disposition", contentDisposition("attachment", file.filename))
    .send(file.bytes);

async function signedFile(sql: Sql, tenantId: string, leaseId: string, which: "signed_pdf" | "evidence") {
  const row = await readSignatureRow(sql, tenantId, leaseId);
  const stored = row?.[which] as { blob_key: string } | null | undefined;
  if (!row || !stored) throw notFound(which === "signed_pdf" ? "Signed lease" : "Evidence file", leaseId);
  const blob = await blobStoreFor(sql).getBlob(stored.blob_key);
  if (!blob) throw notFound("Signed lease", leaseId);
  return {
    bytes: blob.bytes,
    content_type: blob.content_type,
    filename: which === "signed_pdf" ? `bail-signe-${leaseId}.pdf` : `preuves-signature-${leaseId}.json`,
  };
}

/** A lessee token's lease: one of theirs, else 404 (as another tenant's would be). */
export async function requireOwnLease(request: FastifyRequest, leaseId: string) {
  const caller = lesseeOf(request);
  if (!(await isOwnLease(request.server.platform.sql, caller, leaseId))) throw notFound("Lease", leaseId);
  return caller;
}

// ---------------------------------------------------------------- routes

export async function signingQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/annex-catalog",
    {
      schema: {
        tags,
        summary: "The global annex catalog (the same for every tenant)",
        response: answers(z.array(catalogEntryBody)),
      },
      config: read,
    },
    async () => readCatalog(sql),
  );

  api.get(
    "/api/leases/:lease_id/annexes",
    {
      schema: {
        tags,
        summary: "The lease's annexes",
        params: leaseParams,
        response: answers(z.array(annexBody)),
      },
      config: read,
    },
    async (request) => {
      const tenantId = tenantOf(request);
      await requireLease(sql, tenantId, request.params.lease_id);
      return (await listAnnexRows(sql, tenantId, request.params.lease_id)).map(toAnnex);
    },
  );

  api.get(
    "/api/leases/:lease_id/annexes/compliance",
    {
      schema: {
        tags,
        summary:
          "Whether the mandatory annexes are attached and valid today (loi n° 89-462 art. 3, 3-2, 3-3, 25-5)",
        params: leaseParams,
        response: answers(complianceBody),
      },
      config: read,
    },
    async (request) => {
      const found = await leaseAnnexCompliance(sql, tenantOf(request), request.params.lease_id);
      if (!found) throw notFound("Lease", request.params.lease_id);
      return found;
    },
  );

  api.get(
    "/api/leases/:lease_id/annexes/:annex_id",
    {
      schema: { tags, summary: "One annex of the lease", params: annexParams, response: answers(annexBody) },
      config: read,
    },
    async (request) => {
      const { lease_id, annex_id } = request.params;
      const found = await readAnnex(sql, tenantOf(request), lease_id, annex_id);
      if (!found) throw notFound("Annex", annex_id);
      return found.body;
    },
  );

  api.get(
    "/api/leases/:lease_id/annexes/:annex_id/download",
    {
      schema: {
        tags,
        summary: "The annex's file (an upload, or a PDF made from the catalog or the linked record)",
        params: annexParams,
        response: answers(fileBytes),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id, annex_id } = request.params;
      const found = await readAnnex(sql, tenantOf(request), lease_id, annex_id);
      if (!found) throw notFound("Annex", annex_id);
      const file = await annexFile(sql, found.row);
      if (!file) throw notFound("Annex file", annex_id);
      return sendFile(reply, file);
    },
  );

  // The lessee's own annexes (docs/portal.md): the list and each file, their own lease only.
  api.get(
    "/api/lessee/leases/:lease_id/annexes",
    {
      schema: {
        tags: ["Lessee space"],
        summary: "The annexes of one of the signed-in lessee's leases (another lessee's answers 404)",
        params: leaseParams,
        response: answers(z.array(annexBody)),
      },
      config: { access: "lessee:leases:read" },
    },
    async (request) => {
      const caller = await requireOwnLease(request, request.params.lease_id);
      return (await listAnnexRows(sql, caller.tenant_id, request.params.lease_id)).map(toAnnex);
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id/annexes/:annex_id/download",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "An annex's file of one of the signed-in lessee's leases (the uploaded file, or the service's notice); 404 for a missing annex",
        params: annexParams,
        response: answers(fileBytes),
      },
      config: { access: "lessee:leases:download" },
    },
    async (request, reply) => {
      const { lease_id, annex_id } = request.params;
      const caller = await requireOwnLease(request, lease_id);
      const found = await readAnnex(sql, caller.tenant_id, lease_id, annex_id);
      if (!found) throw notFound("Annex", annex_id);
      const file = await annexFile(sql, found.row);
      if (!file) throw notFound("Annex file", annex_id);
      return sendFile(reply, file);
    },
  );

  api.get(
    "/api/leases/pending-signature",
    {
      schema: {
        tags,
        summary: "The signature processes in progress (PENDING or all signed), oldest first",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(signatureBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const q = request.query;
      const [rows, [{ total }]] = await sql.asTenant(tenantId, (tx) =>
        Promise.all([
          tx.query<Row>(
            `SELECT * FROM lease_signatures WHERE tenant_id = $1 AND status IN ('PENDING', 'SIGNED')
             ORDER BY initiated_at, id LIMIT $2 OFFSET $3`,
            [tenantId, q.limit, offsetOf(q)],
          ),
          tx.query<{ total: number }>(
            "SELECT count(*)::int AS total FROM lease_signatures WHERE tenant_id = $1 AND status IN ('PENDING', 'SIGNED')",
            [tenantId],
          ),
        ]),
      );
      return sendPage(request, reply, {
        items: rows.map(toSignature),
        total: Number(total),
        page: q.page,
        limit: q.limit,
      });
    },
  );

  const signatureRoute = (url: string, access: "LeasesRead" | "lessee:leases:read", own: boolean) =>
    api.get(
      url,
      {
        schema: {
          tags,
          summary: own
            ? "The signature of one of the lessee's leases"
            : "The lease's newest signature process, its signatories and their statuses",
          params: leaseParams,
          response: answers(signatureBody),
        },
        config: { access },
      },
      async (request) => {
        const { lease_id } = request.params;
        if (own) await requireOwnLease(request, lease_id);
        const found = await readSignature(sql, tenantOf(request), lease_id, own);
        if (!found) throw notFound("Signature of lease", lease_id);
        return found.body;
      },
    );
  signatureRoute("/api/leases/:lease_id/signature", "LeasesRead", false);
  signatureRoute("/api/lessee/leases/:lease_id/signature", "lessee:leases:read", true);

  const fileRoute = (
    url: string,
    which: "signed_pdf" | "evidence",
    access: "LeasesRead" | "lessee:leases:download",
    own: boolean,
  ) =>
    api.get(
      url,
      {
        schema: {
          tags,
          summary:
            which === "signed_pdf"
              ? "The signed lease (PDF: contract, annexes' list with their SHA-256, signatures)"
              : "The signature's evidence file (JSON: each step with time, IP, user agent, channel, document hash)",
          params: leaseParams,
          response: answers(fileBytes),
        },
        config: { access },
      },
      async (request, reply) => {
        const { lease_id } = request.params;
        if (own) await requireOwnLease(request, lease_id);
        return sendFile(reply, await signedFile(sql, tenantOf(request), lease_id, which));
      },
    );
  fileRoute("/api/leases/:lease_id/signature/document", "signed_pdf", "LeasesRead", false);
  fileRoute("/api/leases/:lease_id/signature/evidence", "evidence", "LeasesRead", false);
  fileRoute("/api/lessee/leases/:lease_id/signature/document", "signed_pdf", "lessee:leases:download", true);
}

/**
 * The bytes of what a signature process covers, in order: the contract PDF it named, then each
 * annex. A part whose bytes no longer hash to what was signed is left out (the certificate lists it).
 */
export async function signedParts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  signed: {
    contract: { pdf_id: string; sha256: string };
    annexes: { annex_id: string; sha256: string | null }[];
  },
): Promise<{ bytes: Buffer; content_type: string }[]> {
  const [contractRow] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>("SELECT blob_key FROM lease_pdfs WHERE tenant_id = $1 AND lease_id = $2 AND id = $3", [
      tenantId,
      leaseId,
      signed.contract.pdf_id,
    ]),
  );
  const contract = contractRow ? await blobStoreFor(sql).getBlob(String(contractRow.blob_key)) : null;
  const parts: { bytes: Buffer; content_type: string }[] = [];
  if (contract && sha256Of(contract.bytes) === signed.contract.sha256)
    parts.push({ bytes: contract.bytes, content_type: "application/pdf" });
  for (const annex of signed.annexes) {
    const found = await readAnnex(sql, tenantId, leaseId, annex.annex_id);
    const file = found ? await annexFile(sql, found.row) : null;
    // A file is signed by its bytes; the service's notice by what names it (../commands/signing).
    if (file && (!found?.row.blob_key || sha256Of(file.bytes) === annex.sha256))
      parts.push({ bytes: file.bytes, content_type: file.content_type });
  }
  return parts;
}
