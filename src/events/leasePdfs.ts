import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Generated lease contract PDFs (docs/pdf.md). Each PDF is a record of its own, stream
 * `lease_pdf-<pdf uuid>`, never an event on the lease: appending to the lease would bump the
 * lease revision that keys the render cache, so every PDF would invalidate the next one.
 */
export const leasePdfStream = (id: string) => `lease_pdf-${id}`;

export interface LeaseContractPdfData {
  pdf_id: string;
  lease_id: string;
  /** The contract template used: the lease type (UNFURNISHED, FURNISHED, MOBILITY). */
  template: string;
  template_version: string;
  /** The lease's stream revision the contract was built at. */
  lease_revision: number;
  /** SHA-256 of the contract view model (parties, estate, DPE... from other streams too). */
  contract_sha256: string;
  /** The readable download name (`bail-meuble-2025-09-01-3f2a1c0e.pdf`). */
  filename: string;
  size: number;
  /** SHA-256 of the PDF bytes. */
  sha256: string;
  /** Where the bytes are in the blob store (src/platform/blobs). */
  blob_key: string;
  /** True when the bytes came from the render cache. */
  from_cache: boolean;
  /**
   * The owner the contract names as lessor (null: the estate had none), so that owner's erasure
   * finds it after the estate changed hands. Absent from PDFs generated before it was recorded.
   */
  owner_id?: string | null;
}

export type LeasePdfEvent =
  | DomainEvent<"LeaseContractPdfGenerated", LeaseContractPdfData>
  | DomainEvent<"LeaseContractPdfDeleted", { pdf_id: string; lease_id: string }>;

export type LeasePdfEventType = LeasePdfEvent["type"];
export const leasePdfEventTypes = allEventTypes<LeasePdfEventType>()([
  "LeaseContractPdfGenerated",
  "LeaseContractPdfDeleted",
]);
