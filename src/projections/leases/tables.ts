import { z } from "zod";
import { LEASE_TERM_FIELDS } from "../../events/leases.ts";
import { LEASE_STATUS_COLUMNS } from "../../events/leaseView.ts";
import { tenantPolicy } from "../../platform/projections/projection.ts";
import { createLeaseSchema } from "../../queries/leasesSchemas.ts";

/** The tables of the leases read models (src/projections/leases.ts): their columns and DDL. */

export const LEASE_COLUMNS = [
  "tenant_id",
  "id",
  ...LEASE_TERM_FIELDS,
  ...LEASE_STATUS_COLUMNS,
  "revision",
  "created_at",
  "updated_at",
] as const;

/** Unwraps optional, nullable: the type of the value and whether it may be absent. */
function unwrapped(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, optional };
}

/** A term's column from the schema a create takes it with: uuid, date, text, integer, numeric or jsonb. */
function termColumn(field: (typeof LEASE_TERM_FIELDS)[number]): string {
  const { inner, optional } = unwrapped(createLeaseSchema.shape[field]);
  const format = (inner as { format?: string | null }).format;
  const type =
    inner.def.type === "number"
      ? format === "safeint"
        ? "integer"
        : "numeric"
      : inner.def.type === "record"
        ? "jsonb"
        : format === "guid"
          ? "uuid"
          : format === "date"
            ? "date"
            : "text";
  return `  ${field} ${type}${optional ? "" : " NOT NULL"},`;
}

/** The terms' columns follow LEASE_TERM_FIELDS and the create schema: a new term needs no DDL here. */
const termColumns = LEASE_TERM_FIELDS.map(termColumn).join("\n");

export const LEASES_SCHEMA = `
CREATE TABLE leases (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
${termColumns}
  status text NOT NULL,
  rent_regulation_compliance_status text NOT NULL,
  signed_at date,
  notice_date date,
  notice_end_date date,
  terminated_at date,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX leases_tenant_order ON leases (tenant_id, created_at, id);
CREATE INDEX leases_estate ON leases (tenant_id, estate_id, created_at, id);
CREATE INDEX leases_status ON leases (tenant_id, status, created_at, id);
CREATE INDEX leases_expiry ON leases (end_date) WHERE status = 'ACTIVE';
${tenantPolicy("leases")}

CREATE TABLE lease_lessees (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  lessee_id uuid NOT NULL,
  role text NOT NULL,
  start_date date NOT NULL,
  end_date date,
  ended boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (lease_id, lessee_id)
);
CREATE INDEX lease_lessees_lessee ON lease_lessees (tenant_id, lessee_id);
${tenantPolicy("lease_lessees")}

CREATE TABLE lease_rent_history (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  rent_amount numeric NOT NULL,
  charges_amount numeric,
  previous_rent_amount numeric NOT NULL,
  previous_charges_amount numeric,
  effective_date date NOT NULL,
  reason text NOT NULL,
  index jsonb,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX lease_rent_history_lease ON lease_rent_history (tenant_id, lease_id, revision);
${tenantPolicy("lease_rent_history")}

CREATE TABLE lease_amendments (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  title text NOT NULL,
  effective_date date NOT NULL,
  changes jsonb NOT NULL,
  reason text,
  status text NOT NULL,
  status_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_amendments_lease ON lease_amendments (tenant_id, lease_id, created_at, id);
${tenantPolicy("lease_amendments")}

CREATE TABLE lease_documents (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  amendment_id uuid,
  document_type text NOT NULL,
  description text,
  filename text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_documents_lease ON lease_documents (tenant_id, lease_id, created_at, id);
CREATE INDEX lease_documents_amendment ON lease_documents (tenant_id, lease_id, amendment_id) WHERE amendment_id IS NOT NULL;
${tenantPolicy("lease_documents")}`;

/** The tables beside `leases`, each with a `lease_id`: emptied with the lease. */
export const CHILD_TABLES = ["lease_lessees", "lease_rent_history", "lease_amendments", "lease_documents"];
