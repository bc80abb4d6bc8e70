import type { LeaseRole } from "../events/leases.ts";
import type { Sql } from "../platform/db.ts";
import type { Row } from "../platform/projections/projection.ts";
import { type DpeFact, readDpeOn } from "./energyDiagnoses.ts";
import { parisToday } from "./leaseCompliance.ts";
import { type RentRegulation, readEstateRentRegulation } from "./rentRegulation.ts";
import { readType } from "./types.ts";

/**
 * Everything a lease contract prints (docs/pdf.md), read from read models only: the lease, its
 * parties (active associations with their lessee rows), the estate with its type and place, the
 * owner (the lessor), the DPE valid at the start (else today), the active estate diagnostics, the
 * rent regulation and the estate's previous lease. null when the tenant has no such lease.
 * Lease code turns these rows into the contract view model.
 */
export interface LeaseContractFacts {
  lease: Row;
  /** The lease's stream revision as projected (keys the render cache). */
  lease_revision: number;
  parties: { role: LeaseRole; lessee: Row }[];
  estate: Row | null;
  estate_type: { code: string; name: string } | null;
  place: Row | null;
  owner: Row | null;
  dpe: (DpeFact & { details: Row | null }) | null;
  diagnostics: Row[];
  regulation: RentRegulation | null;
  previous_lease: { rent_amount: number; ended_on: string | null } | null;
}

const one = async (sql: Sql, tenantId: string, text: string, params: unknown[]) =>
  (await sql.asTenant(tenantId, (tx) => tx.query<Row>(text, [tenantId, ...params], { prepare: true })))[0] ??
  null;

const day = (v: unknown): string | null =>
  v == null ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10);

/**
 * One statement for the lease and what hangs off it (parties, estate, type, place, owner,
 * diagnostics, previous lease): a contract is read on every POST, cached or not, so its reads are
 * kept to a few round trips (the DPE and the rent regulation go through their own areas' look-ups).
 */
const LEASE_AND_PARTIES = `
  SELECT to_jsonb(l) AS lease,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('role', a.role, 'lessee', to_jsonb(p))
       ORDER BY CASE a.role WHEN 'Primary' THEN 0 WHEN 'CoTenant' THEN 1 ELSE 2 END, a.created_at, a.lessee_id), '[]')
     FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
     WHERE a.tenant_id = l.tenant_id AND a.lease_id = l.id AND NOT a.ended) AS parties,
    to_jsonb(e) AS estate,
    (SELECT to_jsonb(x) FROM places x WHERE x.tenant_id = l.tenant_id AND x.id = e.place_id) AS place,
    (SELECT to_jsonb(o) FROM owners o WHERE o.tenant_id = l.tenant_id AND o.id = e.owner_id) AS owner,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('type', d.type, 'diagnosis_date', d.diagnosis_date,
         'valid_until', d.valid_until) ORDER BY d.type, d.diagnosis_date), '[]')
     FROM estate_diagnostics d WHERE d.tenant_id = l.tenant_id AND d.estate_id = l.estate_id AND d.active) AS diagnostics,
    (SELECT jsonb_build_object('rent_amount', v.rent_amount, 'ended_on', v.terminated_at) FROM leases v
     WHERE v.tenant_id = l.tenant_id AND v.estate_id = l.estate_id AND v.id <> l.id AND v.start_date < l.start_date
       AND v.status IN ('ACTIVE', 'NOTICE', 'FINALISATION', 'TERMINATED', 'EXPIRED')
     ORDER BY v.start_date DESC, v.created_at DESC LIMIT 1) AS previous_lease
  FROM leases l LEFT JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
  WHERE l.tenant_id = $1 AND l.id = $2`;

export async function readLeaseContractFacts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<LeaseContractFacts | null> {
  const row = await one(sql, tenantId, LEASE_AND_PARTIES, [leaseId]);
  if (!row) return null;
  const lease = row.lease as Row;
  const estate = (row.estate as Row | null) ?? null;
  const estateId = String(lease.estate_id);
  const start = day(lease.start_date) as string;
  const readDpe = async () => {
    const dpe =
      (await readDpeOn(sql, tenantId, estateId, start)) ??
      (await readDpeOn(sql, tenantId, estateId, parisToday()));
    if (!dpe) return null;
    const details = await one(
      sql,
      tenantId,
      `SELECT reference_number, energy_consumption, ges_emission FROM energy_diagnoses
       WHERE tenant_id = $1 AND id = $2`,
      [dpe.id],
    );
    return { ...dpe, details };
  };
  const [dpe, regulation, estateType] = await Promise.all([
    readDpe(),
    readEstateRentRegulation(sql, tenantId, estateId),
    estate ? readType(sql, tenantId, "estate", String(estate.estate_type_id)) : null,
  ]);
  const previous = row.previous_lease as { rent_amount: unknown; ended_on: unknown } | null;
  return {
    lease,
    lease_revision: Number(lease.revision),
    parties: (row.parties as { role: LeaseRole; lessee: Row }[]) ?? [],
    estate,
    estate_type: estateType ? { code: String(estateType.code), name: String(estateType.name) } : null,
    place: (row.place as Row | null) ?? null,
    owner: (row.owner as Row | null) ?? null,
    dpe,
    diagnostics: (row.diagnostics as Row[]) ?? [],
    regulation: regulation && regulation.source !== "none" ? regulation : null,
    previous_lease: previous
      ? { rent_amount: Number(previous.rent_amount), ended_on: day(previous.ended_on) }
      : null,
  };
}
