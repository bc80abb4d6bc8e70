import {
  LESSEE_ERASED_FIELDS,
  LESSEE_EVENT_TYPES,
  LESSEE_FIELDS,
  type LesseeEvent,
} from "../events/lessees.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  type RowProjection,
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
  "erased_at",
  "revision",
] as const;

export const lesseesProjection: RowProjection = rowProjection<LesseeEvent>({
  name: "lessees",
  // 2: erased lessees (erased_at, email null once erased).
  version: 2,
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
  email text,
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
  erased_at timestamptz,
  revision bigint NOT NULL
);
CREATE INDEX lessees_tenant_order ON lessees (tenant_id, created_at, id);
CREATE INDEX lessees_tenant_email ON lessees (tenant_id, lower(email));
CREATE INDEX lessees_tenant_category ON lessees (tenant_id, category, created_at, id);
${tenantPolicy("lessees")}`,
  handles: LESSEE_EVENT_TYPES.filter((t) => t !== "LesseeRegistrationAbandoned"),
  idOf: (event) => event.data.lessee_id,
  creates: ["LesseeRegistered"],
  evolve: (row, event) => evolveLesseeRow(row, event),
});

/** One lessee's row after `event` (also how `lesseesProjection.fold` answers a command, src/queries/lessees.ts). */
function evolveLesseeRow(row: Row | null, event: RecordedEvent<LesseeEvent>): Row | null {
  // Stamps written out, and the row's keys set here: rowProjection then keeps the row as it is,
  // no copy per event (docs/performance.md, "Rebuild / catch-up").
  const at = event.metadata.occurred_at;
  const revision = Number(event.stream_revision);
  switch (event.type) {
    case "LesseeRegistered": {
      const { lessee_id: id, ...data } = event.data;
      return {
        tenant_id: event.metadata.tenant_id,
        id,
        ...data,
        created_at: at,
        updated_at: at,
        erased_at: null,
        revision,
      };
    }
    case "LesseeUpdated":
      return row && { ...row, ...event.data.changes, updated_at: at, revision };
    case "LesseeEmailChanged":
      return row && { ...row, email: event.data.email, updated_at: at, revision };
    case "LesseeDeleted":
      return null;
    case "PersonalDataErased":
      return (
        row && {
          ...row,
          ...Object.fromEntries(LESSEE_ERASED_FIELDS.map((f) => [f, null])),
          erased_at: event.data.erased_at,
          updated_at: at,
          revision,
        }
      );
    default:
      return row;
  }
}

/** Registered in src/areas.ts. (`lessee_active_leases` is the leases area's: src/projections/leases.ts.) */
export const lesseeProjections: Projection[] = [lesseesProjection];
