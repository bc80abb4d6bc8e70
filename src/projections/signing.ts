import {
  evolveSigning,
  type ProcessState,
  type SignatoryState,
  type SigningEvent,
  signingEventTypes,
} from "../events/signing.ts";
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

/** The fold's state as `state` keeps it: signatories as a list, since jsonb does not keep key order. */
type StoredProcess = Omit<ProcessState, "signatories"> & { signatories: SignatoryState[] };
const processOf = (stored: StoredProcess): ProcessState => ({
  ...stored,
  signatories: Object.fromEntries(stored.signatories.map((s) => [s.signatory_id, s])),
});

/**
 * A process's row: the stream's one fold (evolveSigning) for the process the event is about,
 * with the fold's state kept in `state` so the next event goes on from it. The codes' hash and
 * salt are blanked there: a read model never holds what could confirm a code.
 */
function evolveProcess(row: Row | null, event: RecordedEvent<ProcessEvent>): Row | null {
  const before = row ? processOf(row.state as StoredProcess) : null;
  const { process } = evolveSigning({ annexes: {}, process: before }, event);
  if (!process) return null;
  return {
    lease_id: process.lease_id,
    status: process.status,
    lease_revision: process.lease_revision,
    reservation_id: process.reservation_id,
    contract: process.contract,
    annexes: process.annexes,
    document_sha256: process.document_sha256,
    signatories: Object.values(process.signatories).map((s) => ({
      signatory_id: s.signatory_id,
      role: s.role,
      lessee_id: s.lessee_id,
      // Kept (not answered): an owner's erasure finds the processes naming them.
      owner_id: s.owner_id ?? null,
      name: s.name,
      email: s.email,
      status: s.status,
      attempts: s.attempts,
      code_sent_at: s.code_sent_at,
      code_expires_at: s.code?.expires_at ?? null,
      signed_at: s.signed_at,
    })),
    signed_pdf: process.signed_pdf,
    evidence: process.evidence,
    end_cause: process.end_cause,
    end_reason: process.end_reason,
    initiated_at: process.initiated_at,
    completed_at: process.completed_at,
    ended_at: process.ended_at,
    personal_data_erased_at: process.erased_at,
    state: {
      ...process,
      signatories: Object.values(process.signatories).map((s) => ({
        ...s,
        code: s.code && { ...s.code, hash: "", salt: "" },
      })),
    } satisfies StoredProcess,
    revision: Number(event.stream_revision),
    updated_at: event.metadata.occurred_at,
  };
}

export const leaseSignaturesProjection = rowProjection<ProcessEvent>({
  name: "lease_signatures",
  // 2: owner_id of the signatories, personal_data_erased_at. 3: built by the stream's fold, `state`.
  version: 3,
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
    "state",
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
  -- The fold's state of the process (codes' hash and salt blanked), not answered.
  state jsonb NOT NULL,
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
