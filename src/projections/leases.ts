import { type Projection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * Which lessees are on which leases, one row per lease-lessee association (`id` is the
 * association's id); lessee deletes read it (src/queries/leases.ts, `activeLeaseCounts`).
 * A placeholder until the leases area exists: its projection of lease events fills this table
 * here, keeping the table name and columns (docs/conventions.md, "Derived tables").
 */
export const leaseLesseeLinksProjection: Projection = {
  name: "lesseeLeaseLinks",
  version: 1,
  tables: ["lessee_active_leases"],
  schema: `
CREATE TABLE lessee_active_leases (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lessee_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  role text NOT NULL,
  lease_status text NOT NULL,
  ended boolean NOT NULL DEFAULT false
);
CREATE INDEX lessee_active_leases_lessee ON lessee_active_leases (tenant_id, lessee_id);
CREATE INDEX lessee_active_leases_lease ON lessee_active_leases (tenant_id, lease_id);
${tenantPolicy("lessee_active_leases")}`,
  handles: [],
  async applyBatch() {},
};

/** Registered in src/areas.ts. */
export const leaseProjections: Projection[] = [leaseLesseeLinksProjection];
