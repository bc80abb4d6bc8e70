import type { Sql } from "../platform/db.ts";

/** A guarantor (caution) of a lease with an email: the one their notices go to. */
export interface GuarantorContact {
  lessee_id: string;
  name: string;
  email: string;
}

const GUARANTORS = `
  SELECT a.lessee_id, trim(coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, '')) AS person,
    p.legal_name, p.email
  FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
  WHERE a.tenant_id = $1 AND a.lease_id = $2 AND NOT a.ended AND a.role = 'Guarantor'
    AND p.email IS NOT NULL AND p.email <> ''
  ORDER BY a.created_at, a.lessee_id`;

/** The lease's guarantors on it today who have an email. */
export async function readGuarantors(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<GuarantorContact[]> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ lessee_id: string; person: string; legal_name: string | null; email: string }>(GUARANTORS, [
      tenantId,
      leaseId,
    ]),
  );
  return rows.map((r) => ({
    lessee_id: String(r.lessee_id),
    name: r.person || r.legal_name || "",
    email: r.email,
  }));
}
