import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leaseStream } from "../../events/leases.ts";
import { isLiveLease } from "../../events/leaseView.ts";
import { lesseeStream } from "../../events/lessees.ts";
import { ownerResource } from "../../events/owners.ts";
import type { Signatory, SignatoryRole, SigningStep } from "../../events/signing.ts";
import { legalToday } from "../../law/calendar.ts";
import { ApiError, conflict, notFound } from "../../platform/errors.ts";
import { latestPosition, type Position } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { commandContext, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import { printContract } from "../../platform/pdf/contractPrinter.ts";
import { sha256Of, stableJson } from "../../platform/pdf/renderCache.ts";
import type { Row } from "../../platform/projections/projection.ts";
import { loadStream } from "../../platform/runCommand.ts";
import { leaseParams } from "../../queries/leases.ts";
import { readLetterFacts } from "../../queries/rentDocuments.ts";
import { findConfiguration } from "../../queries/settings.ts";
import {
  currentContractPdf,
  hasItsFile,
  leaseAnnexCompliance,
  listAnnexRows,
  readSignature,
  requireOwnLease,
  signatureBody,
  signingFacts,
} from "../../queries/signing.ts";
import { signatureCodeEmail } from "./codeEmail.ts";
import { codeHash, decideSigning, leaseSigningDecider, wrongCodeError } from "./decider.ts";
import {
  endSigning,
  finishSigning,
  leaseChangeSince,
  loadSigning,
  onLease,
  onLedger,
  onSigning,
  type SigningDeps,
} from "./process.ts";

/**
 * The signature routes (docs/design.md §7.2, docs/signing.md): initiate (a DRAFT lease with its
 * mandatory annexes, one credit reserved), a one-time password per signatory, its validation,
 * cancel. The lessee signs through their own space with the `lessee:leases:sign` scope, only as
 * their own signatory. A simple electronic signature (code civil art. 1366).
 */

const tags = ["Signing"];
type SigningAccess = { access: "LeasesWrite" | "lessee:leases:sign"; invalidBodyMessage: string };
const write: SigningAccess = { access: "LeasesWrite", invalidBodyMessage: "Invalid signature request" };
const sign: SigningAccess = { access: "lessee:leases:sign", invalidBodyMessage: "Invalid signature request" };

const requestBody = z.strictObject({ signatory_id: uuid() }).meta({ id: "SignatureCodeRequest" });
const validateBody = z
  .strictObject({
    signatory_id: uuid(),
    otp: z.string().regex(/^\d{6}$/, "A code is 6 digits"),
  })
  .meta({ id: "SignatureCodeValidation" });
const cancelBody = z
  .strictObject({ reason: z.string().trim().min(1).max(500).optional() })
  .meta({ id: "SignatureCancellation" });

const depsOf = (request: FastifyRequest): SigningDeps => request.server.platform;

function stepOf(request: FastifyRequest, channel: SigningStep["channel"]): SigningStep {
  const agent = request.headers["user-agent"];
  return {
    at: new Date().toISOString(),
    ip: request.ip ?? null,
    user_agent: typeof agent === "string" ? agent.slice(0, 500) : null,
    channel,
    actor: request.auth?.key_id ?? null,
  };
}

const personName = (row: Row | null | undefined) =>
  [row?.first_name, row?.last_name].filter(Boolean).join(" ") || String(row?.legal_name ?? "") || "—";

/** Each active Primary, CoTenant and Guarantor, and the lessor (the estate's owner). */
function signatoriesOf(facts: NonNullable<Awaited<ReturnType<typeof signingFacts>>>): Signatory[] {
  const tenants = facts.parties.map(({ role, lessee }) => ({
    signatory_id: randomUUID(),
    role: role as SignatoryRole,
    lessee_id: String(lessee.id),
    auth_user_id: (lessee.auth_user_id as string | null) ?? null,
    name: personName(lessee),
    email: (lessee.email as string | null) ?? null,
  }));
  const lessor: Signatory = {
    signatory_id: randomUUID(),
    role: "Lessor",
    lessee_id: null,
    auth_user_id: null,
    name: facts.owner ? personName(facts.owner) : "Bailleur (propriétaire non renseigné)",
    email: (facts.owner?.email as string | null) ?? null,
    owner_id: facts.owner ? String(facts.owner.id) : null,
  };
  return [...tenants, lessor];
}

const answerSignature = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: 200 | 201,
  position: Position | null,
  leaseId: string,
  forLessee = false,
) =>
  replyAfterProjection(request, reply, {
    position,
    status,
    location: status === 201 ? `/api/leases/${leaseId}/signature` : undefined,
    read: async () =>
      (await readSignature(request.server.platform.sql, tenantOf(request), leaseId, forLessee))?.body,
  });

