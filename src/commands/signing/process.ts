import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type CreditCommand, creditDecider, creditLedgerStream } from "../../events/credits.ts";
import { estateOccupancyOf } from "../../events/leaseOccupancy.ts";
import { type LeaseEvent, leaseStream } from "../../events/leases.ts";
import {
  leaseSigningStream,
  type SignatoryRole,
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
import { frenchDateTime } from "../../platform/frenchText.ts";
import { oneAtATime } from "../../platform/oneAtATime.ts";
import { mergePdfs } from "../../platform/pdf/mergePdfs.ts";
import { sha256Of } from "../../platform/pdf/renderCache.ts";
import { renderMarkup } from "../../platform/pdf/renderMarkup.ts";
import { neutralise } from "../../platform/pdf/renderTemplate.ts";
import { type CommandContext, loadStream, runCommand } from "../../platform/runCommand.ts";
import { dwellingAddressOf, readLeaseContractFacts } from "../../queries/leaseContractFacts.ts";
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

/** How the certificate names each signatory's role and channel (a French reader, no codes). */
const ROLE_NAMES: Record<SignatoryRole, string> = {
  Primary: "Locataire",
  CoTenant: "Locataire",
  Guarantor: "Caution",
  Lessor: "Bailleur",
};
const CHANNEL_NAMES: Record<SigningStep["channel"], string> = {
  api: "depuis l'espace de gestion du bailleur",
  lessee_space: "depuis l'espace personnel du locataire",
  worker: "par le service",
};

/**
 * The signature certificate, first page of the signed lease: the dwelling, each signed file with
 * its SHA-256, each signatory with the time (Paris), channel and IP of their signature, the legal
 * standing. Paragraphs, not a wide table: a hash or an IP address never runs off the page.
 */
export function signedMarkup(
  evidence: ReturnType<typeof evidenceOf>,
  completedAt: string,
  dwelling: { address: string | null },
): string {
  const signedAt = new Map(
    evidence.steps.filter((s) => s.step === "SIGNED").map((s) => [s.signatory_id, s] as const),
  );
  const line = (v: unknown) => neutralise(String(v ?? ""));
  return [
    "# Certificat de signature électronique",
    `Bail d'habitation du logement situé ${line(dwelling.address ?? "à l'adresse indiquée au contrat")}, signé électroniquement par toutes les parties. Signature achevée le ${frenchDateTime(completedAt)} (heure de Paris).`,
    "",
    "## Documents signés",
    "Chaque document est identifié par son empreinte SHA-256 : un seul octet modifié la change entièrement.",
    "",
    "**Ensemble signé** (le contrat et ses annexes)",
    "",
    `SHA-256 : ${evidence.document.sha256}`,
    "",
    `**Contrat de location**, fichier ${line(evidence.document.contract.filename)}`,
    "",
    `SHA-256 : ${evidence.document.contract.sha256}`,
    ...evidence.document.annexes.flatMap((a) => [
      "",
      `**Annexe : ${line(a.title)}**`,
      "",
      `SHA-256 : ${a.sha256 ?? "fichier absent"}`,
    ]),
    "",
    "## Signataires",
    ...evidence.signatories.flatMap((s) => {
      const step = signedAt.get(s.signatory_id);
      const where = step
        ? `${CHANNEL_NAMES[step.channel]}${step.ip ? `, adresse IP ${line(step.ip)}` : ""}`
        : "";
      const who = `**${ROLE_NAMES[s.role]} : ${line(s.name ?? "nom effacé")}**`;
      return [
        "",
        step
          ? `${who}, signé le ${frenchDateTime(step.at)} (heure de Paris), ${where}, par un code à usage unique reçu par courriel.`
          : `${who} : non signé.`,
      ];
    }),
    "",
    "## Valeur juridique",
    "Signature électronique simple (code civil, art. 1366 et 1367 al. 2) : chaque signataire a reçu par courriel un code à usage unique et l'a saisi. Le fichier de preuves joint retrace chaque étape (date, adresse IP, navigateur, canal, empreinte du document). La présomption de fiabilité de l'article 1367 (décret n° 2017-1416) est réservée à la signature électronique qualifiée (règlement eIDAS n° 910/2014).",
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
    const facts = await readLeaseContractFacts(deps.sql, context.tenant_id, leaseId, "");
    const certificate = await renderMarkup(
      signedMarkup(evidence, completedAt, { address: dwellingAddressOf(facts?.estate, facts?.place) }),
      "Certificat de signature électronique",
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
