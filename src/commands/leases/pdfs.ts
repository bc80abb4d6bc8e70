import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type LeaseContractPdfData, type LeasePdfEvent, leasePdfStream } from "../../events/leasePdfs.ts";
import { mobilityMotiveVerdict } from "../../law/leaseTypes.ts";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import type { Sql } from "../../platform/db.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError, conflict, enforce, notFound } from "../../platform/errors.ts";
import type { EventStore, Position } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { commandContext, handleCommand } from "../../platform/http/handleCommand.ts";
import { type Found, replyWithResource } from "../../platform/http/replyWithResource.ts";
import { answers, createdAnswers, deletedAnswers } from "../../platform/http/responses.ts";
import {
  cachedRender,
  clearRenderCache,
  countRenderCacheHit,
  dropRenderCache,
  sha256Of,
  stableJson,
} from "../../platform/pdf/renderCache.ts";
import type { SubjectErasure } from "../../platform/personalData/erasure.ts";
import { type CommandContext, loadStream, runCommand } from "../../platform/runCommand.ts";
import { readLeaseContractFacts } from "../../queries/leaseContractFacts.ts";
import {
  LEASE_CONTRACT_CACHE,
  leasePdfBody,
  leasePdfKeptMentions,
  leasePdfParams,
  leasePdfsNaming,
  readLeasePdf,
  sameLeasePdf,
} from "../../queries/leasePdfs.ts";
import { leaseParams, leasesWithRecordsErasable } from "../../queries/leases.ts";
import { buildLeaseContract } from "./contract/buildLeaseContract.ts";
import {
  contractFileName,
  renderLeaseContract,
  requireTemplate,
  TEMPLATE_VERSION,
} from "./contract/renderLeaseContract.ts";

/**
 * Lease contract PDFs (docs/pdf.md): each generated PDF is a record in its own stream
 * (`lease_pdf-<id>`), its bytes in the blob store. While the lease revision, the template version
 * and the contract's content are unchanged, a POST answers the existing record, or, when that was
 * deleted, makes a new one from the cached render (src/platform/pdf/renderCache.ts). The POST route and the batch job share `generateLeasePdf`.
 */

// ---------------------------------------------------------------- decider

type LeasePdfState = { status: "absent" | "generated" | "deleted"; lease_id: string | null };

type LeasePdfCommand =
  | { type: "RecordLeaseContractPdf"; pdf: LeaseContractPdfData }
  | { type: "DeleteLeaseContractPdf"; pdf_id: string };

