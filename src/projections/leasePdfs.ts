import { type LeasePdfEvent, leasePdfEventTypes } from "../events/leasePdfs.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/** `lease_pdfs`: one row per generated lease contract PDF still present (docs/pdf.md). */
export const LEASE_PDF_COLUMNS = [
  "tenant_id",
  "id",
  "lease_id",
  "template",
  "template_version",
  "lease_revision",
  "contract_sha256",
  "filename",
  "size",
  "sha256",
  "blob_key",
  "from_cache",
  "owner_id",
  "owner_recorded",
  "revision",
  "created_at",
] as const;

export const leasePdfsProjection = rowProjection<LeasePdfEvent>({
  name: "lease_pdfs",
  // 2: the owner the contract names (owner_id, owner_recorded).
  version: 2,
  table: "lease_pdfs",
  columns: LEASE_PDF_COLUMNS,
  schema: `
CREATE TABLE lease_pdfs (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  template text NOT NULL,
  template_version text NOT NULL,
  lease_revision bigint NOT NULL,
  contract_sha256 text NOT NULL,
  filename text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  from_cache boolean NOT NULL,
  -- The lessor the contract names; owner_recorded false: generated before it was recorded.
  owner_id uuid,
  owner_recorded boolean NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX lease_pdfs_lease ON lease_pdfs (tenant_id, lease_id, created_at, id);
${tenantPolicy("lease_pdfs")}`,
  handles: leasePdfEventTypes,
  idOf: (event) => event.data.pdf_id,
  evolve(row, event) {
    switch (event.type) {
      case "LeaseContractPdfGenerated": {
        const { pdf_id: _, owner_id, ...fields } = event.data;
        return {
          ...fields,
          owner_id: owner_id ?? null,
          owner_recorded: owner_id !== undefined,
          revision: Number(event.stream_revision),
          created_at: event.metadata.occurred_at,
        };
      }
      case "LeaseContractPdfDeleted":
        return null;
      default:
        return row;
    }
  },
});
