import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  type CollectionEvent,
  type CollectionTransaction,
  messageIdOf,
  SEQUENCE_TYPES,
} from "../../events/bank/collections.ts";
import { mandateStatusOn } from "../../events/bank/mandates.ts";
import { DEFAULT_RENT_MESSAGES } from "../../events/settings.ts";
import { cents, toEuros } from "../../law/money.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import type { Row } from "../../platform/projections/projection.ts";
import { avisMessageId } from "../rentNotice.ts";
import { findConfiguration } from "../settings.ts";
import { type Debtor, pain008 } from "./pain008.ts";

/** SEPA collection batches as the API shows them (docs/bank.md, "SEPA collections"). FinanceRead. */

type Batch = Extract<CollectionEvent, { type: "SepaCollectionCreated" }>["data"];

export const collectionBody = z
  .strictObject({
    id: uuid(),
    bank_account_id: uuid(),
    due_on: z.string(),
    message_id: z.string().describe("GrpHdr/MsgId of the pain.008 file"),
    transactions: z.array(
      z.strictObject({
        end_to_end_id: z.string().describe("PmtId/EndToEndId: the call's payment reference"),
        rent_call_id: uuid(),
        lease_id: uuid(),
        mandate_id: uuid(),
        rum: z.string(),
        sequence: z.enum(SEQUENCE_TYPES),
        amount: z.number(),
        status: z.enum(["COLLECTING", "REJECTED"]),
        reason_code: z.string().nullable().describe("ISO 20022 reason of a reject (AC04, AM04, MD06...)"),
      }),
    ),
    left_out: z
      .array(
        z.strictObject({
          rent_call_id: uuid(),
          lease_id: uuid(),
          reason: z.enum(["PRENOTIFICATION_LATE"]),
          message: z.string(),
          notified_on: z.string().nullable().describe("When the avis reached the tenant (null: it did not)"),
        }),
      )
      .describe(
        "Open calls due by due_on the batch did not take: their pre-notification did not reach the tenant 14 calendar days before the debit (EPC SDD Core rulebook)",
      ),
    total: z.number().describe("What the file collects (its control sum)"),
    rejected_total: z.number().describe("What status reports rejected"),
  })
  .meta({ id: "SepaCollection" });
export type CollectionBody = z.output<typeof collectionBody>;

export function collectionOf(batch: Batch, rejected: Readonly<Record<string, string>>): CollectionBody {
  const sum = (ts: readonly CollectionTransaction[]) => toEuros(ts.reduce((s, t) => s + cents(t.amount), 0));
  return {
    id: batch.collection_id,
    bank_account_id: batch.bank_account_id,
    due_on: batch.due_on,
    message_id: messageIdOf(batch.collection_id),
    transactions: batch.transactions.map((t) => ({
      end_to_end_id: t.end_to_end_id,
      rent_call_id: t.rent_call_id,
      lease_id: t.lease_id,
      mandate_id: t.mandate_id,
      rum: t.rum,
      sequence: t.sequence,
      amount: t.amount,
      status: rejected[t.end_to_end_id] ? "REJECTED" : "COLLECTING",
      reason_code: rejected[t.end_to_end_id] ?? null,
    })),
    left_out: batch.left_out ?? [],
    total: sum(batch.transactions),
    rejected_total: sum(batch.transactions.filter((t) => rejected[t.end_to_end_id])),
  };
}

export async function readCollection(sql: Sql, tenantId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT data, rejected FROM sepa_collections WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]),
  );
  return row ? { batch: row.data as Batch, rejected: row.rejected as Record<string, string> } : null;
}

/**
 * The open calls a collection on or before `dueOn` may take: of a lease paid by
 * PRELEVEMENT_AUTOMATIQUE, with an active mandate on the lease (the oldest signed when several),
 * not being collected by a batch of any account (the batch's own account is checked again by its
 * decider). Facts for the collection decider.
 */
