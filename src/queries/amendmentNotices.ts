import type { Sql } from "../platform/db.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import type { Row } from "../platform/projections/projection.ts";

/**
 * What an amendment notice needs (docs/messages.md, "Amendment notices"), read from the read
 * models of the leases and lessees areas. Every tenant's: the worker acts for all of them.
 */

export interface PendingNotice {
  id: string;
  tenant_id: string;
  lease_id: string;
  amendment_id: string;
  status: "PENDING_VALIDATION" | "VALIDATED" | "REJECTED";
  reason: string | null;
  occurred_at: string;
}

export interface NoticeRecipient {
  lessee_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  legal_name: string | null;
}

export interface NoticeFacts {
  amendment: { title: string; effective_date: string } | null;
  estate: { address: string | null } | null;
  /** The estate's owner, when it has one: the lessor. */
  landlord: { name: string | null; address: string | null } | null;
  recipients: NoticeRecipient[];
}

/** Notices not handled yet, oldest first. */
export async function pendingAmendmentNotices(sql: Sql, limit: number): Promise<PendingNotice[]> {
  const rows = await sql.query<Row>(
    `SELECT id, tenant_id, lease_id, amendment_id, status, reason, occurred_at FROM amendment_notices
      WHERE handled_at IS NULL ORDER BY occurred_at, id LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    id: String(r.id),
    tenant_id: String(r.tenant_id),
    lease_id: String(r.lease_id),
    amendment_id: String(r.amendment_id),
    status: r.status as PendingNotice["status"],
    reason: (r.reason as string | null) ?? null,
    occurred_at: iso(r.occurred_at) ?? "",
  }));
}

/**
 * The amendment, the estate and the tenants to tell: the lease's Primary and CoTenant lessees
 * (not guarantors) who were on the lease when the event happened (an association made later,
 * or ended before, does not get it), with an email.
 */
export async function amendmentNoticeFacts(sql: Sql, notice: PendingNotice): Promise<NoticeFacts> {
  const [amendment] = await sql.query<Row>(
    "SELECT title, effective_date FROM lease_amendments WHERE tenant_id = $1 AND id = $2",
    [notice.tenant_id, notice.amendment_id],
  );
  const [estate] = await sql.query<Row>(
    `SELECT e.address, o.first_name, o.last_name, o.legal_name, o.id AS owner_id,
            concat_ws(', ', o.address_street, concat_ws(' ', o.address_postal_code, o.address_city)) AS owner_address
       FROM leases l JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
       LEFT JOIN owners o ON o.tenant_id = e.tenant_id AND o.id = e.owner_id
      WHERE l.tenant_id = $1 AND l.id = $2`,
    [notice.tenant_id, notice.lease_id],
  );
  const recipients = await sql.query<Row>(
    `SELECT a.lessee_id, p.email, p.first_name, p.last_name, p.legal_name
       FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
      WHERE a.tenant_id = $1 AND a.lease_id = $2 AND a.role IN ('Primary', 'CoTenant')
        AND a.created_at <= $3 AND (a.end_date IS NULL OR a.end_date >= ($3::timestamptz AT TIME ZONE 'Europe/Paris')::date)
        AND coalesce(p.email, '') <> ''
      ORDER BY a.created_at, a.lessee_id`,
    [notice.tenant_id, notice.lease_id, notice.occurred_at],
  );
  return {
    amendment: amendment
      ? { title: String(amendment.title), effective_date: isoDay(amendment.effective_date) ?? "" }
      : null,
    estate: estate ? { address: (estate.address as string | null) ?? null } : null,
    landlord: estate?.owner_id
      ? {
          name:
            (estate.legal_name as string | null) ??
            ([estate.first_name, estate.last_name].filter(Boolean).join(" ") || null),
          address: (estate.owner_address as string | null) || null,
        }
      : null,
    recipients: recipients.map((r) => ({
      lessee_id: String(r.lessee_id),
      email: String(r.email),
      first_name: (r.first_name as string | null) ?? null,
      last_name: (r.last_name as string | null) ?? null,
      legal_name: (r.legal_name as string | null) ?? null,
    })),
  };
}
