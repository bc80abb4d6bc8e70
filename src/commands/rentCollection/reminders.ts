import { randomUUID } from "node:crypto";
import { lesseeStream } from "../../events/lessees.ts";
import { ownerResource } from "../../events/owners.ts";
import type { CollectionState, RentReminderSentData } from "../../events/rentCollection.ts";
import { leaseAccountStream } from "../../events/rentCycle.ts";
import { DEFAULT_SENDER_EMAIL } from "../../events/settings.ts";
import { legalToday } from "../../law/calendar.ts";
import { cents, toEuros } from "../../law/money.ts";
import type { ReminderKind } from "../../law/reminders.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import { formatEuro, longDate } from "../../platform/pdf/renderTemplate.ts";
import { type CommandContext, loadStream, runCommand } from "../../platform/runCommand.ts";
import {
  callView,
  type DocumentCode,
  documentMarkup,
  documentView,
  type LetterFacts,
  letterEmail,
  readLetterFacts,
} from "../../queries/rentDocuments.ts";
import { readConfiguration, readTemplate } from "../../queries/settings.ts";
import { callFigures, collectionDecider } from "./decider.ts";
import { type GuarantorRun, notifyGuarantors } from "./guarantorNotices.ts";

/**
 * The `rent-reminders` job (docs/rent-cycle.md, "Reminders"): for every lease with a call unpaid
 * past its due date, the next reminder level due is recorded (`RentReminderSent` on the account
 * stream, decided at the revision read: at most once per call and level, never once paid, 24 h
 * apart); then one letter per lease, level and day lists every call reminded so, queued in the
 * outbox under its oldest reminder's id hash(call, level).
 *
 * The event is written first, then the message: a run cut off in between leaves a reminder without
 * its message, which the next run queues again (same id: a no-op when it was queued) for the
 * reminders of the last 48 hours whose call is still unpaid. With `dry_run` it lists what it would
 * send and writes nothing.
 */

export const RENT_REMINDERS_QUEUE = "rent-reminders";
const REQUEUE_HOURS = 48;

/** The letter of each level's kind (the template codes of settings). */
const TEMPLATE_OF: Record<ReminderKind, DocumentCode> = {
  REMINDER: "reminder",
  SECOND_REMINDER: "second-reminder",
  FORMAL_NOTICE: "formal-notice",
};

export interface ReminderLine {
  tenant_id: string;
  lease_id: string;
  call_id: string;
  level: number;
  kind: string;
  days_late: number;
  amount_claimed: number;
  message_id: string;
}

export interface ReminderRun {
  dry_run: boolean;
  today: string;
  sent: ReminderLine[];
  /** Calls with a level due that could not be reminded (no lessee email). */
  skipped: { tenant_id: string; lease_id: string; call_id: string; reason: string }[];
  /** Leases whose run failed (e.g. the tenant's template cannot render): the others went on. */
  failed: { tenant_id: string; lease_id: string; error: string }[];
  requeued: number;
}

/** Leases with a call unpaid after its due date, as the rent calls' read model says (the stream decides). */
async function leasesToRemind(sql: Sql, today: string, tenantId: string | null) {
  return sql.query<{ tenant_id: string; lease_id: string }>(
    `SELECT DISTINCT tenant_id, lease_id FROM rent_calls
     WHERE status <> 'PAID' AND due_date < $1::date AND ($2::uuid IS NULL OR tenant_id = $2)
     ORDER BY tenant_id, lease_id`,
    [today, tenantId],
  );
}

interface TenantSettings {
  levels: Awaited<ReturnType<typeof readConfiguration>>["reminder_levels"];
  sender: { name: string; email: string };
}

/** The reminder's email from the tenant's template of its kind (else the built-in one). */
async function reminderEmail(
  sql: Sql,
  facts: LetterFacts,
  settings: TenantSettings,
  state: CollectionState,
  reminder: RentReminderSentData,
  tenantId: string,
) {
  const call = state.account.calls.find((c) => c.call_id === reminder.call_id);
  if (!call) throw new Error(`Call ${reminder.call_id} is not on lease ${reminder.lease_id}`);
  const code = TEMPLATE_OF[reminder.kind];
  const view = documentView(facts, {
    call: { ...callView(callFigures(call)), remaining_amount: reminder.amount_claimed },
    reminder: { level: reminder.level, kind: reminder.kind, days_late: reminder.days_late },
    sender: settings.sender,
  });
  return letterEmail(documentMarkup(code, await readTemplate(sql, tenantId, code), view));
}

