import type { LeaseRole } from "../events/leases.ts";
import type { Sql } from "../platform/db.ts";
import { isoDay, parisDate } from "../platform/formatDates.ts";
import type { Row } from "../platform/projections/projection.ts";
import { type DpeFact, dpeOnSql } from "./energyDiagnoses.ts";
import { estateRegulationSql, type RentRegulation, toEstateRegulation } from "./rentRegulation.ts";
import { typeSql } from "./types.ts";

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
  /** The names of the equipment types installed in the estate's rooms (the equipment area). */
  equipment: string[];
  /** Today in Paris: the day an unsigned contract is made ("Fait à …, le …"). */
  printed_on: string;
}

const day = isoDay;

const text = (v: unknown): string | null => (v == null || String(v).trim() === "" ? null : String(v).trim());

/** A row's postal address (`address_street`, `address_postal_code`, `address_city`, `address_country`). */
export function postalAddressOf(r: Row | null | undefined): string | null {
  if (!r) return null;
  const city = [text(r.address_postal_code), text(r.address_city)].filter(Boolean).join(" ");
  const parts = [text(r.address_street), city || null, text(r.address_country)].filter(Boolean);
  return parts.length ? parts.join(", ") : null;
}

/** The dwelling's full address: the estate's own, else its place's (a building's lots share it). */
export const dwellingAddressOf = (estate: Row | null | undefined, place: Row | null | undefined) =>
  text(estate?.address) ?? postalAddressOf(place) ?? text(place?.name);

/**
 * One statement for everything a contract prints (and the PDF records already made from this
 * lease revision): a contract is read on every POST, cached or not, so it is one round trip. The
 * DPE, the rent regulation and the estate type are read through their own areas' SQL
 * (`dpeOnSql`, `estateRegulationSql`, `typeSql`). $3: today in Paris (the DPE when none covered
 * the start), $4: the template version.
 *
 * The DPE's id is a plain uuid column of a fenced subquery (`OFFSET 0`), not `(fact->>'id')::uuid`
 * inline: under row-level security a condition holding a function that is not leakproof (`->>`)
 * cannot be an index condition, and the details lookup scanned every diagnosis of every tenant
 * (25 ms at 200,000 diagnoses; 1.4 ms now, docs/performance.md).
 */
export const CONTRACT_FACTS = `
  SELECT to_jsonb(l) AS lease,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('role', a.role, 'lessee', to_jsonb(p))
       ORDER BY CASE a.role WHEN 'Primary' THEN 0 WHEN 'CoTenant' THEN 1 ELSE 2 END, a.created_at, a.lessee_id), '[]')
     FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
     WHERE a.tenant_id = l.tenant_id AND a.lease_id = l.id AND NOT a.ended) AS parties,
    to_jsonb(e) AS estate,
    ${typeSql("l.tenant_id", "'estate'", "e.estate_type_id")} AS estate_type,
    (SELECT to_jsonb(x) FROM places x WHERE x.tenant_id = l.tenant_id AND x.id = e.place_id) AS place,
    (SELECT to_jsonb(o) FROM owners o WHERE o.tenant_id = l.tenant_id AND o.id = e.owner_id) AS owner,
    dpe.fact || jsonb_build_object('details',
      (SELECT jsonb_build_object('reference_number', x.reference_number,
         'energy_consumption', x.energy_consumption, 'ges_emission', x.ges_emission)
       FROM energy_diagnoses x WHERE x.tenant_id = l.tenant_id AND x.id = dpe.id)) AS dpe,
    ${estateRegulationSql("l.tenant_id", "l.estate_id")} AS regulation,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('type', d.type, 'diagnosis_date', d.diagnosis_date,
         'valid_until', d.valid_until) ORDER BY d.type, d.diagnosis_date), '[]')
     FROM estate_diagnostics d WHERE d.tenant_id = l.tenant_id AND d.estate_id = l.estate_id AND d.active) AS diagnostics,
    (SELECT jsonb_build_object('rent_amount', v.rent_amount, 'ended_on', v.terminated_at) FROM leases v
     WHERE v.tenant_id = l.tenant_id AND v.estate_id = l.estate_id AND v.id <> l.id AND v.start_date < l.start_date
       AND v.status IN ('ACTIVE', 'NOTICE', 'FINALISATION', 'TERMINATED', 'EXPIRED')
     ORDER BY v.start_date DESC, v.created_at DESC LIMIT 1) AS previous_lease,
    (SELECT coalesce(jsonb_agg(DISTINCT ${typeSql("l.tenant_id", "'equipment'", "q.equipment_type_id")}->>'name'), '[]')
     FROM room_equipment q JOIN rooms m ON m.tenant_id = q.tenant_id AND m.id = q.room_id
     WHERE q.tenant_id = l.tenant_id AND m.estate_id = l.estate_id) AS equipment,
    (SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY r.created_at, r.id), '[]') FROM lease_pdfs r
     WHERE r.tenant_id = l.tenant_id AND r.lease_id = l.id AND r.lease_revision = l.revision
       AND r.template_version = $4) AS pdfs
  FROM leases l LEFT JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
  LEFT JOIN LATERAL (SELECT f.fact, (f.fact->>'id')::uuid AS id FROM (SELECT coalesce(
    ${dpeOnSql("l.tenant_id", "l.estate_id", "l.start_date")},
    ${dpeOnSql("l.tenant_id", "l.estate_id", "$3::date")}) AS fact) f OFFSET 0) dpe ON true
  WHERE l.tenant_id = $1 AND l.id = $2`;

/**
 * The lease's contract facts, and the PDF records of `templateVersion` made from its current
 * revision (oldest first), from which the caller picks one of the same contract.
 */
export async function readLeaseContractFacts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  templateVersion: string,
): Promise<(LeaseContractFacts & { pdfs: Row[] }) | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(CONTRACT_FACTS, [tenantId, leaseId, parisDate(), templateVersion], { prepare: true }),
  );
  if (!row) return null;
  const printedOn = parisDate();
  const lease = row.lease as Row;
  const estateType = row.estate_type as Row | null;
  const regulation = toEstateRegulation(String(lease.estate_id), (row.regulation as Row | null) ?? null);
  const previous = row.previous_lease as { rent_amount: unknown; ended_on: unknown } | null;
  return {
    lease,
    lease_revision: Number(lease.revision),
    parties: (row.parties as { role: LeaseRole; lessee: Row }[]) ?? [],
    estate: (row.estate as Row | null) ?? null,
    estate_type: estateType ? { code: String(estateType.code), name: String(estateType.name) } : null,
    place: (row.place as Row | null) ?? null,
    owner: (row.owner as Row | null) ?? null,
    dpe: (row.dpe as (DpeFact & { details: Row | null }) | null) ?? null,
    diagnostics: (row.diagnostics as Row[]) ?? [],
    regulation: regulation && regulation.source !== "none" ? regulation : null,
    previous_lease: previous
      ? { rent_amount: Number(previous.rent_amount), ended_on: day(previous.ended_on) }
      : null,
    printed_on: printedOn,
    equipment: ((row.equipment as (string | null)[]) ?? []).filter((n): n is string => Boolean(n)),
    pdfs: (row.pdfs as Row[]) ?? [],
  };
}
