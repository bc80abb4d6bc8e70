import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { mandateStatusOn } from "../events/bank/mandates.ts";
import { legalToday } from "../law/calendar.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { deterministicUuid } from "../platform/ids.ts";
import type { Row } from "../platform/projections/projection.ts";
import { ensureOwnLease, lesseeOf } from "./lesseeSpace.ts";
import { contentDisposition } from "./media.ts";
import { pdfAnswers, receiptParams } from "./rentCollection.ts";
import {
  callFiguresOfRow,
  callView,
  type DirectDebitNotice,
  documentMarkup,
  documentView,
  NO_DIRECT_DEBIT,
  readLetterFacts,
  renderDocument,
} from "./rentDocuments.ts";
import { readConfiguration } from "./settings.ts";

/**
 * The avis d'échéance of a rent call (docs/rent-cycle.md, "Avis d'échéance"): what is due for the
 * period, when, and how to pay (the lessor's IBAN when the owner has one, the call's own
 * `payment_reference` when the call row carries one). Read from the rent calls' read model; a
 * document, not a record: asking for it writes nothing.
 */

/** The id of a call's avis email in the outbox (docs/messages.md, "Rent messages"). */
export const avisMessageId = (callId: string) => deterministicUuid("rent-avis", callId);

/** The call row of a lease, every column (a column added later, such as `payment_reference`, comes along). */
async function readCall(sql: Sql, tenantId: string, leaseId: string, callId: string): Promise<Row | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT to_jsonb(c) AS call FROM rent_calls c WHERE c.tenant_id = $1 AND c.lease_id = $2 AND c.id = $3",
      [tenantId, leaseId, callId],
      { prepare: true },
    ),
  );
  return (row?.call as Row | undefined) ?? null;
}

/**
 * The SEPA pre-notification an avis carries (docs/bank.md, "Pre-notification"): for a lease paid by
 * PRELEVEMENT_AUTOMATIQUE with an ACTIVE mandate (the oldest signed, as a batch takes it), what is
 * left to pay, debited on the call's due date, the creditor identifier (ICS) of the lessor's account
 * (the owner's own account first) and the mandate's RUM.
 */
async function directDebitOf(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  ownerId: string | null,
  call: { due_date: string; remaining_amount: number },
): Promise<DirectDebitNotice> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT m.rum, to_char(m.signed_on, 'YYYY-MM-DD') AS signed_on, to_char(m.last_used_on, 'YYYY-MM-DD') AS last_used_on,
              (SELECT a.creditor_id FROM bank_accounts a WHERE a.tenant_id = l.tenant_id AND a.creditor_id IS NOT NULL
                ORDER BY coalesce(a.owner_id = $3::uuid, false) DESC, a.created_at, a.id LIMIT 1) AS creditor_id
       FROM leases l JOIN sepa_mandates m ON m.tenant_id = l.tenant_id AND m.lease_id = l.id AND m.revoked_on IS NULL
       WHERE l.tenant_id = $1 AND l.id = $2 AND l.payment_method = 'PRELEVEMENT_AUTOMATIQUE'
       ORDER BY m.signed_on, m.id`,
      [tenantId, leaseId, ownerId],
    ),
  );
  const today = legalToday();
  const active = rows.find(
    (r) =>
      mandateStatusOn(
        {
          signed_on: String(r.signed_on),
          last_used_on: (r.last_used_on as string | null) ?? null,
          revoked_on: null,
        },
        today,
      ) === "ACTIVE",
  );
  if (!active || call.remaining_amount <= 0) return NO_DIRECT_DEBIT;
  return {
    amount: call.remaining_amount,
    date: call.due_date,
    creditor_id: (active.creditor_id as string | null) ?? "",
    rum: String(active.rum),
  };
}

/** The avis of a call as PDF bytes and its file name; 404 for an unknown lease or call. */
export async function avisPdf(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  callId: string,
): Promise<{ bytes: Buffer; filename: string }> {
  const facts = await readLetterFacts(sql, tenantId, leaseId);
  if (!facts) throw notFound("Lease", leaseId);
  const call = await readCall(sql, tenantId, leaseId, callId);
  if (!call) throw notFound("Rent call", callId);
  const configuration = await readConfiguration(sql, tenantId);
  const periodStart = isoDay(call.period_start) ?? "";
  const figures = callView(callFiguresOfRow(call));
  const view = documentView(facts, {
    call: figures,
    sender: { name: configuration.sender.name, email: configuration.sender.email },
    payment: {
      iban: facts.landlord.iban ?? "",
      bic: facts.landlord.bic ?? "",
      reference: typeof call.payment_reference === "string" ? call.payment_reference : "",
      direct_debit: await directDebitOf(sql, tenantId, leaseId, facts.owner_id, figures),
    },
  });
  const bytes = await renderDocument(documentMarkup("avis", null, view), "Avis d'échéance");
  return { bytes, filename: `avis-echeance-${periodStart}.pdf` };
}

export async function rentNoticeQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  const send = (reply: FastifyReply, avis: { bytes: Buffer; filename: string }) =>
    reply
      .header("content-type", "application/pdf")
      .header("content-disposition", contentDisposition("attachment", avis.filename))
      .send(avis.bytes);

  api.get(
    "/api/leases/:lease_id/rent-calls/:call_id/notice",
    {
      schema: {
        tags: ["Rent cycle"],
        summary:
          "The avis d'échéance of a rent call (PDF): the period, rent, charges, total, due date and how to pay",
        params: receiptParams,
        response: pdfAnswers,
      },
      config: { access: "FinanceRead" },
    },
    async (request, reply) => {
      const { lease_id, call_id } = request.params;
      return send(reply, await avisPdf(sql, tenantOf(request), lease_id, call_id));
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id/rent-calls/:call_id/notice",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "The avis d'échéance of a rent call of one of the signed-in lessee's leases (PDF); another lessee's lease answers 404",
        params: receiptParams,
        response: pdfAnswers,
      },
      config: { access: "lessee:leases:download" },
    },
    async (request, reply) => {
      const { lease_id, call_id } = request.params;
      const caller = lesseeOf(request);
      await ensureOwnLease(sql, caller, lease_id);
      return send(reply, await avisPdf(sql, caller.tenant_id, lease_id, call_id));
    },
  );
}
