import { z } from "zod";
import { LEASE_STATUSES, LEASE_TYPES } from "../events/leases.ts";
import { legalToday } from "../law/calendar.ts";
import { type LeaseRecordsFacts, leaseRecordsVerdict } from "../law/retention.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { offsetOf, pageQuery } from "../platform/http/pagination.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import {
  AMENDMENT_RESPONSE,
  ASSOCIATION_RESPONSE,
  DOCUMENT_RESPONSE,
  RENT_CHANGE_RESPONSE,
  toLease,
} from "./leaseBodies.ts";
import { date } from "./leasesSchemas.ts";
import { type Found, pick } from "./places.ts";

/**
 * The Leases area's reads (its GET routes are in ./leaseRoutes.ts), and the look-ups other areas
 * and the lease commands make.
 */

export {
  amendmentBody,
  amendmentParams,
  associationBody,
  associationParams,
  documentBody,
  documentParams,
  leaseBody,
  leaseParams,
} from "./leaseBodies.ts";
export { leaseFromEvents } from "./leaseReplay.ts";

export async function readLease(sql: Sql, tenantId: string, id: string): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM leases WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: toLease(row), revision: Number(row.revision) } : null;
}

/** One row of a lease's child table (tenants, amendments), with the lease's revision as its ETag. */
async function readChild(
  sql: Sql,
  tenantId: string,
  child: { table: string; key: string; columns: readonly string[] },
  leaseId: string,
  id: string,
): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT a.*, l.revision FROM ${child.table} a JOIN leases l ON l.id = a.lease_id
       WHERE a.tenant_id = $1 AND a.lease_id = $2 AND a.${child.key} = $3`,
      [tenantId, leaseId, id],
    ),
  );
  return row ? { body: pick(row, child.columns), revision: Number(row.revision) } : null;
}

const DOCUMENTS = { table: "lease_documents", key: "id", columns: DOCUMENT_RESPONSE };
const ASSOCIATIONS = { table: "lease_lessees", key: "lessee_id", columns: ASSOCIATION_RESPONSE };
const AMENDMENTS = { table: "lease_amendments", key: "id", columns: AMENDMENT_RESPONSE };

export const readDocument = (sql: Sql, tenantId: string, leaseId: string, id: string) =>
  readChild(sql, tenantId, DOCUMENTS, leaseId, id);
export const readAssociation = (sql: Sql, tenantId: string, leaseId: string, lesseeId: string) =>
  readChild(sql, tenantId, ASSOCIATIONS, leaseId, lesseeId);

/** The documents attached to a lease's amendments (one of them when `amendmentId`), by amendment. */
async function amendmentDocuments(sql: Sql, tenantId: string, leaseId: string, amendmentId?: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT * FROM lease_documents WHERE tenant_id = $1 AND lease_id = $2
         AND amendment_id IS NOT NULL AND ($3::uuid IS NULL OR amendment_id = $3) ORDER BY created_at, id`,
      [tenantId, leaseId, amendmentId ?? null],
    ),
  );
  const byAmendment = new Map<string, Row[]>();
  for (const row of rows) {
    const key = String(row.amendment_id);
    byAmendment.set(key, [...(byAmendment.get(key) ?? []), pick(row, DOCUMENT_RESPONSE)]);
  }
  return byAmendment;
}

/** An amendment with the documents attached to it (issue 24). */
export async function readAmendment(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  id: string,
): Promise<Found | null> {
  const found = await readChild(sql, tenantId, AMENDMENTS, leaseId, id);
  if (!found) return null;
  const documents = (await amendmentDocuments(sql, tenantId, leaseId, id)).get(id) ?? [];
  return { body: { ...found.body, documents }, revision: found.revision };
}

