import { randomUUID } from "node:crypto";
import pg from "pg";

const CHUNK = 10_000;

/**
 * Appends `count` ACTIVE leases of one tenant with bulk SQL: per lease a `lease-<id>` stream of
 * LeaseCreated then LeaseActivated (the real data shapes), CHUNK leases per transaction; the
 * service's projector builds their read model. Monthly, 800 + 50, due on the 5th, from `start`.
 * For the rent cycle's bench step and kill test, which need many leases and not their HTTP cost.
 */
export async function seedActiveLeases(
  url: string,
  tenantId: string,
  count: number,
  start = "2025-01-01",
  /** Terms that differ from the defaults (e.g. `payment_method`). */
  overrides: Record<string, unknown> = {},
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const terms = {
      lease_type: "UNFURNISHED",
      usage_type: null,
      start_date: start,
      end_date: null,
      duration_months: null,
      rent_amount: 800,
      charges_amount: 50,
      charge_settlement_mode: null,
      deposit_amount: null,
      rent_frequency: "MONTHLY",
      payment_terms: "TERME_A_ECHOIR",
      payment_method: null,
      payment_day: 5,
      revision_index_type: null,
      revision_reference_quarter: null,
      revision_reference_value: null,
      special_conditions: null,
      custom_fields: null,
      ...overrides,
    };
    const metadata = {
      tenant_id: tenantId,
      actor_key_id: null,
      causation_id: null,
      correlation_id: randomUUID(),
    };
    for (let from = 0; from < count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK) - 1;
      await client.query(
        `WITH g AS (SELECT gen_random_uuid() AS id, gen_random_uuid() AS estate, i FROM generate_series($4::int, $5::int) AS i)
         INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
         SELECT gen_random_uuid(), 'lease-' || g.id, e.rev, e.type, 1, e.data, $2::jsonb || jsonb_build_object(
             'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM g CROSS JOIN LATERAL (VALUES
           (0, 'LeaseCreated', $1::jsonb || jsonb_build_object('lease_id', g.id, 'estate_id', g.estate)),
           (1, 'LeaseActivated', jsonb_build_object('lease_id', g.id, 'effective_date', $3::text, 'reason', null))
         ) AS e(rev, type, data)
         ORDER BY g.i, e.rev`,
        [JSON.stringify(terms), JSON.stringify(metadata), start, from, to],
      );
    }
    await client.query("ANALYZE events");
  } finally {
    await client.end();
  }
}

/** Waits until the service's `leases` read model holds `count` ACTIVE leases of the tenant. */
export async function untilLeasesProjected(url: string, tenantId: string, count: number, ms = 600_000) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const end = Date.now() + ms; Date.now() < end; ) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM leases WHERE tenant_id = $1 AND status = 'ACTIVE'`,
        [tenantId],
      );
      if (rows[0].n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`leases of ${tenantId} not projected in ${ms} ms`);
  } finally {
    await client.end();
  }
}
