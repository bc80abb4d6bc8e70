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
  "revision",
  "created_at",
] as const;

export const leasePdfsProjection = rowProjection<LeasePdfEvent>({
  name: "lease_pdfs",
  version: 1,
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
        const { pdf_id: _, ...fields } = event.data;
        return {
          ...fields,
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