async function initiate(request: FastifyRequest, reply: FastifyReply, leaseId: string) {
  const deps = depsOf(request);
  const tenantId = tenantOf(request);
  const context = commandContext(request);
  const lease = await loadStream(deps.store, leaseStream(leaseId), tenantId, leaseSigningDecider);
  if (!isLiveLease(lease.state)) throw notFound("Lease", leaseId);
  const [facts, compliance, found, annexRows, signing] = await Promise.all([
    signingFacts(deps.sql, tenantId, leaseId),
    leaseAnnexCompliance(deps.sql, tenantId, leaseId, legalToday()),
    currentContractPdf(deps.sql, tenantId, leaseId),
    listAnnexRows(deps.sql, tenantId, leaseId),
    loadSigning(deps, tenantId, leaseId),
  ]);
  if (!facts || !compliance) throw notFound("Lease", leaseId);
  // Only annexes there in full are signed: a link without its file is a missing annex.
  const annexes = annexRows.filter(hasItsFile).map((r) => ({
    annex_id: String(r.id),
    code: r.code as never,
    title: String(r.title),
    // A file (an upload, a DPE's or diagnostic's) is signed by its bytes' hash; the service's
    // notice by the hash of what names it.
    sha256: r.sha256
      ? String(r.sha256)
      : sha256Of(
          stableJson({
            code: r.code,
            source: r.source,
            source_id: r.source_id,
            document_date: r.document_date,
          }),
        ),
  }));
  const process_id = randomUUID();
  const signed = (contract: { pdf_id: string; sha256: string; filename: string }) => ({
    contract: { pdf_id: contract.pdf_id, sha256: contract.sha256, filename: contract.filename },
    document_sha256: sha256Of(stableJson({ lease_id: leaseId, contract: contract.sha256, annexes })),
  });
  const command = {
    type: "InitiateSignature" as const,
    lease_status: lease.state.status,
    compliance,
    process: {
      lease_id: leaseId,
      process_id,
      reservation_id: process_id,
      lease_revision: -1,
      ...signed(found ?? { pdf_id: "", sha256: "", filename: "" }),
      annexes,
      signatories: signatoriesOf(facts),
      step: stepOf(request, "api"),
    },
  };
  // Refusals first (409 status or process, 422 annexes), before any contract is printed or credit held.
  decideSigning(leaseId)(command, signing.state);
  // What is signed is the current contract: printed now when this version has none yet (422 when
  // its lease type has no contract type, as POST /api/leases/{id}/pdf answers).
  if (!found)
    Object.assign(command.process, signed(await printContract({ ...context, sql: deps.sql }, leaseId)));
  await onLedger(context, {
    type: "ReserveCredits",
    reservation_id: process_id,
    credits: 1,
    purpose: `lease_signature:${leaseId}`,
  });
  const release = () =>
    onLedger(context, { type: "ReleaseCredits", reservation_id: process_id }).catch((e: unknown) =>
      request.log.error({ err: e, lease_id: leaseId }, "credit reservation not released"),
    );
  let sent: Awaited<ReturnType<typeof onLease>>;
  try {
    sent = await onLease(context, leaseId, {
      type: "SendLeaseForSignature",
      lease_id: leaseId,
      effective_date: legalToday(),
    });
  } catch (error) {
    await release();
    throw error;
  }
  try {
    command.process.lease_revision = Number(sent.revision);
    const started = await onSigning(context, leaseId, command);
    return answerSignature(request, reply, 201, started.position, leaseId);
  } catch (error) {
    await release();
    await onLease(context, leaseId, {
      type: "ReturnLeaseToDraft",
      lease_id: leaseId,
      effective_date: legalToday(),
      reason: "Signature not started",
    }).catch(() => {});
    throw error;
  }
}

