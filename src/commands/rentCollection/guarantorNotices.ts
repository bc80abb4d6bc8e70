import { lesseeStream } from "../../events/lessees.ts";
import { ownerResource } from "../../events/owners.ts";
import type { CollectionState } from "../../events/rentCollection.ts";
import { guarantorNotice } from "../../law/arrears.ts";
import { ART_2303, guarantorDefaultVerdict } from "../../law/guarantor.ts";
import { toEuros } from "../../law/money.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import { formatEuro, longDate } from "../../platform/pdf/renderTemplate.ts";
import { type GuarantorContact, readGuarantors } from "../../queries/guarantors.ts";
import type { LetterFacts } from "../../queries/rentDocuments.ts";

/**
 * The guarantor's two notices (docs/messages.md, "The guarantor's notices"), queued by the
 * reminders' run:
 * - the first payment incident (code civil art. 2303): once per lease and guarantor, the first
 *   run at which a call is still unpaid a month after its due date; its id hash(lease, guarantor),
 *   so no later incident, run or restart sends a second one;
 * - the copy of the formal notice (the letter of a FORMAL_NOTICE level, the step before the
 *   commandement de payer) the same day the tenant's goes, within the 15 days of loi n° 89-462
 *   art. 24 I al. 3; its id hash(the tenant's letter, guarantor): once per letter.
 */

export const guarantorDefaultMessageId = (leaseId: string, guarantorId: string) =>
  deterministicUuid("guarantor-default", leaseId, guarantorId);
export const guarantorFormalNoticeMessageId = (letterId: string, guarantorId: string) =>
  deterministicUuid("guarantor-formal-notice", letterId, guarantorId);

interface Deps {
  sql: Sql;
  store: EventStore;
}

export interface GuarantorRun {
  tenant_id: string;
  facts: LetterFacts;
  state: CollectionState;
  today: string;
  from: { name: string; email: string } | null;
  correlation_id: string;
  /** The formal notices queued for the tenants in this run: their ids and emails. */
  formal_notices: { message_id: string; subject: string; text: string }[];
}

const tenantsOf = (facts: LetterFacts) =>
  facts.lessees.map((l) => `${l.first_name} ${l.last_name}`.trim()).join(", ") || "votre locataire";

/** The overdue calls of the lease today: each line and the total. */
function overdue(state: CollectionState, today: string) {
  const calls = state.account.calls
    .filter((c) => c.paid_cents < c.total_cents && c.due_date < today)
    .sort((a, b) => a.due_date.localeCompare(b.due_date));
  const lines = calls.map(
    (c) =>
      `- période du ${longDate(c.period_start)} au ${longDate(c.period_end)}, échéance du ${longDate(c.due_date)} : reste dû ${formatEuro(toEuros(c.total_cents - c.paid_cents))}`,
  );
  const total = toEuros(calls.reduce((sum, c) => sum + c.total_cents - c.paid_cents, 0));
  return { calls, lines, total };
}

async function send(
  deps: Deps,
  run: GuarantorRun,
  guarantor: GuarantorContact,
  message: { message_id: string; subject: string; text: string; topic: string },
) {
  const first = run.state.account.calls[0];
  return queueMessage(deps, {
    tenant_id: run.tenant_id,
    message_id: message.message_id,
    to: [{ email: guarantor.email, name: guarantor.name || null }],
    from: run.from,
    subject: message.subject,
    text: message.text,
    topic: message.topic,
    related: { kind: "lease", id: run.facts.lease_id },
    data_subjects: [
      lesseeStream(guarantor.lessee_id),
      ...run.facts.lessees.map((l) => lesseeStream(l.lessee_id)),
      ...(run.facts.owner_id ? [ownerResource.stream(run.facts.owner_id)] : []),
    ],
    causation_id: first?.call_id ?? null,
    correlation_id: run.correlation_id,
  });
}

/** The first-incident notice (art. 2303), when a call of the lease is one today. */
function defaultNotice(run: GuarantorRun) {
  const { calls, lines, total } = overdue(run.state, run.today);
  const incident = calls.find(
    (c) =>
      guarantorDefaultVerdict({
        due_date: c.due_date,
        remaining_amount: toEuros(c.total_cents - c.paid_cents),
        today: run.today,
      }).status === "PASS",
  );
  if (!incident) return null;
  return {
    subject: `Information de la caution : loyer impayé du logement ${run.facts.estate.address}`,
    text: `Madame, Monsieur,

Vous vous êtes porté(e) caution des obligations de ${tenantsOf(run.facts)}, locataire(s) du logement ${run.facts.estate.address} donné à bail par ${run.facts.landlord.name}.

Conformément à l'article 2303 du code civil, nous vous informons que l'échéance du ${longDate(incident.due_date)} (période du ${longDate(incident.period_start)} au ${longDate(incident.period_end)}) n'a pas été réglée dans le mois de son exigibilité : il en reste ${formatEuro(toEuros(incident.total_cents - incident.paid_cents))} à payer.

Au ${longDate(run.today)}, les sommes suivantes restent dues :

${lines.join("\n")}

Total dû : ${formatEuro(total)}, sans frais ni pénalité (loi n° 89-462 du 6 juillet 1989, art. 4 i et p).

${run.facts.landlord.name}
`,
  };
}

/** Queues the notices due to the lease's guarantors; how many were queued. */
export async function notifyGuarantors(deps: Deps, run: GuarantorRun): Promise<number> {
  const guarantors = await readGuarantors(deps.sql, run.tenant_id, run.facts.lease_id);
  if (guarantors.length === 0) return 0;
  let queued = 0;
  const notice = defaultNotice(run);
  const delay = guarantorNotice({ today: run.today, guarantor_count: guarantors.length });
  for (const guarantor of guarantors) {
    if (notice) {
      const id = guarantorDefaultMessageId(run.facts.lease_id, guarantor.lessee_id);
      const r = await send(deps, run, guarantor, { message_id: id, ...notice, topic: "guarantor-default" });
      if (r.queued) queued++;
    }
    for (const letter of run.formal_notices) {
      const r = await send(deps, run, guarantor, {
        message_id: guarantorFormalNoticeMessageId(letter.message_id, guarantor.lessee_id),
        subject: `Copie à la caution : ${letter.subject}`,
        text: `Madame, Monsieur,

En votre qualité de caution de ${tenantsOf(run.facts)} pour le logement ${run.facts.estate.address}, vous trouverez ci-dessous copie de la mise en demeure de payer qui leur est adressée ce jour, le ${longDate(run.today)}. Le commandement de payer qui pourrait la suivre vous sera signifié dans les quinze jours de sa signification au locataire, au plus tard le ${longDate(delay.notify_by)} s'il l'était aujourd'hui (loi n° 89-462 du 6 juillet 1989, art. 24 I ; ${ART_2303}).

----

${letter.text}`,
        topic: "guarantor-formal-notice",
      });
      if (r.queued) queued++;
    }
  }
  return queued;
}
