import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type Mandate, mandateStatusOn } from "../../events/bank/mandates.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import type { Row } from "../../platform/projections/projection.ts";
import { readLeaseStatus } from "../rentCycle.ts";

/** SEPA mandates as the API shows them (docs/bank.md, "SEPA mandates"). FinanceRead. */
export const mandateBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    lessee_id: uuid(),
    rum: z.string().describe("Unique mandate reference (référence unique de mandat)"),
    iban: z.string(),
    bic: z.string().nullable(),
    signed_on: z.string(),
    status: z.enum(["ACTIVE", "REVOKED", "LAPSED"]).describe("LAPSED: unused for 36 months"),
    sequence: z.enum(["FRST", "RCUR"]).describe("FRST until its first collection, then RCUR"),
    revoked_on: z.string().nullable(),
  })
  .meta({ id: "SepaMandate" });
type MandateBody = z.output<typeof mandateBody>;

const bodyOf = (
  m: Omit<MandateBody, "id" | "status" | "sequence"> & { id: string; last_used_on: string | null },
  today: string,
): MandateBody => ({
  id: m.id,
  lease_id: m.lease_id,
  lessee_id: m.lessee_id,
  rum: m.rum,
  iban: m.iban,
  bic: m.bic,
  signed_on: m.signed_on,
  status: mandateStatusOn(m, today),
  sequence: m.last_used_on ? "RCUR" : "FRST",
  revoked_on: m.revoked_on,
});

/** The answer of a command, folded from its stream. */
export const mandateOf = (m: Mandate, today: string): MandateBody | null =>
  m.status === "signed" ? bodyOf({ ...m, id: m.mandate_id }, today) : null;

const SELECT = `id::text, lease_id::text, lessee_id::text, rum, iban, bic, to_char(signed_on, 'YYYY-MM-DD') AS signed_on,
  to_char(last_used_on, 'YYYY-MM-DD') AS last_used_on, to_char(revoked_on, 'YYYY-MM-DD') AS revoked_on`;

export async function leaseMandates(sql: Sql, tenantId: string, leaseId: string, today = legalToday()) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT ${SELECT} FROM sepa_mandates WHERE tenant_id = $1 AND lease_id = $2 ORDER BY signed_on, id`,
      [tenantId, leaseId],
    ),
  );
  return rows.map((r) => bodyOf(r as never, today));
}

/** The IBAN of each lease's active mandates (payers' IBANs for matching when a lessee has none stored). */
export async function mandateIbans(sql: Sql, tenantId: string, today = legalToday()) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${SELECT} FROM sepa_mandates WHERE tenant_id = $1 AND revoked_on IS NULL`, [
      tenantId,
    ]),
  );
  const out = new Map<string, { lessee_id: string; iban: string }[]>();
  for (const r of rows as never as (Omit<MandateBody, "status" | "sequence"> & {
    last_used_on: string | null;
  })[]) {
    if (mandateStatusOn(r, today) !== "ACTIVE") continue;
    out.set(r.lease_id, [...(out.get(r.lease_id) ?? []), { lessee_id: r.lessee_id, iban: r.iban }]);
  }
  return out;
}

export async function mandateQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases/:lease_id/sepa-mandates",
    {
      schema: {
        tags: ["Bank"],
        summary: "SEPA mandates of a lease, by signature date",
        params: z.strictObject({ lease_id: uuid() }),
        response: answers(z.array(mandateBody)),
      },
      config: { access: "FinanceRead" as const },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { lease_id } = request.params;
      if ((await readLeaseStatus(sql, tenant, lease_id)) === null) throw notFound("Lease", lease_id);
      return leaseMandates(sql, tenant, lease_id);
    },
  );
}
