import type { LeaseType, RentIndex } from "../events/leases.ts";
import { type LessorKind, lessorKind } from "../law/leaseTypes.ts";
import { isOverseas } from "../law/overseas.ts";
import type { Sql } from "../platform/db.ts";
import { isoDay } from "../platform/formatDates.ts";
import { readDpeOn } from "./energyDiagnoses.ts";
import { readInventory } from "./inventories.ts";
import { readAllIrl, readEstateRentRegulation } from "./rentRegulation.ts";

/**
 * The facts a lease's compliance checks compare (docs/compliance.md), read from read models only:
 * the lease and its rent history, its estate, the DPE on the days that matter, the rent regulation
 * of the estate or its place, and the estate's previous lease. null when the tenant has no such lease.
 */

type Row = Record<string, unknown>;

/** The owner's category as the law's lessor (docs/decisions.md, "Lessor of a renewal"). */
/** The lessor's kind from OWNER_KIND_SQL's answer (a category, or `family_sci`). */
export const lessorKindOf = (kind: string | null | undefined): LessorKind =>
  kind === "family_sci" ? lessorKind("company", "FAMILY_SCI") : lessorKind(kind);

/** The owner's category, `family_sci` for a company that is a family SCI (art. 13 a), from `o`. */
export const OWNER_KIND_SQL = "CASE WHEN o.legal_form = 'FAMILY_SCI' THEN 'family_sci' ELSE o.category END";
const day = isoDay;
const num = (v: unknown): number | null => (v == null ? null : Number(v));

export interface DpeSummary {
  energy_label: string;
  diagnosis_date: string;
  valid_until: string;
  final_energy_consumption: number | null;
}

const dpeSummary = (
  d: {
    energy_label: string;
    diagnosis_date: unknown;
    valid_until: unknown;
    final_energy_consumption?: unknown;
  } | null,
): DpeSummary | null =>
  d
    ? {
        energy_label: d.energy_label,
        diagnosis_date: day(d.diagnosis_date) as string,
        valid_until: day(d.valid_until) as string,
        final_energy_consumption: num(d.final_energy_consumption),
      }
    : null;

/** The DPE valid on a day (the estate's own, else its place's), as the checks need it. */
export async function readDpeSummaryOn(sql: Sql, tenantId: string, estateId: string, date: string) {
  return dpeSummary(await readDpeOn(sql, tenantId, estateId, date));
}

/** The newest DPE of the estate (else its place) made on or before `date`, valid or not. */
async function readLatestDpeBefore(sql: Sql, tenantId: string, estateId: string, date: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{
      energy_label: string;
      diagnosis_date: unknown;
      valid_until: unknown;
      final_energy_consumption: unknown;
    }>(
      `SELECT d.energy_label, d.diagnosis_date, d.valid_until, d.final_energy_consumption
       FROM estates e JOIN estate_dpe_diagnoses d
         ON d.tenant_id = e.tenant_id AND (d.estate_id = e.id OR d.place_id = e.place_id)
       WHERE e.tenant_id = $1 AND e.id = $2 AND d.diagnosis_date <= $3::date
       ORDER BY (d.estate_id IS NULL), d.diagnosis_date DESC, d.recorded_at DESC LIMIT 1`,
      [tenantId, estateId, date],
    ),
  );
  return dpeSummary(row ?? null);
}

/** The lease's terms the checks and the revision read; null when unknown to the tenant. */
export async function readLeaseTerms(sql: Sql, tenantId: string, leaseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT l.id, l.estate_id, l.lease_type, l.status, l.start_date, l.end_date, l.duration_months,
         l.rent_amount, l.deposit_amount, l.rent_frequency, l.payment_terms,
         l.revision_index_type, l.revision_reference_quarter, l.revision_reference_value, l.revision,
         l.rent_complement, l.rent_complement_justification,
         (SELECT ${OWNER_KIND_SQL} FROM estates e JOIN owners o ON o.tenant_id = e.tenant_id AND o.id = e.owner_id
          WHERE e.tenant_id = l.tenant_id AND e.id = l.estate_id) AS owner_category
       FROM leases l WHERE l.tenant_id = $1 AND l.id = $2`,
      [tenantId, leaseId],
    ),
  );
  if (!row) return null;
  return {
    id: String(row.id),
    estate_id: String(row.estate_id),
    lease_type: row.lease_type as LeaseType,
    status: String(row.status),
    start_date: day(row.start_date) as string,
    end_date: day(row.end_date) ?? null,
    duration_months: num(row.duration_months),
    rent_amount: Number(row.rent_amount),
    deposit_amount: num(row.deposit_amount),
    rent_frequency: (row.rent_frequency as string | null) ?? null,
    payment_terms: (row.payment_terms as string | null) ?? null,
    /** Who lets (loi n° 89-462 art. 10): a company owner is taken as a legal person (docs/decisions.md). */
    lessor: lessorKindOf(row.owner_category as string | null),
    revision_index_type: (row.revision_index_type as string | null) ?? null,
    revision_reference_quarter: (row.revision_reference_quarter as string | null) ?? null,
    revision_reference_value: num(row.revision_reference_value),
    rent_complement: num(row.rent_complement),
    rent_complement_justification: (row.rent_complement_justification as string | null) ?? null,
    revision: Number(row.revision),
  };
}

/** What the caller states for the re-letting exceptions (décret 2017-1198 art. 4); null: nothing. */
export type RelettingClaims = { works_amount: number | null; neighbourhood_rent: number | null } | null;

/**
 * A lease's current IRL reference and last index revision (art. 17-1 I: each applied revision
 * becomes the next one's reference): for its own next revision, and for the re-letting uplift of
 * the lease after it.
 */
export async function readIndexReference(sql: Sql, tenantId: string, previous: Row) {
  const [last] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT effective_date, index FROM lease_rent_history
       WHERE tenant_id = $1 AND lease_id = $2 AND reason = 'INDEX_REVISION'
       ORDER BY effective_date DESC, revision DESC LIMIT 1`,
      [tenantId, previous.id],
    ),
  );
  const index = (last?.index as RentIndex | null) ?? null;
  const onIrl = previous.revision_index_type == null || previous.revision_index_type === "IRL";
  const quarter =
    index?.type === "IRL" ? index.new_quarter : onIrl ? previous.revision_reference_quarter : null;
  return {
    irl_reference_quarter: (quarter as string | null) ?? null,
    last_index_revision_on: day(last?.effective_date),
  };
}