/**
 * The process as it stands, after ending it when the lease moved since it was sent: a request or
 * a validation on a changed lease is then a 409 (the reaction loop would end it a moment later).
 */
async function currentProcess(request: FastifyRequest, leaseId: string) {
  const deps = depsOf(request);
  const loaded = await loadSigning(deps, tenantOf(request), leaseId);
  if (loaded.foreign) throw notFound("Lease", leaseId);
  if (loaded.revision === null) {
    // No annex nor process yet: the lease must still be the caller's (else 404, not 409).
    const lease = await loadStream(deps.store, leaseStream(leaseId), tenantOf(request), leaseSigningDecider);
    if (!isLiveLease(lease.state)) throw notFound("Lease", leaseId);
  }
  const process = loaded.state.process;
  if (process?.status === "PENDING") {
    const change = await leaseChangeSince(deps, leaseId, process.lease_revision);
    if (change) {
      await endSigning(deps, commandContext(request), leaseId, {
        cause: "LEASE_CHANGED",
        reason: `The lease changed (${change}) while it was being signed`,
        step: stepOf(request, "api"),
      });
      throw conflict(
        `The lease changed (${change}) since it was sent for signature: the signature ended and its credit was released; initiate it again`,
      );
    }
  }
  return process;
}

/** A lessee signs only as their own signatory (403 for another's). */
async function checkSignatory(request: FastifyRequest, leaseId: string, signatoryId: string, own: boolean) {
  // A lessee's token: their own lease first (404), before anything may end a process.
  const caller = own ? await requireOwnLease(request, leaseId) : null;
  const process = await currentProcess(request, leaseId);
  if (!caller) return;
  const signatory = process?.signatories[signatoryId];
  if (signatory && signatory.auth_user_id !== caller.subject)
    throw new ApiError("Forbidden", "A lessee signs only as their own signatory");
}

async function requestCode(
  request: FastifyRequest,
  reply: FastifyReply,
  leaseId: string,
  signatoryId: string,
  own: boolean,
) {
  await checkSignatory(request, leaseId, signatoryId, own);
  const context = commandContext(request);
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const salt = randomBytes(16).toString("hex");
  const message_id = randomUUID();
  const result = await onSigning(context, leaseId, {
    type: "SendSignatureCode",
    signatory_id: signatoryId,
    code_hash: codeHash(code, salt),
    salt,
    message_id,
    step: stepOf(request, own ? "lessee_space" : "api"),
  });
  const signatory = result.state.process?.signatories[signatoryId];
  if (!signatory?.email || !signatory.code) throw conflict(`Signatory ${signatoryId} has no email`);
  // The tenant's sender when its configuration names one (as its other letters), else the service's.
  const sender = (await findConfiguration(request.server.platform.sql, context.tenant_id))?.configuration
    .sender;
  const facts = await readLetterFacts(request.server.platform.sql, context.tenant_id, leaseId);
  await queueMessage(request.server.platform, {
    tenant_id: context.tenant_id,
    message_id,
    to: [{ email: signatory.email, name: signatory.name }],
    from: sender ? { email: sender.email, name: sender.name } : null,
    ...signatureCodeEmail({
      signatory_name: signatory.name ?? "",
      code,
      expires_at: signatory.code.expires_at,
      address: facts?.estate.address ?? "",
      landlord: facts?.landlord.name ?? "",
      tenants: (facts?.lessees ?? []).map((l) => `${l.first_name} ${l.last_name}`.trim()),
    }),
    topic: "signature-code",
    related: { kind: "lease", id: leaseId },
    // The person the code goes to: a lessee, or the owner signing as lessor.
    data_subjects: signatory.lessee_id
      ? [lesseeStream(signatory.lessee_id)]
      : signatory.owner_id
        ? [ownerResource.stream(signatory.owner_id)]
        : [],
    actor_key_id: context.metadata.actor_key_id,
    correlation_id: context.metadata.correlation_id,
  });
  return answerSignature(request, reply, 200, result.position, leaseId, own);
}