export const leasePdfDecider: Decider<LeasePdfState, LeasePdfCommand, LeasePdfEvent> = {
  initialState: () => ({ status: "absent", lease_id: null }),
  evolve(state, event) {
    switch (event.type) {
      case "LeaseContractPdfGenerated":
        return { status: "generated", lease_id: event.data.lease_id };
      case "LeaseContractPdfDeleted":
        return { ...state, status: "deleted" };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "RecordLeaseContractPdf":
        if (state.status !== "absent") throw conflict(`Lease PDF ${command.pdf.pdf_id} already exists`);
        return [{ type: "LeaseContractPdfGenerated", data: command.pdf }];
      case "DeleteLeaseContractPdf":
        if (state.status !== "generated" || !state.lease_id) throw notFound("Lease PDF", command.pdf_id);
        return [
          { type: "LeaseContractPdfDeleted", data: { pdf_id: command.pdf_id, lease_id: state.lease_id } },
        ];
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  },
};

// ---------------------------------------------------------------- generation

/**
 * Generates one lease's contract PDF: the contract from the read models; when a record of the same
 * contract (lease revision, template version, contract hash) still exists, that record, with
 * nothing written (docs/pdf.md, "Same contract, same record"); otherwise a new record, its bytes
 * from the cache or a fresh render, stored before the event. 404 for a lease unknown to the
 * tenant, 422 for a lease type without a template; nothing is written when it refuses.
 */
export async function generateLeasePdf(
  context: CommandContext & { sql: Sql },
  leaseId: string,
): Promise<{
  pdf_id: string;
  sha256: string;
  filename: string;
  position: Position | null;
  existing?: Found;
}> {
  const { sql, tenant_id } = context;
  const facts = await readLeaseContractFacts(sql, tenant_id, leaseId, TEMPLATE_VERSION);
  if (!facts) throw notFound("Lease", leaseId);
  requireTemplate(String(facts.lease.lease_type));
  const contract = buildLeaseContract(facts);
  // A bail mobilité without its motive is not one (art. 25-13): no contract is printed.
  enforce(mobilityMotiveVerdict(contract.lease_type, contract.mobility_reason));
  const contract_sha256 = sha256Of(stableJson(contract));
  // The records of this revision and template come with the facts: one of the same contract?
  const same = sameLeasePdf(facts.pdfs, contract_sha256);
  if (same) {
    // The read model may not show a delete being projected yet: the record's stream decides. The
    // reuse is counted as a cache hit meanwhile; a POST that loses that race to a delete is then
    // not counted again below (one count per POST, docs/pdf.md).
    const [record] = await Promise.all([
      loadStream(context.store, leasePdfStream(same.id), tenant_id, leasePdfDecider),
      countRenderCacheHit(sql, tenant_id, LEASE_CONTRACT_CACHE),
    ]);
    if (record.state.status === "generated")
      return {
        pdf_id: same.id,
        sha256: String(same.body.sha256),
        filename: String(same.body.filename),
        position: null,
        existing: same,
      };
  }
  const rendered = await cachedRender(
    sql,
    {
      tenant_id,
      kind: LEASE_CONTRACT_CACHE,
      subject_id: leaseId,
      subject_revision: facts.lease_revision,
      template_version: TEMPLATE_VERSION,
      content_sha256: contract_sha256,
    },
    () => renderLeaseContract(contract),
    { count: !same },
  );
  const pdf_id = randomUUID();
  const key = blobKey(tenant_id, "lease-pdfs", pdf_id);
  const blobs = blobStoreFor(sql);
  // Bytes first, then the event: a failed append removes the unreferenced bytes.
  const stored = await blobs.putBlob(key, rendered.bytes, { content_type: "application/pdf" });
  const pdf: LeaseContractPdfData = {
    pdf_id,
    lease_id: leaseId,
    template: contract.lease_type,
    template_version: TEMPLATE_VERSION,
    lease_revision: facts.lease_revision,
    contract_sha256,
    filename: contractFileName(contract),
    size: stored.size,
    sha256: stored.sha256,
    blob_key: key,
    from_cache: rendered.hit,
    owner_id: (facts.owner?.id as string | undefined) ?? null,
  };
  const result = await runCommand(context, leasePdfStream(pdf_id), leasePdfDecider, {
    type: "RecordLeaseContractPdf",
    pdf,
  }).catch(async (error: unknown) => {
    await blobs.deleteBlob(key).catch(() => {});
    throw error;
  });
  return { pdf_id, sha256: pdf.sha256, filename: pdf.filename, position: result.position };
}

const isUuid = (v: string) => z.guid().safeParse(v).success;

/**
 * The batch PDF job (Workers area): one contract PDF per lease of the tenant, through the same
 * `generateLeasePdf` as `POST /api/leases/{id}/pdf`. A lease that fails (unknown, no template)
 * is reported and the others go on.
 */
export async function generateLeasePdfs(
  deps: { sql: Sql; store: EventStore },
  input: { tenant_id: string; lease_ids: string[] },
): Promise<{
  generated: { lease_id: string; pdf_id: string }[];
  failed: { lease_id: string; error: string }[];
}> {
  const generated: { lease_id: string; pdf_id: string }[] = [];
  const failed: { lease_id: string; error: string }[] = [];
  const correlation_id = `lease-pdfs-${randomUUID()}`;
  for (const raw of input.lease_ids) {
    const lease_id = raw.toLowerCase();
    if (!isUuid(lease_id)) {
      failed.push({ lease_id: raw, error: `Lease id ${raw} is not a UUID` });
      continue;
    }
    try {
      const { pdf_id } = await generateLeasePdf(
        {
          sql: deps.sql,
          store: deps.store,
          tenant_id: input.tenant_id,
          metadata: {
            tenant_id: input.tenant_id,
            actor_key_id: null,
            correlation_id,
            causation_id: null,
            occurred_at: new Date().toISOString(),
          },
        },
        lease_id,
      );
      generated.push({ lease_id, pdf_id });
    } catch (error) {
      failed.push({ lease_id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { generated, failed };
}

// ---------------------------------------------------------------- routes

const tags = ["Leases"];

export async function leasePdfCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/leases/:lease_id/pdf",
    {
      schema: {
        tags,
        summary:
          "Generate the lease contract PDF (décret n° 2015-587 structure); an unchanged contract answers its existing PDF",
        params: leaseParams,
        response: createdAnswers(leasePdfBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const { pdf_id, position, existing } = await generateLeasePdf(
        { ...commandContext(request), sql },
        lease_id,
      );
      return replyWithResource(request, reply, 201, {
        id: pdf_id,
        position,
        location: `/api/leases/pdf/${pdf_id}`,
        // The existing record as just read, or the new one once projected.
        read: async () => existing ?? readLeasePdf(sql, tenantId, pdf_id),
      });
    },
  );

  api.delete(
    "/api/leases/pdf/:pdf_id",
    {
      schema: {
        tags,
        summary: "Delete a generated lease PDF",
        params: leasePdfParams,
        response: deletedAnswers,
      },
      config: { access: "LeasesDelete" },
    },
    async (request, reply) => {
      const { pdf_id } = request.params;
      const result = await handleCommand(
        request,
        leasePdfStream(pdf_id),
        leasePdfDecider,
        { type: "DeleteLeaseContractPdf", pdf_id },
        { notFound: () => notFound("Lease PDF", pdf_id) },
      );
      // The record is gone; its bytes go with it (the event keeps the facts, not the content).
      await blobStoreFor(sql)
        .deleteBlob(blobKey(tenantOf(request), "lease-pdfs", pdf_id))
        .catch(() => {});
      return replyWithResource(request, reply, 204, { id: pdf_id, position: result.position });
    },
  );

  api.post(
    "/api/leases/cache/clear",
    {
      schema: {
        tags,
        summary: "Clear the caller's PDF render cache (generated PDFs keep their bytes)",
        response: answers(z.strictObject({ cleared: z.number().int() })),
      },
      config: { access: "LeasesWrite" },
    },
    async (request) => ({ cleared: await clearRenderCache(sql, tenantOf(request), LEASE_CONTRACT_CACHE) }),
  );
}

/**
 * An erasure reaches the contract PDFs printing the subject (docs/personal-data.md): each record
 * is deleted as `DELETE /api/leases/pdf/{id}` does (LeaseContractPdfDeleted, then its bytes), and
 * the render cache of those leases is dropped. A contract made again prints the erased fields empty.
 * A lease that still needs its records (leaseRecordsVerdict) keeps them.
 */
export const leasePdfErasure: SubjectErasure = {
  erase: async (deps, tenantId, dataSubject, metadata) => {
    const named = await leasePdfsNaming(deps.sql, tenantId, dataSubject);
    // Kept while the lease needs them: its other parties' claims (src/law/retention.ts).
    const erasable = await leasesWithRecordsErasable(deps.sql, tenantId, named.lease_ids);
    const pdf_ids = named.pdfs.filter((p) => erasable.has(p.lease_id)).map((p) => p.id);
    const lease_ids = [...erasable];
    const context: CommandContext = {
      store: deps.store,
      tenant_id: tenantId,
      metadata: { ...metadata, tenant_id: tenantId },
    };
    const blobs = blobStoreFor(deps.sql);
    let position: Position | null = null;
    for (const pdf_id of pdf_ids) {
      const deleted = await runCommand(context, leasePdfStream(pdf_id), leasePdfDecider, {
        type: "DeleteLeaseContractPdf",
        pdf_id,
      }).catch((error) => {
        // Deleted meanwhile (the read model had not caught up): its bytes go all the same.
        if (!(error instanceof ApiError && error.code === "NotFound")) throw error;
        return null;
      });
      position = deleted?.position ?? position;
      await blobs.deleteBlob(blobKey(tenantId, "lease-pdfs", pdf_id));
    }
    await dropRenderCache(deps.sql, tenantId, LEASE_CONTRACT_CACHE, lease_ids);
    return position;
  },
  kept: leasePdfKeptMentions,
};
