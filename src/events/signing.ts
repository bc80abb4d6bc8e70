import type { AnnexCode } from "../law/annexes.ts";
import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Signing a lease (docs/design.md §7.2, docs/signing.md): one stream per lease, `lease_signing-<lease id>`,
 * holding its annexes and its signature processes. The lease's own status moves on the lease
 * stream (LeaseSentForSignature, LeaseActivated, LeaseReturnedToDraft); the credit on the tenant's
 * ledger (CreditsReserved, CreditsCaptured, CreditsReleased).
 */

export const leaseSigningStream = (leaseId: string) => `lease_signing-${leaseId}`;

export const ANNEX_CATEGORIES = ["STATIC_FILE", "GENERATED", "USER_UPLOAD"] as const;
export type AnnexCategory = (typeof ANNEX_CATEGORIES)[number];
/** Where an annex comes from: the shipped text, the estate's DPE or diagnostic, an upload. */
export const ANNEX_SOURCES = ["CATALOG", "DPE", "ESTATE_DIAGNOSTIC", "UPLOAD"] as const;
export type AnnexSource = (typeof ANNEX_SOURCES)[number];

export interface AnnexData {
  lease_id: string;
  annex_id: string;
  code: AnnexCode;
  category: AnnexCategory;
  title: string;
  source: AnnexSource;
  /** The DPE or estate diagnostic linked; null for the others. */
  source_id: string | null;
  document_date: string | null;
  valid_until: string | null;
  negative: boolean | null;
  /** The file: the upload, or the one uploaded with the linked DPE or diagnostic; null for the service's notice (made on download) and links made before they carried it. */
  file: { filename: string; content_type: string; size: number; sha256: string; blob_key: string } | null;
}

export const SIGNATORY_ROLES = ["Primary", "CoTenant", "Guarantor", "Lessor"] as const;
export type SignatoryRole = (typeof SIGNATORY_ROLES)[number];

export interface Signatory {
  signatory_id: string;
  role: SignatoryRole;
  /** The lessee signing; null for the lessor. */
  lessee_id: string | null;
  /** The lessee's sign-in subject (their own space signs only for them); null when none. */
  auth_user_id: string | null;
  /** Null once erased (LeaseSigningPersonalDataErased). */
  name: string | null;
  /** Where the one-time password goes; null: the signatory cannot be sent one. */
  email: string | null;
  /**
   * The estate's owner signing as lessor, whose name and email these are: their erasure reaches the
   * messages sent to them. Absent in processes initiated before it was recorded.
   */
  owner_id?: string | null;
}

/** Who did a step and from where: the evidence file's lines (docs/signing.md, "Evidence file"). */
export interface SigningStep {
  at: string;
  ip: string | null;
  user_agent: string | null;
  /** `api` (a key or a manager's token), `lessee_space` (the lessee's own token), `worker`. */
  channel: "api" | "lessee_space" | "worker";
  actor: string | null;
}

export interface SignatureInitiatedData {
  lease_id: string;
  process_id: string;
  reservation_id: string;
  /** The lease's stream revision once sent for signature: any later term change ends the process. */
  lease_revision: number;
  contract: { pdf_id: string; sha256: string; filename: string };
  annexes: { annex_id: string; code: AnnexCode; title: string; sha256: string | null }[];
  /** SHA-256 of the canonical list of what is signed (contract and annexes hashes): each step names it. */
  document_sha256: string;
  signatories: Signatory[];
  step: SigningStep;
}

export interface SignatureCodeSentData {
  lease_id: string;
  process_id: string;
  signatory_id: string;
  /** HMAC-SHA256 of the code keyed by `salt` (codeHash): the code itself is never stored. */
  code_hash: string;
  salt: string;
  expires_at: string;
  message_id: string;
  step: SigningStep;
}

export interface SignatureCodeRejectedData {
  lease_id: string;
  process_id: string;
  signatory_id: string;
  attempts: number;
  locked: boolean;
  step: SigningStep;
}

export interface SignatorySignedData {
  lease_id: string;
  process_id: string;
  signatory_id: string;
  document_sha256: string;
  step: SigningStep;
}

export interface StoredFile {
  blob_key: string;
  sha256: string;
  size: number;
}

export interface SignatureCompletedData {
  lease_id: string;
  process_id: string;
  reservation_id: string;
  signed_pdf: StoredFile;
  evidence: StoredFile;
  completed_at: string;
}

export interface SignatureEndedData {
  lease_id: string;
  process_id: string;
  reservation_id: string;
  /** CANCELLED: asked for; LEASE_CHANGED: the lease's terms or status moved while pending. */
  cause: "CANCELLED" | "LEASE_CHANGED";
  reason: string;
  step: SigningStep;
}

/**
 * A data subject named by the lease's signing stream was erased (GDPR art. 17, docs/personal-data.md):
 * the stream's key is destroyed, so every signatory's name and email and every step's ip, user agent
 * and actor read null, in this process as in the others of the stream (one per process).
 */
export interface SigningPersonalDataErasedData {
  lease_id: string;
  process_id: string;
  /** The erased subject's stream (`lessee-<id>`, `owner-<id>`). */
  data_subject: string;
  erased_at: string;
}

export type SigningEvent =
  | DomainEvent<"LeaseAnnexAttached", AnnexData>
  | DomainEvent<"LeaseSignatureInitiated", SignatureInitiatedData>
  | DomainEvent<"LeaseSignatureCodeSent", SignatureCodeSentData>
  | DomainEvent<"LeaseSignatureCodeRejected", SignatureCodeRejectedData>
  | DomainEvent<"LeaseSignatorySigned", SignatorySignedData>
  | DomainEvent<"LeaseSignatureCompleted", SignatureCompletedData>
  | DomainEvent<"LeaseSignatureEnded", SignatureEndedData>
  | DomainEvent<"LeaseSigningPersonalDataErased", SigningPersonalDataErasedData>;

