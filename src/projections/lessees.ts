import { LESSEE_EVENT_TYPES, LESSEE_FIELDS } from "../events/lessees.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";
import { feedLesseeActiveLeases, LESSEE_LINK_EVENT_TYPES } from "./leases.ts";

/** The `lessees` read model: one row per live lessee; `revision` is the stream revision for the ETag. */
export const LESSEE_COLUMNS = [
  "tenant_id",
  "id",
  ...LESSEE_FIELDS,
  "created_at",
  "updated_at",
  "revision",
] as const;

export const lesseesProjection: Projection = rowProjection({
  name: "lessees",
  version: 1,
  table: "lessees",
  columns: LESSEE_COLUMNS,
  schema: `
CREATE TABLE lessees (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  category text NOT NULL,
  title text,
  first_name text,
  last_name text,
  legal_name text,
  birth_date date,
  birth_place text,
  email text NOT NULL,
  mobile_phone text,
  landline_phone text,
  address_street text,
  address_postal_code text,
  address_city text,
  address_country text,
  profession text,
  employer_name text,
  employer_phone text,
  monthly_income numeric,
  other_income numeric,
  bank_name text,
  iban text,
  bic text,
  additional_addresses jsonb,
  identity_documents jsonb,
  additional_contacts jsonb,
  custom_fields jsonb,
  auth_user_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX lessees_tenant_order ON lessees (tenant_id, created_at, id);
CREATE INDEX lessees_tenant_email ON lessees (tenant_id, lower(email));
CREATE INDEX lessees_tenant_category ON lessees (tenant_id, category, created_at, id);
${tenantPolicy("lessees")}`,
  handles: LESSEE_EVENT_TYPES.filter((t) => t !== "LesseeRegistrationAbandoned"),
  idOf: (event) => (event.data as { lessee_id?: string }).lessee_id ?? null,
  evolve: (row, event) => evolveRow(row, event),
});

function evolveRow(row: Row | null, event: RecordedEvent): Row | null {
  const stamp = { updated_at: event.metadata.occurred_at, revision: Number(event.stream_revision) };
  switch (event.type) {
    case "LesseeRegistered": {
      const { lessee_id: _id, ...data } = event.data as Record<string, unknown>;
      return { ...data, created_at: event.metadata.occurred_at, ...stamp };
    }
    case "LesseeUpdated":
      return row && { ...row, ...(event.data.changes as Row), ...stamp };
    case "LesseeEmailChanged":
      return row && { ...row, email: event.data.email, ...stamp };
    case "LesseeDeleted":
      return null;
    default:
      return row;
  }
}

/** Lease statuses during which an association keeps a lessee from being deleted (DESIGN.md §6). */
export const ACTIVE_LEASE_STATUSES = [
  "DRAFT",
  "PENDING_SIGNATURE",
  "ACTIVE",
  "NOTICE",
  "FINALISATION",
] as const;

/**
 * Which lessees are on which leases: fed by the leases area's events (`feedLesseeActiveLeases`),
 * read by lessee deletes. One row per lease-lessee association (`id` is the association's id).
 */
export const lesseeLeaseLinksProjection: Projection = {
  name: "lesseeLeaseLinks",
  version: 2,
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
  handles: LESSEE_LINK_EVENT_TYPES,
  applyBatch: feedLesseeActiveLeases,
};

/** Active-lease counts of the given lessees of one tenant; lessees without any are absent. */
export async function activeLeaseCounts(
  sql: Sql,
  tenantId: string,
  lesseeIds: string[],
): Promise<Map<string, number>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ lessee_id: string; count: number }>(
      `SELECT lessee_id, count(*)::int AS count FROM lessee_active_leases
        WHERE tenant_id = $1 AND lessee_id = ANY($2::uuid[]) AND NOT ended AND lease_status = ANY($3::text[])
        GROUP BY lessee_id`,
      [tenantId, lesseeIds, ACTIVE_LEASE_STATUSES],
    ),
  );
  return new Map(rows.map((r) => [r.lessee_id, r.count]));
}

/** Registered in src/areas.ts. */
export const lesseeProjections: Projection[] = [lesseesProjection, lesseeLeaseLinksProjection];