const KIND_TITLE: Record<ReminderKind, string> = {
  REMINDER: "Rappel",
  SECOND_REMINDER: "Second rappel",
  FORMAL_NOTICE: "Mise en demeure de payer",
};
const KIND_CLOSING: Record<ReminderKind, string> = {
  REMINDER: "Si votre paiement est en cours, merci de ne pas tenir compte de ce rappel.",
  SECOND_REMINDER:
    "Nous vous remercions de régulariser ces paiements ou de nous contacter si vous rencontrez une difficulté.",
  FORMAL_NOTICE:
    "Nous vous mettons en demeure de régler ces sommes. À défaut, le bailleur pourra faire délivrer par un commissaire de justice un commandement de payer visant la clause résolutoire du bail (loi n° 89-462 du 6 juillet 1989, art. 24). Vous pouvez solliciter le fonds de solidarité pour le logement de votre département.",
};

/** The letter of several calls reminded at one level: every period, what remains due, the total. */
function severalCallsEmail(facts: LetterFacts, reminders: RentReminderSentData[], state: CollectionState) {
  const kind = reminders[0].kind;
  const lines = reminders.map((r) => {
    const call = state.account.calls.find((c) => c.call_id === r.call_id);
    const period = call ? `période du ${longDate(call.period_start)} au ${longDate(call.period_end)}, ` : "";
    return `- ${period}échéance du ${longDate(r.due_date)} : reste dû ${formatEuro(r.amount_claimed)}`;
  });
  const total = toEuros(reminders.reduce((sum, r) => sum + cents(r.amount_claimed), 0));
  return {
    subject: `${KIND_TITLE[kind]} : ${reminders.length} échéances de loyer impayées`,
    text: `Madame, Monsieur,

Sauf erreur de notre part, les échéances suivantes du logement ${facts.estate.address} ne sont pas entièrement réglées :

${lines.join("\n")}

Total dû : ${formatEuro(total)}.

${KIND_CLOSING[kind]} Cette lettre est sans frais et n'ajoute aucune pénalité à la somme due (loi n° 89-462 du 6 juillet 1989, art. 4 i et p).

${facts.landlord.name}
`,
  };
}

/** One letter for the reminders of one lease, level and day (the template's when there is one call). */
async function queueReminder(
  deps: { sql: Sql; store: EventStore },
  tenantId: string,
  facts: LetterFacts,
  settings: TenantSettings,
  state: CollectionState,
  letter: { message_id: string; reminders: RentReminderSentData[] },
  correlation_id: string,
) {
  const [first] = letter.reminders;
  const email =
    letter.reminders.length === 1
      ? await reminderEmail(deps.sql, facts, settings, state, first, tenantId)
      : severalCallsEmail(facts, letter.reminders, state);
  const outcome = await queueMessage(deps, {
    tenant_id: tenantId,
    message_id: letter.message_id,
    to: facts.lessees.map((l) => ({ email: l.email, name: `${l.first_name} ${l.last_name}`.trim() || null })),
    // The built-in sender address is no deliverable one: the outbox's default sender then.
    from: settings.sender.email === DEFAULT_SENDER_EMAIL ? null : settings.sender,
    ...email,
    topic: "rent-reminder",
    related: { kind: "rent_call", id: first.call_id },
    data_subjects: [
      ...facts.lessees.map((l) => lesseeStream(l.lessee_id)),
      ...(facts.owner_id ? [ownerResource.stream(facts.owner_id)] : []),
    ],
    correlation_id,
  });
  return { ...outcome, email };
}

interface RunContext {
  deps: { sql: Sql; store: EventStore };
  run: ReminderRun;
  now: Date;
  correlation_id: string;
  dry_run: boolean;
}