export async function collectionCandidates(sql: Sql, tenantId: string, dueOn: string, today: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT c.id::text AS rent_call_id, c.lease_id::text AS lease_id, c.payment_reference,
              to_char(c.due_date, 'YYYY-MM-DD') AS due_date, (c.total_amount - c.paid_amount)::float8 AS open_amount,
              m.id::text AS mandate_id, m.rum, to_char(m.signed_on, 'YYYY-MM-DD') AS signed_on,
              to_char(m.last_used_on, 'YYYY-MM-DD') AS last_used_on, to_char(m.revoked_on, 'YYYY-MM-DD') AS revoked_on,
              to_char(c.created_at AT TIME ZONE 'Europe/Paris', 'YYYY-MM-DD') AS issued_on, r.avis_handled
       FROM rent_calls c
       LEFT JOIN rent_call_messages r ON r.tenant_id = c.tenant_id AND r.id = c.id
       JOIN leases l ON l.tenant_id = c.tenant_id AND l.id = c.lease_id AND l.payment_method = 'PRELEVEMENT_AUTOMATIQUE'
       JOIN sepa_mandates m ON m.tenant_id = c.tenant_id AND m.lease_id = c.lease_id AND m.revoked_on IS NULL
       WHERE c.tenant_id = $1 AND c.status <> 'PAID' AND c.due_date <= $2
         AND NOT EXISTS (
           SELECT 1 FROM sepa_collections s, jsonb_array_elements(s.data->'transactions') t
           WHERE s.tenant_id = c.tenant_id AND t->>'rent_call_id' = c.id::text
             AND NOT s.rejected ? (t->>'end_to_end_id'))
       ORDER BY c.due_date, c.period_start, c.id, m.signed_on, m.id`,
      [tenantId, dueOn],
    ),
  );
  const avisOff = !(
    (await findConfiguration(sql, tenantId))?.configuration.rent_messages ?? DEFAULT_RENT_MESSAGES
  ).avis;
  const delivered = await avisDeliveries(
    sql,
    tenantId,
    rows.map((r) => String(r.rent_call_id)),
  );
  const seen = new Set<string>();
  return rows.flatMap((r) => {
    const id = String(r.rent_call_id);
    const m = {
      signed_on: String(r.signed_on),
      last_used_on: (r.last_used_on as string | null) ?? null,
      revoked_on: null,
    };
    if (seen.has(id) || mandateStatusOn(m, today) !== "ACTIVE") return [];
    seen.add(id);
    return [
      {
        rent_call_id: id,
        lease_id: String(r.lease_id),
        payment_reference: String(r.payment_reference),
        due_date: String(r.due_date),
        open_amount: Number(r.open_amount),
        mandate: {
          mandate_id: String(r.mandate_id),
          rum: String(r.rum),
          signed_on: m.signed_on,
          used: m.last_used_on !== null,
        },
        notified_on: delivered.get(id) ?? (avisOff || r.avis_handled === "OFF" ? String(r.issued_on) : null),
        prenotification_days: null,
      },
    ];
  });
}

/**
 * When each call's avis d'échéance email reached its tenants (docs/decisions.md, "Pre-notification
 * reached"): the legal day (Europe/Paris) the outbox recorded it delivered.
 */
async function avisDeliveries(sql: Sql, tenantId: string, callIds: string[]): Promise<Map<string, string>> {
  if (callIds.length === 0) return new Map();
  const byMessage = new Map(callIds.map((id) => [avisMessageId(id), id]));
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT id::text AS id, to_char(delivered_at AT TIME ZONE 'Europe/Paris', 'YYYY-MM-DD') AS delivered_on
       FROM messages WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND status = 'DELIVERED' AND delivered_at IS NOT NULL`,
      [tenantId, [...byMessage.keys()]],
    ),
  );
  return new Map(rows.map((r) => [byMessage.get(String(r.id)) as string, String(r.delivered_on)]));
}

