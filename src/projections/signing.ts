import { type SigningEvent, signingEventTypes } from "../events/signing.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { type Row, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * The signing read models (docs/signing.md): `lease_annexes`, one row per annex attached, and
 * `lease_signatures`, one row per signature process with its signatories (no code hashes).
 */

const ANNEX_EVENTS = ["LeaseAnnexAttached"] as const satisfies readonly SigningEvent["type"][];
type AnnexEvent = Extract<SigningEvent, { type: (typeof ANNEX_EVENTS)[number] }>;

export const leaseAnnexesProjection = rowProjection<AnnexEvent>({
  name: "lease_annexes",
  version: 1,
  table: "lease_annexes",
  columns: [
    "tenant_id",
    "id",
    "lease_id",
    "code",
    "category",
    "title",
    "source",
    "source_id",
    "document_date",
    "valid_until",
    "negative",
    "filename",
    "content_type",
    "size",
    "sha256",
    "blob_key",
    "created_at",
  ],
  schema: `
CREATE TABLE lease_annexes (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  code text NOT NULL,
  category text NOT NULL,
  title text NOT NULL,
  source text NOT NULL,
  source_id uuid,
  document_date date,
  valid_until date,
  negative boolean,
  filename text,
  content_type text,
  size bigint,
  sha256 text,
  blob_key text,
  created_at timestamptz NOT NULL
);
CREATE INDEX lease_annexes_lease ON lease_annexes (tenant_id, lease_id, created_at, id);
${tenantPolicy("lease_annexes")}`,
  handles: ANNEX_EVENTS,
  creates: ANNEX_EVENTS,
  idOf: (event) => event.data.annex_id,
  evolve: (_row, event) => {
    const { file, annex_id: _, ...d } = event.data;
    return {
      ...d,
      filename: file?.filename ?? null,
      content_type: file?.content_type ?? null,
      size: file?.size ?? null,
      sha256: file?.sha256 ?? null,
      blob_key: file?.blob_key ?? null,
      created_at: event.metadata.occurred_at,
    };
  },
});

const PROCESS_EVENTS = signingEventTypes.filter((t) => t !== "LeaseAnnexAttached");
type ProcessEvent = Exclude<SigningEvent, AnnexEvent>;

type SignatoryRow = Record<string, unknown> & { signatory_id: string };

const withSignatory = (row: Row, id: string, change: (s: SignatoryRow) => SignatoryRow): Row => ({
  signatories: (row.signatories as SignatoryRow[]).map((s) => (s.signatory_id === id ? change(s) : s)),
});

function evolveProcess(row: Row | null, event: RecordedEvent<ProcessEvent>): Row | null {
  const at = event.metadata.occurred_at;
  const base = { revision: Number(event.stream_revision), updated_at: at };
  switch (event.type) {
    case "LeaseSignatureInitiated": {
      const d = event.data;
      return {
        ...base,
        lease_id: d.lease_id,
        status: "PENDING",
        lease_revision: d.lease_revision,
        reservation_id: d.reservation_id,
        contract: d.contract,
        annexes: d.annexes,
        document_sha256: d.document_sha256,
        signatories: d.signatories.map((s) => ({
          signatory_id: s.signatory_id,
          role: s.role,
          lessee_id: s.lessee_id,
          // Kept (not answered): an owner's erasure finds the processes naming them.
          owner_id: s.owner_id ?? null,
          name: s.name,
          email: s.email,
          status: "PENDING",
          attempts: 0,
          code_sent_at: null,
          code_expires_at: null,
          signed_at: null,
        })),
        signed_pdf: null,
        evidence: null,
        end_cause: null,
        end_reason: null,
        initiated_at: at,
        completed_at: null,
        ended_at: null,
        personal_data_erased_at: null,
      };
    }
    case "LeaseSignatureCodeSent": {
      if (!row) return null;
      const d = event.data;
      return {
        ...row,
        ...base,
        ...withSignatory(row, d.signatory_id, (s) => ({
          ...s,
          code_sent_at: d.step.at,
          code_expires_at: d.expires_at,
        })),
      };
    }
    case "LeaseSignatureCodeRejected": {
      if (!row) return null;
      const d = event.data;
      return {
        ...row,
        ...base,
        ...withSignatory(row, d.signatory_id, (s) => ({
          ...s,
          attempts: d.attempts,
          status: d.locked ? "LOCKED" : s.status,
        })),
      };
    }
    case "LeaseSignatorySigned": {
      if (!row) return null;
      const d = event.data;
      const next = withSignatory(row, d.signatory_id, (s) => ({
        ...s,
        status: "SIGNED",
        signed_at: d.step.at,
        code_expires_at: null,
      }));
      const all = (next.signatories as SignatoryRow[]).every((s) => s.status === "SIGNED");
      return { ...row, ...base, ...next, status: all ? "SIGNED" : row.status };
    }
    case "LeaseSignatureCompleted":
      if (!row) return null;
      return {
        ...row,
        ...base,
        status: "COMPLETED",
        signed_pdf: event.data.signed_pdf,
        evidence: event.data.evidence,
        completed_at: event.data.completed_at,
      };
    case "LeaseSignatureEnded":
      if (!row) return null;
      return {
        ...row,
        ...base,
        status: "CANCELLED",
        end_cause: event.data.cause,
        end_reason: event.data.reason,
        ended_at: at,
      };
    case "LeaseSigningPersonalDataErased":
      if (!row) return null;
      return {
        ...row,
        ...base,
        signatories: (row.signatories as SignatoryRow[]).map((s) => ({ ...s, name: null, email: null })),
        personal_data_erased_at: event.data.erased_at,
      };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

export const leaseSignaturesProjection = rowProjection<ProcessEvent>({
  name: "lease_signatures",
  // 2: owner_id of the signatories, personal_data_erased_at.
  version: 2,
  table: "lease_signatures",
  columns: [
    "tenant_id",
    "id",
    "lease_id",
    "status",
    "lease_revision",
    "reservation_id",
    "contract",
    "annexes",
    "document_sha256",
    "signatories",
    "signed_pdf",
    "evidence",
    "end_cause",
    "end_reason",
    "initiated_at",
    "completed_at",
    "ended_at",
    "personal_data_erased_at",
    "revision",
    "updated_at",
  ],
  schema: `
CREATE TABLE lease_signatures (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  status text NOT NULL,
  lease_revision integer NOT NULL,
  reservation_id uuid NOT NULL,
  contract jsonb NOT NULL,
  annexes jsonb NOT NULL,
  document_sha256 text NOT NULL,
  signatories jsonb NOT NULL,
  signed_pdf jsonb,
  evidence jsonb,
  end_cause text,
  end_reason text,
  initiated_at timestamptz NOT NULL,
  completed_at timestamptz,
  ended_at timestamptz,
  personal_data_erased_at timestamptz,
  revision integer NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_signatures_lease ON lease_signatures (tenant_id, lease_id, initiated_at DESC);
CREATE INDEX lease_signatures_open ON lease_signatures (tenant_id, initiated_at, id) WHERE status IN ('PENDING', 'SIGNED');
${tenantPolicy("lease_signatures")}`,
  handles: PROCESS_EVENTS as ProcessEvent["type"][],
  creates: ["LeaseSignatureInitiated"],
  idOf: (event) => event.data.process_id,
  evolve: evolveProcess,
});

export const signingProjections = [leaseAnnexesProjection, leaseSignaturesProjection];
