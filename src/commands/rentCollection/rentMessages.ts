import { lesseeStream } from "../../events/lessees.ts";
import { DEFAULT_RENT_MESSAGES, type RentMessages } from "../../events/settings.ts";
import { addDays, legalToday } from "../../law/calendar.ts";
import type { Sql } from "../../platform/db.ts";
import { isoDay } from "../../platform/formatDates.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type OutboxDeps, queueMessage } from "../../platform/outbox/queueMessage.ts";
import { longDate } from "../../platform/pdf/renderTemplate.ts";
import type { Row } from "../../platform/projections/projection.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { type LetterFacts, readLetterFacts } from "../../queries/rentDocuments.ts";
import { avisMessageId, avisPdf } from "../../queries/rentNotice.ts";
import { findConfiguration } from "../../queries/settings.ts";
import { issueReceipt, receiptPdf } from "./receipts.ts";

/**
 * Rent messages (docs/messages.md, "Rent messages"): a reaction to the log. The
 * `rent_call_messages` projection holds one row per call issued; this step emails the call's avis
 * d'échéance to the lease's tenants `avis_days_before` days before its due date, and its quittance
 * once the call is paid in full (the `rent_calls` row says so). One message per (call, kind), its id
 * derived from them: however often this runs, crashes or runs in several workers, nothing goes twice.
 */

const BATCH = 100;
/** An avis for a call due longer ago than this is not sent (a taken-over past, a rebuild): reminders follow such a call. */
export const AVIS_LATE_DAYS = 7;
/** A call paid longer ago than this when first seen (a first deployment, a rebuild): no quittance emailed. */
export const QUITTANCE_MAX_AGE_HOURS = 72;

export interface RentMessageDeps extends OutboxDeps {
  sql: Sql;
  now?: () => Date;
}

export { avisMessageId };
export const quittanceMessageId = (callId: string) => deterministicUuid("rent-quittance", callId);

async function settingsOf(sql: Sql, tenantId: string) {
  const saved = (await findConfiguration(sql, tenantId))?.configuration;
  const messages: RentMessages = saved?.rent_messages ?? DEFAULT_RENT_MESSAGES;
  return { messages, from: saved ? { name: saved.sender.name, email: saved.sender.email } : null };
}

const recipients = (facts: LetterFacts) =>
  facts.lessees
    .filter((l) => l.email)
    .map((l) => ({ email: l.email, name: [l.first_name, l.last_name].filter(Boolean).join(" ") || null }));

const mark = (sql: Sql, id: string, column: "avis_handled" | "quittance_handled", handled: string) =>
  sql.query(`UPDATE rent_call_messages SET ${column} = $2 WHERE id = $1`, [id, handled]);

async function queueWithPdf(
  deps: RentMessageDeps,
  row: Row,
  facts: LetterFacts,
  from: { name: string; email: string } | null,
  message: {
    id: string;
    topic: string;
    subject: string;
    text: string;
    pdf: { bytes: Buffer; filename: string };
  },
) {
  const to = recipients(facts);
  if (to.length === 0) return "NO_RECIPIENT";
  await queueMessage(deps, {
    tenant_id: String(row.tenant_id),
    message_id: message.id,
    to,
    from,
    subject: message.subject,
    text: message.text,
    attachments: [
      {
        filename: message.pdf.filename,
        content_type: "application/pdf",
        content_base64: message.pdf.bytes.toString("base64"),
      },
    ],
    topic: message.topic,
    related: { kind: "rent_call", id: String(row.id) },
    data_subjects: facts.lessees.map((l) => lesseeStream(l.lessee_id)),
  });
  return "QUEUED";
}

