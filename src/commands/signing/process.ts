import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type CreditCommand, creditDecider, creditLedgerStream } from "../../events/credits.ts";
import { estateOccupancyOf } from "../../events/leaseOccupancy.ts";
import { type LeaseEvent, leaseStream } from "../../events/leases.ts";
import {
  leaseSigningStream,
  type SigningEvent,
  type SigningState,
  type SigningStep,
} from "../../events/signing.ts";
import { legalToday } from "../../law/calendar.ts";
import { blobKey, blobStoreFor } from "../../platform/blobs/index.ts";
import type { Sql } from "../../platform/db.ts";
import { ApiError } from "../../platform/errors.ts";
import {
  type EventMetadata,
  type EventStore,
  latestPosition,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { oneAtATime } from "../../platform/oneAtATime.ts";
import { mergePdfs } from "../../platform/pdf/mergePdfs.ts";
import { sha256Of } from "../../platform/pdf/renderCache.ts";
import { renderPdf } from "../../platform/pdf/renderPdf.ts";
import { documentOf, markupToContent } from "../../platform/pdf/renderTemplate.ts";
import { type CommandContext, loadStream, runCommand } from "../../platform/runCommand.ts";
import { signedParts } from "../../queries/signing.ts";
import { leaseSigningDecider, type SigningCommand, signingDecider } from "./decider.ts";

/**
 * The signature process beyond one stream (docs/signing.md): the credit on the tenant's ledger,
 * the lease's status on its stream, the signed PDF and the evidence file once all have signed.
 * Each step is idempotent, so the reaction loop (./loop.ts) finishes what a request left undone.
 */

export interface SigningDeps {
  sql: Sql;
  store: EventStore;
}

export const contextOf = (
  deps: SigningDeps,
  tenantId: string,
  metadata: Partial<EventMetadata> = {},
): CommandContext => ({
  store: deps.store,
  tenant_id: tenantId,
  metadata: {
    tenant_id: tenantId,
    actor_key_id: "signing",
    correlation_id: null,
    causation_id: null,
    occurred_at: new Date().toISOString(),
    ...metadata,
  },
});

/** One command on the tenant's credit ledger (src/events/credits.ts), retried on lost races. */
export function onLedger(context: CommandContext, command: CreditCommand) {
  const stream = creditLedgerStream(context.tenant_id);
  return oneAtATime(stream, async () => {
    for (let round = 1; ; round++) {
      try {
        return await runCommand(context, stream, creditDecider, command);
      } catch (error) {
        const lost =
          error instanceof WrongExpectedRevisionError ||
          (error instanceof ApiError && error.code === "Conflict");
        if (!lost || round >= 20) throw error;
        await sleep(Math.random() * Math.min(round, 10) * 5);
      }
    }
  });
}

export const onLease = (
  context: CommandContext,
  leaseId: string,
  command: Parameters<typeof leaseSigningDecider.decide>[0],
) =>
  runCommand(context, leaseStream(leaseId), leaseSigningDecider, command, {
    reserving: estateOccupancyOf(leaseId),
  });

export const onSigning = (context: CommandContext, leaseId: string, command: SigningCommand) =>
  runCommand(context, leaseSigningStream(leaseId), signingDecider(leaseId), command);

export const loadSigning = (deps: SigningDeps, tenantId: string, leaseId: string) =>
  loadStream<SigningState, SigningEvent>(
    deps.store,
    leaseSigningStream(leaseId),
    tenantId,
    signingDecider(leaseId),
  );

export const workerStep = (): SigningStep => ({
  at: new Date().toISOString(),
  ip: null,
  user_agent: null,
  channel: "worker",
  actor: "signing",
});

/**
 * Ends the lease's process (a cancel, or a change of the lease): the process's end, the credit
 * released, the lease back to DRAFT when it still waits for signatures. Each part is a no-op
 * once done.
 */
export async function endSigning(
  _deps: SigningDeps,
  context: CommandContext,
  leaseId: string,
  end: { cause: "CANCELLED" | "LEASE_CHANGED"; reason: string; step: SigningStep },
) {
  const ended = await onSigning(context, leaseId, { type: "EndSignature", ...end });
  const process = ended.state.process;
  if (process?.status !== "CANCELLED") return ended.position;
  const released = await onLedger(context, {
    type: "ReleaseCredits",
    reservation_id: process.reservation_id,
  });
  const drafted = await onLease(context, leaseId, {
    type: "ReturnLeaseToDraft",
    lease_id: leaseId,
    effective_date: legalToday(),
    reason:
      end.cause === "CANCELLED" ? `Signature cancelled: ${end.reason}` : `Signature ended: ${end.reason}`,
  });
  return latestPosition([ended.position, released.position, drafted.position]);
}

/** The events of the newest process of the stream (from its initiation). */
function processEvents(events: RecordedEvent<SigningEvent>[], processId: string) {
  return events.filter((e) => e.type !== "LeaseAnnexAttached" && e.data.process_id === processId);
}

/** One line of the evidence file. */
export interface EvidenceStep extends SigningStep {
  step: "INITIATED" | "CODE_SENT" | "CODE_REJECTED" | "CODE_REJECTED_LOCKED" | "SIGNED";
  signatory_id: string | null;
  document_sha256: string;
  expires_at?: string;
  message_id?: string;
  attempts?: number;
}

/** The evidence file (docs/signing.md, "Evidence file"): every step with who, when, where, what. */
export function evidenceOf(events: RecordedEvent<SigningEvent>[], processId: string) {
  const own = processEvents(events, processId);
  const initiated = own.find((e) => e.type === "LeaseSignatureInitiated");
  if (initiated?.type !== "LeaseSignatureInitiated") throw new Error("A process without initiation");
  const d = initiated.data;
  const steps = own.flatMap((e): EvidenceStep[] => {
    switch (e.type) {
      case "LeaseSignatureInitiated":
        return [
          { step: "INITIATED", signatory_id: null, ...e.data.step, document_sha256: d.document_sha256 },
        ];
      case "LeaseSignatureCodeSent":
        return [
          {
            step: "CODE_SENT",
            signatory_id: e.data.signatory_id,
            ...e.data.step,
            expires_at: e.data.expires_at,
            message_id: e.data.message_id,
            document_sha256: d.document_sha256,
          },
        ];
      case "LeaseSignatureCodeRejected":
        return [
          {
            step: e.data.locked ? ("CODE_REJECTED_LOCKED" as const) : ("CODE_REJECTED" as const),
            signatory_id: e.data.signatory_id,
            ...e.data.step,
            attempts: e.data.attempts,
            document_sha256: d.document_sha256,
          },
        ];
      case "LeaseSignatorySigned":
        return [
          {
            step: "SIGNED",
            signatory_id: e.data.signatory_id,
            ...e.data.step,
            document_sha256: e.data.document_sha256,
          },
        ];
      default:
        return [];
    }
  });
  return {
    format: "pms-signature-evidence/1",
    signature_level: "SIMPLE",
    legal_basis:
      "Simple electronic signature (code civil art. 1366 and 1367 al. 2): a one-time password sent by email to each signatory. The presumption of reliability of art. 1367 (décret n° 2017-1416) needs a qualified electronic signature (eIDAS regulation n° 910/2014 art. 3 and 26-28).",
    lease_id: d.lease_id,
    process_id: d.process_id,
    document: { sha256: d.document_sha256, contract: d.contract, annexes: d.annexes },
    signatories: d.signatories.map(({ email: _, auth_user_id: __, ...s }) => s),
    steps,
  };
}

const cell = (v: unknown) => String(v ?? "").replace(/\|/g, "/");

/** The signed lease PDF: the contract's and the annexes' hashes, the signatures, the legal standing. */
export function signedMarkup(evidence: ReturnType<typeof evidenceOf>, completedAt: string): string {
  const signedAt = new Map(
    evidence.steps.filter((s) => s.step === "SIGNED").map((s) => [s.signatory_id, s] as const),
  );
  return [
    "# Bail signé électroniquement",
    `Bail ${evidence.lease_id}, processus de signature ${evidence.process_id}, achevé le ${completedAt}.`,
    "",
    "## Documents signés",
    `Empreinte SHA-256 de l'ensemble signé : ${evidence.document.sha256}`,
    "",
    "| Document | Fichier | SHA-256 |",
    "| --- | --- | --- |",
    `| Contrat de location | ${cell(evidence.document.contract.filename)} | ${evidence.document.contract.sha256} |`,
    ...evidence.document.annexes.map(
      (a) => `| Annexe ${cell(a.code)} | ${cell(a.title)} | ${cell(a.sha256)} |`,
    ),
    "",
    "## Signataires",
    "| Qualité | Nom | Signé le | Canal | Adresse IP |",
    "| --- | --- | --- | --- | --- |",
    ...evidence.signatories.map((s) => {
      const step = signedAt.get(s.signatory_id);
      return `| ${cell(s.role)} | ${cell(s.name)} | ${cell(step?.at)} | ${cell(step?.channel)} | ${cell(step?.ip)} |`;
    }),
    "",
    "## Valeur juridique",
    "Signature électronique simple (code civil art. 1366 et 1367 al. 2) : chaque signataire a reçu par courriel un code à usage unique et l'a saisi. Le fichier de preuves joint retrace chaque étape (date, adresse IP, navigateur, canal, empreinte du document). La présomption de fiabilité de l'article 1367 (décret n° 2017-1416) est réservée à la signature électronique qualifiée (règlement eIDAS n° 910/2014).",
  ].join("\n");
}

/**
 * Once every signatory has signed: the signed PDF and the evidence file stored, the process
 * completed, the credit captured, the lease ACTIVE. Safe to run again at any point.
 */
export async function finishSigning(
  deps: SigningDeps,
  context: CommandContext,
  leaseId: string,
): Promise<Position | null> {
  const loaded = await loadSigning(deps, context.tenant_id, leaseId);
  let process = loaded.state.process;
  let completed: Position | null = null;
  if (!process || (process.status !== "SIGNED" && process.status !== "COMPLETED")) return null;
  if (process.status === "SIGNED") {
    const completedAt = new Date().toISOString();
    const evidence = evidenceOf(loaded.events, process.process_id);
    const evidenceBytes = Buffer.from(
      `${JSON.stringify({ ...evidence, completed_at: completedAt }, null, 2)}\n`,
    );
    // The certificate first, then the very bytes that were signed: the contract and the annexes.
    const certificate = await renderPdf(
      documentOf(markupToContent(signedMarkup(evidence, completedAt)), {
        title: "Bail signé électroniquement",
      }),
    );
    const pdf = await mergePdfs([
      { bytes: certificate, content_type: "application/pdf" },
      ...(await signedParts(deps.sql, context.tenant_id, leaseId, evidence.document)),
    ]);
    const blobs = blobStoreFor(deps.sql);
    const base = `${process.process_id}-${randomUUID().slice(0, 8)}`;
    const [signed, proof] = await Promise.all([
      blobs.putBlob(blobKey(context.tenant_id, "signed-leases", base), pdf, {
        content_type: "application/pdf",
      }),
      blobs.putBlob(blobKey(context.tenant_id, "signature-evidence", base), evidenceBytes, {
        content_type: "application/json",
      }),
    ]);
    const done = await onSigning(context, leaseId, {
      type: "CompleteSignature",
      completion: {
        signed_pdf: { blob_key: signed.key, sha256: sha256Of(pdf), size: signed.size },
        evidence: { blob_key: proof.key, sha256: sha256Of(evidenceBytes), size: proof.size },
        completed_at: completedAt,
      },
    });
    process = done.state.process ?? process;
    completed = done.position;
  }
  const captured = await onLedger(context, {
    type: "CaptureCredits",
    reservation_id: process.reservation_id,
  });
  const activated = await onLease(context, leaseId, {
    type: "ActivateSignedLease",
    lease_id: leaseId,
    effective_date: legalToday(),
  });
  return latestPosition([completed, captured.position, activated.position]);
}

/**
 * Whether the lease moved since it was sent for signature: any event after that revision but its
 * documents and compliance reports (the terms, the tenants, the rent, the status) ends the process.
 */
export const LEASE_EVENTS_THAT_KEEP_SIGNING: readonly LeaseEvent["type"][] = [
  "LeaseDocumentAdded",
  "LeaseDocumentUpdated",
  "LeaseDocumentDeleted",
  "LeaseComplianceChecked",
];

export async function leaseChangeSince(
  deps: SigningDeps,
  leaseId: string,
  revision: number,
): Promise<LeaseEvent["type"] | null> {
  const events = await deps.store.readStream(leaseStream(leaseId), { from_revision: BigInt(revision + 1) });
  const change = events.find((e) => !LEASE_EVENTS_THAT_KEEP_SIGNING.includes(e.type as LeaseEvent["type"]));
  return (change?.type as LeaseEvent["type"] | undefined) ?? null;
}