/** The reminders of one lease's unpaid calls (see the module comment). */
async function remindLease(rc: RunContext, tenant_id: string, lease_id: string, settings: TenantSettings) {
  const { deps, run, now } = rc;
  const facts = await readLetterFacts(deps.sql, tenant_id, lease_id);
  if (!facts) return;
  const at = now.toISOString();
  const context: CommandContext = {
    store: deps.store,
    tenant_id,
    metadata: {
      tenant_id,
      actor_key_id: null,
      correlation_id: rc.correlation_id,
      causation_id: null,
      occurred_at: at,
    },
  };
  const stream = leaseAccountStream(lease_id);
  let { state } = await loadStream(deps.store, stream, tenant_id, collectionDecider);
  const recent = now.getTime() - REQUEUE_HOURS * 3_600_000;
  // Reminders recorded lately whose letter a cut-off run may not have queued: queued again below.
  const letters = new Set<string>(
    state.reminders
      .filter((r) => Date.parse(r.sent_at) >= recent && !isPaid(state, r.call_id))
      .map((r) => letterKey(r)),
  );
  const requeue = new Set(letters);
  for (const call of settings.levels.length > 0 ? state.account.calls : []) {
    if (call.paid_cents >= call.total_cents || call.due_date >= run.today) continue;
    const line = { tenant_id, lease_id, call_id: call.call_id };
    const command = {
      type: "RecordRentReminder" as const,
      lease_id,
      call_id: call.call_id,
      today: run.today,
      now: at,
      levels: settings.levels,
    };
    const would = collectionDecider.decide(command, state);
    if (would.length === 0) continue;
    if (facts.lessees.length === 0) {
      run.skipped.push({ ...line, reason: "The lease has no lessee with an email to send the reminder to" });
      continue;
    }
    if (rc.dry_run) {
      run.sent.push({ ...line, ...pickLine(would[0].data as RentReminderSentData) });
      continue;
    }
    const result = await runCommand(context, stream, collectionDecider, command);
    state = result.state;
    for (const event of result.events) {
      if (event.type !== "RentReminderSent") continue;
      letters.add(letterKey(event.data));
      requeue.delete(letterKey(event.data));
      run.sent.push({ ...line, ...pickLine(event.data) });
    }
  }
  if (rc.dry_run) return;
  const formal_notices: GuarantorRun["formal_notices"] = [];
  // One letter per lease, level and day, listing every call reminded at that level that day.
  for (const key of letters) {
    // The letter's id is its oldest reminder's, whatever was paid since: a requeue finds it again.
    const all = state.reminders
      .filter((r) => letterKey(r) === key)
      .sort((a, b) => a.due_date.localeCompare(b.due_date) || a.call_id.localeCompare(b.call_id));
    const unpaid = all.filter((r) => !isPaid(state, r.call_id));
    if (unpaid.length === 0) continue;
    const letter = { message_id: all[0].message_id, reminders: unpaid };
    const { queued, email } = await queueReminder(
      deps,
      tenant_id,
      facts,
      settings,
      state,
      letter,
      rc.correlation_id,
    );
    if (queued && requeue.has(key)) run.requeued++;
    if (unpaid[0].kind === "FORMAL_NOTICE") formal_notices.push({ message_id: letter.message_id, ...email });
  }
  // The guarantors: the first incident (code civil art. 2303), a copy of each formal notice (art. 24 I).
  await notifyGuarantors(deps, {
    tenant_id,
    facts,
    state,
    today: run.today,
    from: settings.sender.email === DEFAULT_SENDER_EMAIL ? null : settings.sender,
    correlation_id: rc.correlation_id,
    formal_notices,
  });
}

/** A reminder's letter: its lease, level and the legal day it was sent. */
const letterKey = (r: RentReminderSentData) => `${r.level}/${legalToday(new Date(r.sent_at))}`;
const isPaid = (state: CollectionState, callId: string) => {
  const call = state.account.calls.find((c) => c.call_id === callId);
  return !call || call.paid_cents >= call.total_cents;
};

/**
 * One run. `tenant_id`: only that tenant's leases (a worker key's run), null: every tenant's (the
 * schedule). `now` is the run's instant (tests give it). A lease that fails (a tenant template that
 * cannot render) is reported in `failed`; the others go on.
 */
export async function sendRentReminders(
  deps: { sql: Sql; store: EventStore },
  options: { dry_run: boolean; tenant_id: string | null; now?: Date },
): Promise<ReminderRun> {
  const now = options.now ?? new Date();
  const today = legalToday(now);
  const run: ReminderRun = {
    dry_run: options.dry_run,
    today,
    sent: [],
    skipped: [],
    failed: [],
    requeued: 0,
  };
  const rc: RunContext = {
    deps,
    run,
    now,
    correlation_id: `rent-reminders-${randomUUID()}`,
    dry_run: options.dry_run,
  };
  const settingsOf = new Map<string, TenantSettings>();
  for (const { tenant_id, lease_id } of await leasesToRemind(deps.sql, today, options.tenant_id)) {
    let settings = settingsOf.get(tenant_id);
    if (!settings) {
      const c = await readConfiguration(deps.sql, tenant_id);
      settings = { levels: c.reminder_levels, sender: { name: c.sender.name, email: c.sender.email } };
      settingsOf.set(tenant_id, settings);
    }
    try {
      await remindLease(rc, tenant_id, lease_id, settings);
    } catch (error) {
      run.failed.push({ tenant_id, lease_id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return run;
}

const pickLine = (r: RentReminderSentData) => ({
  level: r.level,
  kind: r.kind,
  days_late: r.days_late,
  amount_claimed: r.amount_claimed,
  message_id: r.message_id,
});
