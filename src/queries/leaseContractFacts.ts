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
  (await sql.asTenant(tenantId, (tx) => tx.query<Row>(text, [tenantId, ...params])))[0] ?? null;

const day = (v: unknown): string | null =>
  v == null ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10);

export async function readLeaseContractFacts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<LeaseContractFacts | null> {
  const lease = await one(sql, tenantId, "SELECT * FROM leases WHERE tenant_id = $1 AND id = $2", [leaseId]);
  if (!lease) return null;
  const estateId = String(lease.estate_id);
  const start = day(lease.start_date) as string;
  const [parties, estate, diagnostics, regulation, previous] = await Promise.all([
    sql.asTenant(tenantId, (tx) =>
      tx.query<Row>(
        `SELECT a.role, to_jsonb(l) AS lessee FROM lease_lessees a
         JOIN lessees l ON l.tenant_id = a.tenant_id AND l.id = a.lessee_id
         WHERE a.tenant_id = $1 AND a.lease_id = $2 AND NOT a.ended
         ORDER BY CASE a.role WHEN 'Primary' THEN 0 WHEN 'CoTenant' THEN 1 ELSE 2 END, a.created_at, a.lessee_id`,
        [tenantId, leaseId],
      ),
    ),
    one(sql, tenantId, "SELECT * FROM estates WHERE tenant_id = $1 AND id = $2", [estateId]),
    sql.asTenant(tenantId, (tx) =>
      tx.query<Row>(
        `SELECT type, diagnosis_date, valid_until FROM estate_diagnostics
         WHERE tenant_id = $1 AND estate_id = $2 AND active ORDER BY type, diagnosis_date`,
        [tenantId, estateId],
      ),
    ),
    readEstateRentRegulation(sql, tenantId, estateId),
    one(
      sql,
      tenantId,
      `SELECT rent_amount, terminated_at FROM leases
       WHERE tenant_id = $1 AND estate_id = $2 AND id <> $3 AND start_date < $4::date
         AND status IN ('ACTIVE', 'NOTICE', 'FINALISATION', 'TERMINATED', 'EXPIRED')
       ORDER BY start_date DESC, created_at DESC LIMIT 1`,
      [estateId, leaseId, start],
    ),
  ]);
  const [place, owner, estateType, dpe] = await Promise.all([
    estate
      ? one(sql, tenantId, "SELECT * FROM places WHERE tenant_id = $1 AND id = $2", [estate.place_id])
      : null,
    estate?.owner_id
      ? one(sql, tenantId, "SELECT * FROM owners WHERE tenant_id = $1 AND id = $2", [estate.owner_id])
      : null,
    estate ? readType(sql, tenantId, "estate", String(estate.estate_type_id)) : null,
    (async () =>
      (await readDpeOn(sql, tenantId, estateId, start)) ??
      (await readDpeOn(sql, tenantId, estateId, parisToday())))(),
  ]);
  const dpeDetails = dpe
    ? await one(
        sql,
        tenantId,
        `SELECT reference_number, energy_consumption, ges_emission FROM energy_diagnoses
         WHERE tenant_id = $1 AND id = $2`,
        [dpe.id],
      )
    : null;
  return {
    lease,
    lease_revision: Number(lease.revision),
    parties: parties.map((p) => ({ role: p.role as LeaseRole, lessee: p.lessee as Row })),
    estate,
    estate_type: estateType ? { code: String(estateType.code), name: String(estateType.name) } : null,
    place,
    owner,
    dpe: dpe ? { ...dpe, details: dpeDetails } : null,
    diagnostics,
    regulation: regulation && regulation.source !== "none" ? regulation : null,
    previous_lease: previous
      ? { rent_amount: Number(previous.rent_amount), ended_on: day(previous.terminated_at) }
      : null,
  };
}