/** The debtor of each mandate of a batch: the mandate's IBAN and BIC, its lessee's name. */
async function debtorsOf(sql: Sql, tenantId: string, batch: Batch): Promise<Map<string, Debtor>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT m.id::text AS id, m.iban, m.bic, concat_ws(' ', p.first_name, p.last_name, p.legal_name) AS name
       FROM sepa_mandates m LEFT JOIN lessees p ON p.tenant_id = m.tenant_id AND p.id = m.lessee_id
       WHERE m.tenant_id = $1 AND m.id = ANY($2::uuid[])`,
      [tenantId, [...new Set(batch.transactions.map((t) => t.mandate_id))]],
    ),
  );
  return new Map(
    rows.map((r) => [
      String(r.id),
      { name: String(r.name ?? ""), iban: String(r.iban), bic: (r.bic as string | null) ?? null },
    ]),
  );
}

const xmlFile = z.unknown().meta({
  description: "The pain.008.001.08 file (ISO 20022 XML), to send to the bank",
  content: { "application/xml": { schema: { type: "string" } } },
});

export async function collectionQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const params = z.strictObject({ collection_id: uuid() });
  const found = async (tenant: string, id: string) => {
    const c = await readCollection(sql, tenant, id);
    if (!c) throw notFound("SEPA collection", id);
    return c;
  };
  api.get(
    "/api/sepa-collections/:collection_id",
    {
      schema: {
        tags: ["Bank"],
        summary: "A SEPA collection batch: its transactions, each collecting or rejected with its reason",
        params,
        response: answers(collectionBody),
      },
      config: { access: "FinanceRead" as const },
    },
    async (request) => {
      const c = await found(tenantOf(request), request.params.collection_id);
      return collectionOf(c.batch, c.rejected);
    },
  );
  api.get(
    "/api/sepa-collections/:collection_id/file",
    {
      schema: {
        tags: ["Bank"],
        summary: "The batch's pain.008.001.08 file (SEPA Direct Debit Core), one PmtInf per sequence type",
        params,
        response: answers(xmlFile),
      },
      config: { access: "FinanceRead" as const },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { batch } = await found(tenant, request.params.collection_id);
      const xml = pain008(batch, await debtorsOf(sql, tenant, batch));
      return reply
        .type("application/xml; charset=utf-8")
        .header("content-disposition", `attachment; filename="prelevements-${batch.due_on}.xml"`)
        .send(xml);
    },
  );
}

/**
 * What a stopped process left of collections settled more than `olderThanSeconds` ago: a
 * transaction whose debit payment the lease account does not hold, a rejected one whose payment
 * is not cancelled, a mandate the batch used that does not say so. Every tenant's: for the
 * settlement loop of the worker role.
 */
export async function unsettledCollections(sql: Sql, limit: number, olderThanSeconds = 30) {
  return sql.query<{
    tenant_id: string;
    collection_id: string;
    bank_account_id: string;
    due_on: string;
    lease_id: string;
    rent_call_id: string;
    payment_id: string;
    end_to_end_id: string;
    mandate_id: string;
    amount: number;
    reason: string | null;
    payment_missing: boolean;
    mandate_unused: boolean;
  }>(
    `SELECT * FROM (
       SELECT s.tenant_id::text, s.id::text AS collection_id, s.bank_account_id::text,
              to_char(s.due_on, 'YYYY-MM-DD') AS due_on, t.lease_id::text, t.rent_call_id::text,
              t.payment_id::text, t.end_to_end_id, t.mandate_id::text, t.amount::float8 AS amount,
              s.rejected->>t.end_to_end_id AS reason,
              p.id IS NULL AS payment_missing,
              (m.id IS NOT NULL AND (m.last_used_on IS NULL OR m.last_used_on < s.due_on)) AS mandate_unused,
              p.status AS payment_status, s.updated_at
         FROM sepa_collections s
         CROSS JOIN LATERAL jsonb_to_recordset(s.data->'transactions')
           AS t(lease_id uuid, rent_call_id uuid, payment_id uuid, end_to_end_id text, mandate_id uuid, amount numeric)
         LEFT JOIN lease_payments p ON p.id = t.payment_id
         LEFT JOIN sepa_mandates m ON m.id = t.mandate_id
        WHERE s.updated_at < now() - make_interval(secs => $2)) x
      WHERE (x.reason IS NULL AND x.payment_missing)
         OR (x.reason IS NOT NULL AND x.payment_status = 'RECORDED')
         OR x.mandate_unused
      ORDER BY x.updated_at LIMIT $1`,
    [limit, olderThanSeconds],
  );
}

/**
 * The debits of the account's batches (not rejected) whose end-to-end id is one of `refs`: what an
 * R-transaction in a statement may return.
 */
export async function collectedDebits(sql: Sql, tenantId: string, accountId: string, refs: string[]) {
  if (refs.length === 0) return [];
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT s.id::text AS collection_id, t->>'end_to_end_id' AS end_to_end_id, (t->>'amount')::float8 AS amount
       FROM sepa_collections s, jsonb_array_elements(s.data->'transactions') t
       WHERE s.tenant_id = $1 AND s.bank_account_id = $2 AND t->>'end_to_end_id' = ANY($3::text[])
         AND NOT s.rejected ? (t->>'end_to_end_id')
       ORDER BY s.due_on, s.id`,
      [tenantId, accountId, refs],
    ),
  );
  return rows.map((r) => ({
    collection_id: String(r.collection_id),
    end_to_end_id: String(r.end_to_end_id),
    amount: Number(r.amount),
  }));
}

/**
 * What a reject notice says of one debit (docs/messages.md, "SEPA rejects"): the debit's amount in
 * the batch and its call's period and due date.
 */
export async function rejectedDebitFacts(
  sql: Sql,
  tenantId: string,
  collectionId: string,
  endToEndId: string,
) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT (t->>'amount')::float8 AS amount, to_char(c.period_start, 'YYYY-MM-DD') AS period_start,
              to_char(c.period_end, 'YYYY-MM-DD') AS period_end, to_char(c.due_date, 'YYYY-MM-DD') AS due_date
       FROM sepa_collections s CROSS JOIN LATERAL jsonb_array_elements(s.data->'transactions') t
       LEFT JOIN rent_calls c ON c.tenant_id = s.tenant_id AND c.id = (t->>'rent_call_id')::uuid
       WHERE s.tenant_id = $1 AND s.id = $2 AND t->>'end_to_end_id' = $3`,
      [tenantId, collectionId, endToEndId],
    ),
  );
  if (!row) return null;
  return {
    amount: Number(row.amount),
    period_start: (row.period_start as string | null) ?? null,
    period_end: (row.period_end as string | null) ?? null,
    due_date: (row.due_date as string | null) ?? null,
  };
}