/** The rows of a lease's child table, oldest first; 404 when the lease is unknown. */
async function listChildren(
  sql: Sql,
  tenantId: string,
  table: string,
  leaseId: string,
  extra = "",
  params: unknown[] = [],
) {
  await requireLease(sql, tenantId, leaseId);
  return sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM ${table} WHERE tenant_id = $1 AND lease_id = $2 ${extra}`, [
      tenantId,
      leaseId,
      ...params,
    ]),
  );
}

export async function requireLease(sql: Sql, tenantId: string, id: string): Promise<Found> {
  const found = await readLease(sql, tenantId, id);
  if (!found) throw notFound("Lease", id);
  return found;
}

/** A lease's tenants, every term or only those not ended. */
export async function listAssociations(sql: Sql, tenantId: string, leaseId: string, activeOnly: boolean) {
  const order = `${activeOnly ? "AND NOT ended" : ""} ORDER BY created_at, id`;
  const rows = await listChildren(sql, tenantId, "lease_lessees", leaseId, order);
  return rows.map((r) => pick(r, ASSOCIATION_RESPONSE));
}

/** A lease's amendments, oldest first, each with its documents. */
export async function listAmendments(sql: Sql, tenantId: string, leaseId: string) {
  const rows = await listChildren(sql, tenantId, "lease_amendments", leaseId, "ORDER BY created_at, id");
  const documents = await amendmentDocuments(sql, tenantId, leaseId);
  return rows.map((r) => ({ ...pick(r, AMENDMENT_RESPONSE), documents: documents.get(String(r.id)) ?? [] }));
}

/** A lease's documents, oldest first; only an amendment's when `amendmentId`. */
export async function listDocuments(sql: Sql, tenantId: string, leaseId: string, amendmentId?: string) {
  const filter = amendmentId === undefined ? "" : "AND amendment_id = $3";
  const params = amendmentId === undefined ? [] : [amendmentId];
  const rows = await listChildren(
    sql,
    tenantId,
    "lease_documents",
    leaseId,
    `${filter} ORDER BY created_at, id`,
    params,
  );
  return rows.map((r) => pick(r, DOCUMENT_RESPONSE));
}

export async function listRentChanges(sql: Sql, tenantId: string, leaseId: string) {
  const rows = await listChildren(sql, tenantId, "lease_rent_history", leaseId, "ORDER BY revision");
  return rows.map((r) => pick(r, RENT_CHANGE_RESPONSE));
}

export const listQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(LEASE_STATUSES).optional(),
  lease_type: z.enum(LEASE_TYPES).optional(),
  estate_id: uuid().optional(),
  place_id: uuid().optional(),
  lessee_id: uuid().optional(),
  start_date_from: date().optional(),
  start_date_to: date().optional(),
  end_date_from: date().optional(),
  end_date_to: date().optional(),
});
type ListQuery = z.output<typeof listQuery>;

export async function listLeases(sql: Sql, tenantId: string, q: ListQuery) {
  const where = ["l.tenant_id = $1"];
  const params: unknown[] = [tenantId];
  const add = (value: unknown, clause: (p: string) => string) => {
    if (value === undefined) return;
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  add(q.status, (p) => `l.status = ${p}`);
  add(q.lease_type, (p) => `l.lease_type = ${p}`);
  add(q.estate_id, (p) => `l.estate_id = ${p}`);
  add(q.place_id, (p) => `l.estate_id IN (SELECT id FROM estates WHERE tenant_id = $1 AND place_id = ${p})`);
  add(
    q.lessee_id,
    (p) =>
      `EXISTS (SELECT 1 FROM lease_lessees a WHERE a.tenant_id = $1 AND a.lease_id = l.id AND a.lessee_id = ${p})`,
  );
  add(q.start_date_from, (p) => `l.start_date >= ${p}::date`);
  add(q.start_date_to, (p) => `l.start_date <= ${p}::date`);
  add(q.end_date_from, (p) => `l.end_date >= ${p}::date`);
  add(q.end_date_to, (p) => `l.end_date <= ${p}::date`);
  const filter = where.join(" AND ");
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(`SELECT count(*)::int AS total FROM leases l WHERE ${filter}`, params);
    const rows = await tx.query<Row>(
      `SELECT l.* FROM leases l WHERE ${filter} ORDER BY l.created_at, l.id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, offsetOf(q)],
    );
    return { items: rows.map(toLease), total: Number(total), page: q.page, limit: q.limit };
  });
}

// Facts of the leases area that other areas look up (`lessee_active_leases` is built by
// src/projections/leases.ts).

/** Lease statuses during which an association keeps a lessee from being deleted (docs/architecture.md §6). */
export const ACTIVE_LEASE_STATUSES = [
  "DRAFT",
  "PENDING_SIGNATURE",
  "ACTIVE",
  "NOTICE",
  "FINALISATION",
] as const;

/**
 * The facts a lease's records are erased on (src/law/retention.ts, leaseRecordsVerdict), by lease
 * id; a lease the read model no longer holds is absent.
 */
export async function leaseRecordsFacts(
  sql: Sql,
  tenantId: string,
  leaseIds: string[],
): Promise<Map<string, LeaseRecordsFacts>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{
      id: string;
      over: boolean;
      ended_on: string | null;
      unpaid: string | null;
      deposit_due: string | null;
      regularised: string | null;
    }>(
      `SELECT l.id, NOT (l.status = ANY($3::text[])) AS over,
              to_char(coalesce(greatest(l.terminated_at, l.notice_end_date), l.end_date, l.updated_at::date),
                      'YYYY-MM-DD') AS ended_on,
              greatest(a.balance, 0) AS unpaid,
              (SELECT to_char(d.due_on, 'YYYY-MM-DD') FROM lease_deposits d
                WHERE d.tenant_id = l.tenant_id AND d.id = l.id) AS deposit_due,
              (SELECT to_char(max(r.regularised_on), 'YYYY-MM-DD') FROM charge_regularisations r
                WHERE r.tenant_id = l.tenant_id AND r.lease_id = l.id) AS regularised
         FROM leases l LEFT JOIN lease_accounts a ON a.tenant_id = l.tenant_id AND a.id = l.id
        WHERE l.tenant_id = $1 AND l.id = ANY($2::uuid[])`,
      [tenantId, leaseIds, ACTIVE_LEASE_STATUSES],
    ),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        over: r.over,
        ended_on: r.ended_on,
        unpaid_balance: Number(r.unpaid ?? 0),
        deposit_due_on: r.deposit_due,
        last_regularisation_on: r.regularised,
      },
    ]),
  );
}

/** Of these leases, those whose records may go with a party's erasure today; one no longer held too. */
export async function leasesWithRecordsErasable(sql: Sql, tenantId: string, leaseIds: string[]) {
  const facts = await leaseRecordsFacts(sql, tenantId, leaseIds);
  const today = legalToday();
  return new Set(
    leaseIds.filter((id) => {
      const f = facts.get(id);
      return !f || leaseRecordsVerdict(f, today).status === "PASS";
    }),
  );
}

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