async function validateCode(
  request: FastifyRequest,
  reply: FastifyReply,
  leaseId: string,
  body: z.output<typeof validateBody>,
  own: boolean,
) {
  await checkSignatory(request, leaseId, body.signatory_id, own);
  const context = commandContext(request);
  const result = await onSigning(context, leaseId, {
    type: "ValidateSignatureCode",
    signatory_id: body.signatory_id,
    otp: body.otp,
    step: stepOf(request, own ? "lessee_space" : "api"),
  });
  const wrong = wrongCodeError(result.events);
  if (wrong) {
    // The refusal recorded an attempt: a read after this answer sees it (read-your-writes).
    const { platform } = request.server;
    if (result.position)
      await platform.projections.waitFor(result.position, platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS);
    throw wrong;
  }
  // The last signature completes it: the answer waits for every stream it wrote.
  const position =
    result.state.process?.status === "SIGNED"
      ? latestPosition([result.position, await finishSigning(depsOf(request), context, leaseId)])
      : result.position;
  return answerSignature(request, reply, 200, position, leaseId, own);
}

export async function signatureCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    "/api/leases/:lease_id/signature/initiate",
    {
      schema: {
        tags,
        summary:
          "Send a DRAFT lease for signature (simple electronic signature, code civil art. 1366): its mandatory annexes complete (else 422), one credit reserved (else 402)",
        params: leaseParams,
        response: createdAnswers(signatureBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => initiate(request, reply, request.params.lease_id),
  );

  for (const [prefix, config, own] of [
    ["/api/leases", write, false],
    ["/api/lessee/leases", sign, true],
  ] as const) {
    api.post(
      `${prefix}/:lease_id/signature/request`,
      {
        schema: {
          tags,
          summary: own
            ? "Send the lessee their 6-digit signature code by email (valid 10 minutes; a new one after 60 s)"
            : "Send a signatory their 6-digit signature code by email (valid 10 minutes; a new one after 60 s)",
          params: leaseParams,
          body: requestBody,
          response: updatedAnswers(signatureBody),
        },
        config,
      },
      async (request, reply) =>
        requestCode(request, reply, request.params.lease_id, request.body.signatory_id, own),
    );
    api.post(
      `${prefix}/:lease_id/signature/validate`,
      {
        schema: {
          tags,
          summary: own
            ? "Sign with the code received (5 wrong codes lock the signatory)"
            : "Sign as a signatory with the code received (5 wrong codes lock the signatory)",
          params: leaseParams,
          body: validateBody,
          response: updatedAnswers(signatureBody),
        },
        config,
      },
      async (request, reply) => validateCode(request, reply, request.params.lease_id, request.body, own),
    );
  }

  api.post(
    "/api/leases/:lease_id/signature/cancel",
    {
      schema: {
        tags,
        summary: "Cancel the signature in progress: the lease back to DRAFT, its credit released",
        params: leaseParams,
        body: cancelBody.nullish(),
        response: updatedAnswers(signatureBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      await currentProcess(request, lease_id);
      const position = await endSigning(depsOf(request), commandContext(request), lease_id, {
        cause: "CANCELLED",
        reason: request.body?.reason ?? "Cancelled",
        step: stepOf(request, "api"),
      });
      return answerSignature(request, reply, 200, position, lease_id);
    },
  );
}
