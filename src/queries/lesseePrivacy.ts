import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { lesseeStream } from "../events/lessees.ts";
import { legalToday } from "../law/calendar.ts";
import type { ErasureFacts } from "../law/retention.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { readHistory } from "../platform/http/handleCommand.ts";
import { answers, historyBody, timestamp } from "../platform/http/responses.ts";
import { ACTIVE_LEASE_STATUSES, activeLeaseCounts } from "./leases.ts";
import { lesseeBody, readLessee } from "./lessees.ts";
import { uuidSchema } from "./lesseesSchemas.ts";
import { readAccount } from "./rentCycle.ts";

/**
 * A lessee's personal data (docs/personal-data.md): the facts its erasure is judged on (GDPR
 * art. 17 against the retentions of src/law/retention.ts) and its export (art. 15 and 20).
 */

/** The day the lessee stopped being bound by each lease that is over, latest first. */
const LEASE_ENDS = `
  SELECT ll.lease_id, l.status,
         coalesce(greatest(ll.end_date, l.terminated_at, l.notice_end_date), l.end_date, l.updated_at::date) AS ended_on
    FROM lease_lessees ll JOIN leases l ON l.tenant_id = ll.tenant_id AND l.id = ll.lease_id
   WHERE ll.tenant_id = $1 AND ll.lessee_id = $2`;

export async function lesseeErasureFacts(
  sql: Sql,
  tenantId: string,
  lesseeId: string,
): Promise<ErasureFacts> {
  const counts = await activeLeaseCounts(sql, tenantId, [lesseeId]);
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{
      last_end: string | null;
      unpaid: string | null;
      deposit_due: string | null;
      regularised: string | null;
    }>(
      `WITH ends AS (${LEASE_ENDS})
       SELECT (SELECT to_char(max(ended_on), 'YYYY-MM-DD') FROM ends) AS last_end,
              (SELECT sum(greatest(a.balance, 0)) FROM lease_accounts a
                WHERE a.tenant_id = $1 AND a.id IN (SELECT lease_id FROM ends)) AS unpaid,
              (SELECT to_char(max(d.due_on), 'YYYY-MM-DD') FROM lease_deposits d
                WHERE d.tenant_id = $1 AND d.id IN (SELECT lease_id FROM ends)) AS deposit_due,
              (SELECT to_char(max(r.regularised_on), 'YYYY-MM-DD') FROM charge_regularisations r
                WHERE r.tenant_id = $1 AND r.lease_id IN (SELECT lease_id FROM ends)) AS regularised`,
      [tenantId, lesseeId],
    ),
  );
  return {
    active_lease_count: counts.get(lesseeId) ?? 0,
    unpaid_balance: Number(row?.unpaid ?? 0),
    last_lease_end: row?.last_end ?? null,
    // The limitation runs from the latest of these too (src/law/retention.ts limitationStart).
    last_deposit_due_on: row?.deposit_due ?? null,
    last_regularisation_on: row?.regularised ?? null,
  };
}

/**
 * Lessees of every tenant (or one) whose retention may be over: not erased, no lease in
 * progress, nothing unpaid, and the last lease ended `years` or more before `today` (or never a
 * lease and registered that long ago). The retention job judges each again with the law.
 */
export async function erasureCandidates(
  sql: Sql,
  options: { today?: string; years: number; tenantId?: string | null; limit?: number },
): Promise<{ tenant_id: string; lessee_id: string }[]> {
  const today = options.today ?? legalToday();
  return sql.query(
    `SELECT s.tenant_id, s.id AS lessee_id FROM lessees s
      WHERE s.erased_at IS NULL AND ($3::uuid IS NULL OR s.tenant_id = $3)
        AND NOT EXISTS (SELECT 1 FROM lessee_active_leases a WHERE a.tenant_id = s.tenant_id
              AND a.lessee_id = s.id AND NOT a.ended AND a.lease_status = ANY($4::text[]))
        AND coalesce((SELECT max(coalesce(greatest(ll.end_date, l.terminated_at, l.notice_end_date), l.end_date,
                                          l.updated_at::date))
                        FROM lease_lessees ll JOIN leases l ON l.tenant_id = ll.tenant_id AND l.id = ll.lease_id
                       WHERE ll.tenant_id = s.tenant_id AND ll.lessee_id = s.id), s.created_at::date)
            <= ($1::date - make_interval(years => $2))::date
      ORDER BY s.created_at, s.id LIMIT $5`,
    [today, options.years, options.tenantId ?? null, ACTIVE_LEASE_STATUSES, options.limit ?? 1000],
  );
}