export const signingEventTypes = allEventTypes<SigningEvent["type"]>()([
  "LeaseAnnexAttached",
  "LeaseSignatureInitiated",
  "LeaseSignatureCodeSent",
  "LeaseSignatureCodeRejected",
  "LeaseSignatorySigned",
  "LeaseSignatureCompleted",
  "LeaseSignatureEnded",
  "LeaseSigningPersonalDataErased",
]);

// ---------------------------------------------------------------- the fold

export type SignatoryStatus = "PENDING" | "SIGNED" | "LOCKED";

export interface SignatoryState extends Signatory {
  status: SignatoryStatus;
  code: { hash: string; salt: string; sent_at: string; expires_at: string } | null;
  /** When the last code was sent; kept once signed (the code is not). */
  code_sent_at: string | null;
  /** Wrong codes since the last one sent... and before: the lock counts every wrong attempt. */
  attempts: number;
  signed_at: string | null;
}

export type ProcessStatus = "PENDING" | "SIGNED" | "COMPLETED" | "CANCELLED";

/** One signature process, as the decider, the answers and the `lease_signatures` read model see it. */
export interface ProcessState {
  process_id: string;
  lease_id: string;
  status: ProcessStatus;
  reservation_id: string;
  lease_revision: number;
  contract: SignatureInitiatedData["contract"];
  annexes: SignatureInitiatedData["annexes"];
  document_sha256: string;
  signatories: Record<string, SignatoryState>;
  signed_pdf: StoredFile | null;
  evidence: StoredFile | null;
  end_cause: SignatureEndedData["cause"] | null;
  end_reason: string | null;
  initiated_at: string;
  completed_at: string | null;
  ended_at: string | null;
  /** When a data subject it names was erased: names and emails read null since. */
  erased_at: string | null;
}

export interface SigningState {
  annexes: Record<string, AnnexData>;
  /** The newest process; null before the first. */
  process: ProcessState | null;
}

export const emptySigning = (): SigningState => ({ annexes: {}, process: null });

const withSignatory = (
  process: ProcessState,
  id: string,
  change: (s: SignatoryState) => SignatoryState,
): ProcessState => {
  const current = process.signatories[id];
  return current ? { ...process, signatories: { ...process.signatories, [id]: change(current) } } : process;
};

const onProcess = (state: SigningState, change: (p: ProcessState) => ProcessState): SigningState =>
  state.process ? { ...state, process: change(state.process) } : state;

/** The lease signing stream's one fold; new objects each time. */
export function evolveSigning(state: SigningState, event: SigningEvent): SigningState {
  switch (event.type) {
    case "LeaseAnnexAttached":
      return { ...state, annexes: { ...state.annexes, [event.data.annex_id]: event.data } };
    case "LeaseSignatureInitiated": {
      const d = event.data;
      const signatories: Record<string, SignatoryState> = {};
      for (const s of d.signatories)
        signatories[s.signatory_id] = {
          ...s,
          status: "PENDING",
          code: null,
          code_sent_at: null,
          attempts: 0,
          signed_at: null,
        };
      return {
        ...state,
        process: {
          process_id: d.process_id,
          lease_id: d.lease_id,
          status: "PENDING",
          reservation_id: d.reservation_id,
          lease_revision: d.lease_revision,
          contract: d.contract,
          annexes: d.annexes,
          document_sha256: d.document_sha256,
          signatories,
          signed_pdf: null,
          evidence: null,
          end_cause: null,
          end_reason: null,
          initiated_at: d.step.at,
          completed_at: null,
          ended_at: null,
          erased_at: null,
        },
      };
    }
    case "LeaseSignatureCodeSent": {
      const d = event.data;
      return onProcess(state, (p) =>
        withSignatory(p, d.signatory_id, (s) => ({
          ...s,
          code: { hash: d.code_hash, salt: d.salt, sent_at: d.step.at, expires_at: d.expires_at },
          code_sent_at: d.step.at,
        })),
      );
    }
    case "LeaseSignatureCodeRejected": {
      const d = event.data;
      return onProcess(state, (p) =>
        withSignatory(p, d.signatory_id, (s) => ({
          ...s,
          attempts: d.attempts,
          status: d.locked ? "LOCKED" : s.status,
        })),
      );
    }
    case "LeaseSignatorySigned": {
      const d = event.data;
      return onProcess(state, (p) => {
        const next = withSignatory(p, d.signatory_id, (s) => ({
          ...s,
          status: "SIGNED",
          code: null,
          signed_at: d.step.at,
        }));
        const all = Object.values(next.signatories).every((s) => s.status === "SIGNED");
        return { ...next, status: all ? "SIGNED" : next.status };
      });
    }
    case "LeaseSignatureCompleted": {
      const d = event.data;
      return onProcess(state, (p) => ({
        ...p,
        status: "COMPLETED",
        signed_pdf: d.signed_pdf,
        evidence: d.evidence,
        completed_at: d.completed_at,
      }));
    }
    case "LeaseSignatureEnded": {
      const d = event.data;
      return onProcess(state, (p) => ({
        ...p,
        status: "CANCELLED",
        end_cause: d.cause,
        end_reason: d.reason,
        ended_at: d.step.at,
      }));
    }
    case "LeaseSigningPersonalDataErased":
      return onProcess(state, (p) =>
        p.process_id !== event.data.process_id
          ? p
          : {
              ...p,
              signatories: Object.fromEntries(
                Object.entries(p.signatories).map(([id, s]) => [id, { ...s, name: null, email: null }]),
              ),
              erased_at: event.data.erased_at,
            },
      );
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}