async function avisOf(deps: RentMessageDeps, row: Row, today: string): Promise<string | null> {
  const tenantId = String(row.tenant_id);
  const { messages, from } = await settingsOf(deps.sql, tenantId);
  const due = isoDay(row.due_date) ?? "";
  if (!messages.avis) return "OFF";
  if (due < addDays(today, -AVIS_LATE_DAYS)) return "STALE";
  if (addDays(due, -messages.avis_days_before) > today) return null; // not yet
  const facts = await readLetterFacts(deps.sql, tenantId, String(row.lease_id));
  if (!facts) return null;
  const pdf = await avisPdf(deps.sql, tenantId, String(row.lease_id), String(row.id));
  return queueWithPdf(deps, row, facts, from, {
    id: avisMessageId(String(row.id)),
    topic: "rent-avis",
    subject: `Avis d'échéance : loyer à régler le ${longDate(due)}`,
    text: `Madame, Monsieur,\n\nVous trouverez ci-joint l'avis d'échéance de votre loyer${facts.estate.address ? ` (${facts.estate.address})` : ""}, à régler au plus tard le ${longDate(due)}.\n\n${facts.landlord.name}\n`,
    pdf,
  });
}

async function quittanceOf(deps: RentMessageDeps, row: Row, now: Date): Promise<string> {
  const tenantId = String(row.tenant_id);
  const { messages, from } = await settingsOf(deps.sql, tenantId);
  if (!messages.quittance) return "OFF";
  if (now.getTime() - Date.parse(String(row.paid_at)) > QUITTANCE_MAX_AGE_HOURS * 3_600_000) return "STALE";
  const leaseId = String(row.lease_id);
  const facts = await readLetterFacts(deps.sql, tenantId, leaseId);
  if (!facts) return "STALE";
  const at = now.toISOString();
  const metadata = {
    tenant_id: tenantId,
    actor_key_id: null,
    correlation_id: null,
    causation_id: null,
    occurred_at: at,
  };
  const outcome = await issueReceipt(
    { store: deps.store, sql: deps.sql, tenant_id: tenantId, metadata },
    leaseId,
    String(row.id),
    legalToday(now),
  );
  const pdf = await receiptPdf(deps.sql, tenantId, leaseId, outcome, legalToday(now));
  return queueWithPdf(deps, row, facts, from, {
    id: quittanceMessageId(String(row.id)),
    topic: "rent-quittance",
    subject: `Quittance de loyer n° ${outcome.receipt?.number ?? ""}`,
    text: `Madame, Monsieur,\n\nVotre loyer est intégralement payé : vous trouverez ci-jointe votre quittance, délivrée gratuitement (loi n° 89-462 du 6 juillet 1989, art. 21).\n\n${facts.landlord.name}\n`,
    pdf,
  });
}

/** Queues the avis and quittances that are due; how many calls it handled. */
export async function queueRentMessages(deps: RentMessageDeps): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const today = legalToday(now);
  let handled = 0;
  const avis = await deps.sql.query<Row>(
    `SELECT r.tenant_id, r.id, r.lease_id, r.due_date FROM rent_call_messages r
     WHERE r.avis_handled IS NULL AND r.due_date <= $1::date + 60 ORDER BY r.due_date, r.id LIMIT ${BATCH}`,
    [today],
  );
  for (const row of avis) {
    const outcome = await avisOf(deps, row, today);
    if (outcome === null) continue;
    await mark(deps.sql, String(row.id), "avis_handled", outcome);
    handled++;
  }
  const paid = await deps.sql.query<Row>(
    `SELECT r.tenant_id, r.id, r.lease_id, c.updated_at AS paid_at FROM rent_call_messages r
     JOIN rent_calls c ON c.tenant_id = r.tenant_id AND c.id = r.id
     WHERE r.quittance_handled IS NULL AND c.status = 'PAID' ORDER BY c.updated_at, r.id LIMIT ${BATCH}`,
  );
  for (const row of paid) {
    await mark(deps.sql, String(row.id), "quittance_handled", await quittanceOf(deps, row, now));
    handled++;
  }
  return handled;
}

export const rentMessagesLoop: WorkerLoop = {
  name: "rent-messages",
  open: ({ sql, store }) => ({ run: () => queueRentMessages({ sql, store }) }),
};
