import { describe, expect, it } from "vitest";
import { leasesProjection } from "../../src/projections/leases.ts";

/** The leases table's term columns follow LEASE_TERM_FIELDS and the create schema (docs/leases.md). */
describe("leases table", () => {
  it("types each term as the create schema says: uuid, date, integer, numeric, jsonb, text; required ones NOT NULL", () => {
    const schema = (leasesProjection as unknown as { schema: string }).schema;
    const table = schema.slice(schema.indexOf("CREATE TABLE leases ("), schema.indexOf(");"));
    const columns = table
      .split("\n")
      .slice(1)
      .map((line) => line.trim().replace(/,$/, ""))
      .filter(Boolean);
    expect(columns).toEqual([
      "tenant_id uuid NOT NULL",
      "id uuid PRIMARY KEY",
      "estate_id uuid NOT NULL",
      "lease_type text NOT NULL",
      "usage_type text",
      "start_date date NOT NULL",
      "end_date date",
      "duration_months integer",
      "rent_amount numeric NOT NULL",
      "charges_amount numeric",
      "charge_settlement_mode text",
      "deposit_amount numeric",
      "rent_frequency text",
      "payment_terms text",
      "payment_method text",
      "payment_day integer",
      "revision_index_type text",
      "revision_reference_quarter text",
      "revision_reference_value numeric",
      "special_conditions text",
      "custom_fields jsonb",
      "mobility_motive text",
      "rent_complement numeric",
      "rent_complement_justification text",
      "takeover_date date",
      "opening_balance numeric",
      "status text NOT NULL",
      "rent_regulation_compliance_status text NOT NULL",
      "signed_at date",
      "notice_date date",
      "notice_end_date date",
      "terminated_at date",
      "revision bigint NOT NULL",
      "created_at timestamptz NOT NULL",
      "updated_at timestamptz NOT NULL",
    ]);
  });
});