export async function readLeaseComplianceFacts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  on: string,
  claims: RelettingClaims = null,
) {
  const lease = await readLeaseTerms(sql, tenantId, leaseId);
  if (!lease) return null;
  const { estate_id: estateId, start_date: start } = lease;
  const [estate] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT e.area, e.number_of_room, e.construction_date, p.address_postal_code
         FROM estates e LEFT JOIN places p ON p.tenant_id = e.tenant_id AND p.id = e.place_id
        WHERE e.tenant_id = $1 AND e.id = $2`,
      [tenantId, estateId],
    ),
  );
  const [previous] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT id, rent_amount, revision_index_type, revision_reference_quarter,
         coalesce(terminated_at, CASE WHEN status = 'EXPIRED' THEN end_date END) AS ended_on FROM leases
       WHERE tenant_id = $1 AND estate_id = $2 AND id <> $3 AND start_date < $4::date
         AND status IN ('ACTIVE', 'NOTICE', 'FINALISATION', 'TERMINATED', 'EXPIRED')
       ORDER BY start_date DESC, created_at DESC LIMIT 1`,
      [tenantId, estateId, leaseId, start],
    ),
  );
  const changes = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT effective_date, rent_amount, previous_rent_amount, reason, index FROM lease_rent_history
       WHERE tenant_id = $1 AND lease_id = $2 ORDER BY revision`,
      [tenantId, leaseId],
    ),
  );
  const regulation = await readEstateRentRegulation(sql, tenantId, estateId);
  const construction = day(estate?.construction_date);
  return {
    lease,
    on,
    estate: {
      area: num(estate?.area),
      rooms: num(estate?.number_of_room),
      construction_year: construction ? Number(construction.slice(0, 4)) : null,
      overseas: isOverseas(estate?.address_postal_code as string | null | undefined),
    },
    dpe_at_start: await readDpeSummaryOn(sql, tenantId, estateId, start),
    latest_dpe_before_start: await readLatestDpeBefore(sql, tenantId, estateId, start),
    dpe_on: await readDpeSummaryOn(sql, tenantId, estateId, on),
    regulation:
      regulation && regulation.source !== "none"
        ? {
            high_demand_zone: regulation.high_demand_zone,
            reference_rents: regulation.reference_rents,
            effective_from: day(regulation.effective_from),
          }
        : null,
    previous_lease: previous
      ? {
          id: String(previous.id),
          rent_amount: Number(previous.rent_amount),
          ended_on: day(previous.ended_on),
          ...(await readIndexReference(sql, tenantId, previous)),
        }
      : null,
    irl: await readAllIrl(sql),
    reletting_claims: claims,
    furniture_inventory: await readInventory(sql, tenantId, leaseId),
    handover: await readHandover(sql, tenantId, leaseId),
    tenants: await readTenantIncomes(sql, tenantId, leaseId),
    rent_changes: await Promise.all(
      changes.map(async (c) => {
        const effective = day(c.effective_date) as string;
        return {
          effective_date: effective,
          rent_amount: Number(c.rent_amount),
          previous_rent_amount: Number(c.previous_rent_amount),
          reason: String(c.reason),
          index: (c.index as RentIndex | null) ?? null,
          dpe: await readDpeSummaryOn(sql, tenantId, estateId, effective),
        };
      }),
    ),
  };
}

/** What the keys' handover left on record: a SIGNED entry report, the annexes attached. */
async function readHandover(sql: Sql, tenantId: string, leaseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ signed: boolean; annexed: string[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM condition_reports r WHERE r.tenant_id = $1 AND r.lease_id = $2
                        AND r.type = 'ENTRY' AND r.status = 'SIGNED') AS signed,
              (SELECT array_agg(DISTINCT a.code) FROM lease_annexes a WHERE a.tenant_id = $1 AND a.lease_id = $2) AS annexed`,
      [tenantId, leaseId],
    ),
  );
  return { entry_report_signed: row?.signed === true, annexed: row?.annexed ?? [] };
}

/** The lease's active tenants and guarantors with their incomes (for the guidance, advice only). */
async function readTenantIncomes(sql: Sql, tenantId: string, leaseId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{
      role: "Primary" | "CoTenant" | "Guarantor";
      monthly_income: string | null;
      other_income: string | null;
    }>(
      `SELECT a.role, p.monthly_income, p.other_income
         FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
        WHERE a.tenant_id = $1 AND a.lease_id = $2 AND NOT a.ended
        ORDER BY CASE a.role WHEN 'Primary' THEN 0 WHEN 'CoTenant' THEN 1 ELSE 2 END, a.created_at, a.lessee_id`,
      [tenantId, leaseId],
    ),
  );
  return rows.map((r) => ({
    role: r.role,
    monthly_income: r.monthly_income === null ? null : Number(r.monthly_income),
    other_income: r.other_income === null ? null : Number(r.other_income),
  }));
}
