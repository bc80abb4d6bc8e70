import { LESSEE_EVENT_TYPES, LESSEE_FIELDS, type LesseeEvent } from "../events/lessees.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/** The `lessees` read model: one row per live lessee; `revision` is the stream revision for the ETag. */
export const LESSEE_COLUMNS = [
  "tenant_id",
  "id",
  ...LESSEE_FIELDS,
  "created_at",
  "updated_at",
  "revision",
] as const;

export const lesseesProjection: Projection = rowProjection<LesseeEvent>({
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
  idOf: (event) => event.data.lessee_id,
  evolve: (row, event) => evolveRow(row, event),
});

function evolveRow(row: Row | null, event: RecordedEvent<LesseeEvent>): Row | null {
  const stamp = { updated_at: event.metadata.occurred_at, revision: Number(event.stream_revision) };
  switch (event.type) {
    case "LesseeRegistered": {
      const { lessee_id: _id, ...data } = event.data;
      return { ...data, created_at: event.metadata.occurred_at, ...stamp };
    }
    case "LesseeUpdated":
      return row && { ...row, ...event.data.changes, ...stamp };
    case "LesseeEmailChanged":
      return row && { ...row, email: event.data.email, ...stamp };
    case "LesseeDeleted":
      return null;
    default:
      return row;
  }
}

/** Registered in src/areas.ts. (`lessee_active_leases` is the leases area's: src/projections/leases.ts.) */
export const lesseeProjections: Projection[] = [lesseesProjection];
