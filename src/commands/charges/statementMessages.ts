import { lesseeStream } from "../../events/lessees.ts";
import { legalToday } from "../../law/calendar.ts";
import { statementNoticeVerdict } from "../../law/charges.ts";
import type { Sql } from "../../platform/db.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type OutboxDeps, queueMessage } from "../../platform/outbox/queueMessage.ts";
import { formatEuro, longDate } from "../../platform/pdf/renderTemplate.ts";
import type { Row } from "../../platform/projections/projection.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { readRegularisation, statementMarkup, statementParties } from "../../queries/charges.ts";
import { renderDocument } from "../../queries/rentDocuments.ts";
import { findConfiguration } from "../../queries/settings.ts";

/**
 * The charges statement (docs/messages.md, "Charges statement"): a reaction to the log. Each
 * regularisation's statement is emailed to the lease's tenants, the PDF attached, the day the
 * worker first sees it; its balance is payable a month later (loi n° 89-462 art. 23: « un mois
 * avant cette régularisation, le bailleur en communique au locataire le décompte par nature de
 * charges », `statementNoticeVerdict`). One message per regularisation, its id derived from it.
 */

const BATCH = 50;
/** A regularisation recorded longer ago than this when first seen (a first deployment, a rebuild): not emailed. */
export const STATEMENT_MAX_AGE_HOURS = 72;

export interface StatementMessageDeps extends OutboxDeps {
  sql: Sql;
  now?: () => Date;
}

export const statementMessageId = (regularisationId: string) =>
  deterministicUuid("charge-statement", regularisationId);

const mark = (sql: Sql, id: string, handled: string) =>
  sql.query("UPDATE charge_statement_messages SET handled = $2 WHERE id = $1", [id, handled]);

async function statementOf(deps: StatementMessageDeps, row: Row, now: Date): Promise<string | null> {
  if (now.getTime() - Date.parse(String(row.occurred_at)) > STATEMENT_MAX_AGE_HOURS * 3_600_000)
    return "STALE";
  const tenantId = String(row.tenant_id);
  const leaseId = String(row.lease_id);
  const r = await readRegularisation(deps.sql, tenantId, leaseId, String(row.id));
  if (!r) return null; // the regularisations' read model is behind: next pass
  const today = legalToday(now);
  const parties = await statementParties(deps.sql, tenantId, leaseId, today);
  const check = statementNoticeVerdict(today, parties.payable_on);
  if (check.status !== "PASS") throw new Error(check.message);
  const to = (parties.facts?.lessees ?? [])
    .filter((l) => l.email)
    .map((l) => ({ email: l.email, name: `${l.first_name} ${l.last_name}`.trim() || null }));
  if (to.length === 0) return "NO_RECIPIENT";
  const sender = (await findConfiguration(deps.sql, tenantId))?.configuration.sender;
  const pdf = await renderDocument(statementMarkup(r, parties), "Régularisation des charges");
  const balance =
    r.balance >= 0
      ? `Le solde dû, ${formatEuro(r.balance)}, est payable à compter du ${longDate(parties.payable_on)}, un mois après l'envoi de ce décompte (loi n° 89-462 du 6 juillet 1989, art. 23).`
      : `Le solde en votre faveur, ${formatEuro(-r.balance)}, vous sera remboursé.`;
  await queueMessage(deps, {
    tenant_id: tenantId,
    message_id: statementMessageId(String(row.id)),
    to,
    from: sender ? { name: sender.name, email: sender.email } : null,
    subject: `Régularisation des charges du ${longDate(r.period.from)} au ${longDate(r.period.to)} : ${parties.address}`,
    text: `Madame, Monsieur,

Vous trouverez ci-joint le décompte par nature de charges du logement ${parties.address}, pour la période du ${longDate(r.period.from)} au ${longDate(r.period.to)} : votre part des charges récupérables est de ${formatEuro(r.lease_amount)}, pour ${formatEuro(r.provisions_called)} de provisions appelées.

${balance} Les pièces justificatives sont à votre disposition pendant six mois.

${parties.landlord}
`,
    attachments: [
      {
        filename: `regularisation-charges-${r.period.to}.pdf`,
        content_type: "application/pdf",
        content_base64: pdf.toString("base64"),
      },
    ],
    topic: "charge-statement",
    related: { kind: "charge_regularisation", id: String(row.id) },
    data_subjects: (parties.facts?.lessees ?? []).map((l) => lesseeStream(l.lessee_id)),
  });
  return "QUEUED";
}

/** Queues the statements of the regularisations not yet handled; how many it handled. */
export async function queueChargeStatements(deps: StatementMessageDeps): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const rows = await deps.sql.query<Row>(
    `SELECT tenant_id, id, lease_id, occurred_at FROM charge_statement_messages
     WHERE handled IS NULL ORDER BY occurred_at, id LIMIT ${BATCH}`,
  );
  let handled = 0;
  for (const row of rows) {
    const outcome = await statementOf(deps, row, now);
    if (outcome === null) continue;
    await mark(deps.sql, String(row.id), outcome);
    handled++;
  }
  return handled;
}

export const chargeStatementLoop: WorkerLoop = {
  name: "charge-statements",
  open: ({ sql, store }) => ({ run: () => queueChargeStatements({ sql, store }) }),
};
