import { lesseeStream } from "../../events/lessees.ts";
import { DEFAULT_SENDER_EMAIL } from "../../events/settings.ts";
import { LOI_89 } from "../../law/verdict.ts";
import type { Sql } from "../../platform/db.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type OutboxDeps, queueMessage } from "../../platform/outbox/queueMessage.ts";
import { formatEuro, longDate } from "../../platform/pdf/renderTemplate.ts";
import { rejectedDebitFacts } from "../../queries/bank/collections.ts";
import { readLetterFacts } from "../../queries/rentDocuments.ts";
import { findConfiguration } from "../../queries/settings.ts";

/**
 * A rejected or returned SEPA debit is told to the lease's tenants and to the manager
 * (docs/messages.md, "SEPA rejects"): one email each, through the outbox, their ids derived from the
 * batch and the transaction, so the route's settlement, its retries and the settlement loop queue
 * them once. No fee is charged to the tenant for a reject (loi n° 89-462 art. 4 p).
 */

export interface RejectedDebit {
  tenant_id: string;
  collection_id: string;
  end_to_end_id: string;
  lease_id: string;
  reason_code: string;
}

export const rejectTenantMessageId = (collectionId: string, endToEndId: string) =>
  deterministicUuid("sepa-reject-tenant", collectionId, endToEndId);
export const rejectManagerMessageId = (collectionId: string, endToEndId: string) =>
  deterministicUuid("sepa-reject-manager", collectionId, endToEndId);

/** The ISO 20022 reasons a person reads, in French (EPC guidance on reason codes for R-transactions). */
const REASONS: Record<string, string> = {
  AC01: "coordonnées bancaires erronées",
  AC04: "compte clôturé",
  AC06: "compte bloqué",
  AG01: "prélèvement interdit sur ce compte",
  AM04: "provision insuffisante",
  MD01: "absence de mandat",
  MD06: "remboursement demandé par le titulaire du compte",
  MD07: "titulaire du compte décédé",
  MS02: "refus du titulaire du compte",
  MS03: "motif non communiqué par la banque",
  SL01: "service particulier de la banque du titulaire",
};
export const reasonInFrench = (code: string) => REASONS[code] ?? "motif communiqué par la banque";

export async function queueRejectNotices(deps: OutboxDeps & { sql: Sql }, debits: readonly RejectedDebit[]) {
  for (const d of debits) {
    const debit = await rejectedDebitFacts(deps.sql, d.tenant_id, d.collection_id, d.end_to_end_id);
    const facts = await readLetterFacts(deps.sql, d.tenant_id, d.lease_id);
    if (!debit || !facts) continue;
    const saved = (await findConfiguration(deps.sql, d.tenant_id))?.configuration;
    const from = saved ? { name: saved.sender.name, email: saved.sender.email } : null;
    const period =
      debit.period_start && debit.period_end
        ? `du ${longDate(debit.period_start)} au ${longDate(debit.period_end)}`
        : "";
    const due = debit.due_date ? ` (échéance du ${longDate(debit.due_date)})` : "";
    const amount = formatEuro(debit.amount);
    const reason = reasonInFrench(d.reason_code);
    const noFee = `Aucun frais ne vous est facturé pour ce rejet (${LOI_89}, art. 4 p).`;
    const related = { kind: "sepa_collection", id: d.collection_id };
    const subjects = facts.lessees.map((l) => lesseeStream(l.lessee_id));
    const to = facts.lessees
      .filter((l) => l.email)
      .map((l) => ({ email: l.email, name: [l.first_name, l.last_name].filter(Boolean).join(" ") || null }));
    if (to.length > 0)
      await queueMessage(deps, {
        tenant_id: d.tenant_id,
        message_id: rejectTenantMessageId(d.collection_id, d.end_to_end_id),
        to,
        from,
        subject: `Prélèvement de votre loyer non effectué : ${amount}`,
        text: `Madame, Monsieur,\n\nLe prélèvement SEPA de ${amount} pour le loyer de la période ${period}${due}${facts.estate.address ? `, logement ${facts.estate.address}` : ""}, n'a pas pu être effectué : ${reason}.\n\nCe loyer est donc de nouveau dû : merci de le régler, par exemple par virement.\n\n${noFee}\n\n${facts.landlord.name}\n`,
        topic: "sepa-reject",
        related,
        data_subjects: subjects,
      });
    const manager = saved?.sender.email;
    if (manager && manager !== DEFAULT_SENDER_EMAIL) {
      const tenants = facts.lessees
        .map((l) => [l.first_name, l.last_name].filter(Boolean).join(" "))
        .join(", ");
      await queueMessage(deps, {
        tenant_id: d.tenant_id,
        message_id: rejectManagerMessageId(d.collection_id, d.end_to_end_id),
        to: [{ email: manager, name: saved.sender.name }],
        from,
        subject: `Prélèvement rejeté : ${facts.estate.address || tenants}, ${amount}`,
        text: `Le prélèvement SEPA de ${amount} du loyer de la période ${period}${due} a été rejeté par la banque : ${reason} (code ${d.reason_code}).\n\nLocataire(s) : ${tenants}\nLogement : ${facts.estate.address}\n\nLe paiement est annulé et l'échéance est de nouveau due ; le locataire en est informé. Aucun frais ne peut lui être facturé pour ce rejet (${LOI_89}, art. 4 p) : les frais de votre banque restent à la charge du bailleur.\n`,
        topic: "sepa-reject",
        related,
        data_subjects: subjects,
      });
    }
  }
}