const exportBody = z
  .strictObject({
    exported_at: timestamp,
    subject: z.strictObject({ type: z.literal("lessee"), id: uuidSchema }),
    lessee: lesseeBody.nullable().describe("The lessee as the API shows it; null once deleted"),
    leases: z.array(
      z.strictObject({
        lease_id: uuidSchema,
        role: z.string(),
        start_date: z.string(),
        end_date: z.string().nullable(),
        ended: z.boolean(),
        status: z.string(),
        estate_id: uuidSchema,
        lease_type: z.string(),
        rent_amount: z.number(),
        charges_amount: z.number().nullable(),
        deposit_amount: z.number().nullable(),
        lease_start_date: z.string(),
        lease_end_date: z.string().nullable(),
      }),
    ),
    accounts: z.array(
      z.strictObject({
        lease_id: uuidSchema,
        balance: z.number(),
        credit: z.number(),
        entries: z.array(z.unknown()),
      }),
    ),
    signatures: z
      .array(
        z.strictObject({
          lease_id: uuidSchema,
          process_id: uuidSchema,
          process_status: z.string(),
          role: z.string(),
          name: z.string().nullable(),
          email: z.string().nullable(),
          status: z.string(),
          signed_at: timestamp.nullable(),
          initiated_at: timestamp,
          completed_at: timestamp.nullable(),
        }),
      )
      .describe("The lessee's own part in each lease signature process (the other signatories left out)"),
    messages: z
      .array(
        z.strictObject({
          id: uuidSchema,
          topic: z.string(),
          status: z.string(),
          subject: z.string().nullable(),
          created_at: timestamp,
          delivered_at: timestamp.nullable(),
          erased_at: timestamp.nullable(),
        }),
      )
      .describe("The messages about or to the lessee (their recipients left out: they may name others)"),
    history: historyBody,
  })
  .meta({ id: "LesseeExport", description: "Everything held about a lessee (GDPR art. 15 and 20)" });

export async function lesseePrivacyQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/lessees/:id/export",
    {
      schema: {
        tags: ["Lessees"],
        summary: "Everything held about a lessee, as JSON (GDPR art. 15 access and art. 20 portability)",
        params: z.strictObject({ id: uuidSchema }),
        response: answers(exportBody),
      },
      config: { access: "LesseeRead" },
    },
    async (request) => {
      const id = request.params.id.toLowerCase();
      const tenantId = tenantOf(request);
      // The log says whether the lessee ever existed here (a deleted one is still a subject).
      const history = await readHistory(request, lesseeStream(id), () => notFound("Lessee", id));
      if (history[0]?.type === "LesseeRegistrationAbandoned") throw notFound("Lessee", id);
      const lessee = await readLessee(sql, tenantId, id);
      const leases = await sql.asTenant(tenantId, (tx) =>
        tx.query(
          `SELECT ll.lease_id, ll.role, to_char(ll.start_date, 'YYYY-MM-DD') AS start_date,
                  to_char(ll.end_date, 'YYYY-MM-DD') AS end_date, ll.ended, l.status, l.estate_id, l.lease_type,
                  l.rent_amount::float8 AS rent_amount, l.charges_amount::float8 AS charges_amount,
                  l.deposit_amount::float8 AS deposit_amount,
                  to_char(l.start_date, 'YYYY-MM-DD') AS lease_start_date, to_char(l.end_date, 'YYYY-MM-DD') AS lease_end_date
             FROM lease_lessees ll JOIN leases l ON l.tenant_id = ll.tenant_id AND l.id = ll.lease_id
            WHERE ll.tenant_id = $1 AND ll.lessee_id = $2 ORDER BY ll.start_date, ll.lease_id`,
          [tenantId, id],
        ),
      );
      const accounts = [];
      for (const lease of leases) accounts.push(await readAccount(sql, tenantId, lease.lease_id));
      const signatures = await sql.asTenant(tenantId, (tx) =>
        tx.query<{ signatory: Record<string, unknown> } & Record<string, unknown>>(
          `SELECT s.lease_id, s.id AS process_id, s.status AS process_status, x AS signatory,
                  s.initiated_at, s.completed_at
             FROM lease_signatures s CROSS JOIN jsonb_array_elements(s.signatories) AS x
            WHERE s.tenant_id = $1 AND x->>'lessee_id' = $2 ORDER BY s.initiated_at, s.id`,
          [tenantId, id],
        ),
      );
      const messages = await sql.asTenant(tenantId, (tx) =>
        tx.query<Record<string, unknown>>(
          `SELECT id, topic, status, subject, created_at, delivered_at, erased_at FROM messages
            WHERE tenant_id = $1 AND data_subjects @> ARRAY[$2]::text[] ORDER BY created_at, id`,
          [tenantId, lesseeStream(id)],
        ),
      );
      return {
        exported_at: new Date().toISOString(),
        subject: { type: "lessee" as const, id },
        lessee: lessee?.body ?? null,
        leases,
        accounts,
        signatures: signatures.map(({ signatory: s, ...p }) => ({
          lease_id: String(p.lease_id),
          process_id: String(p.process_id),
          process_status: String(p.process_status),
          role: String(s.role),
          name: (s.name as string | null) ?? null,
          email: (s.email as string | null) ?? null,
          status: String(s.status),
          signed_at: (s.signed_at as string | null) ?? null,
          initiated_at: iso(p.initiated_at) as string,
          completed_at: iso(p.completed_at),
        })),
        messages: messages.map((m) => ({
          id: String(m.id),
          topic: String(m.topic),
          status: String(m.status),
          subject: (m.subject as string | null) ?? null,
          created_at: iso(m.created_at) as string,
          delivered_at: iso(m.delivered_at),
          erased_at: iso(m.erased_at),
        })),
        history,
      };
    },
  );
}
