import { randomUUID } from "node:crypto";
import { lesseeStream } from "../../events/lessees.ts";
import { ownerResource } from "../../events/owners.ts";
import type { CollectionState, RentReminderSentData } from "../../events/rentCollection.ts";
import { leaseAccountStream } from "../../events/rentCycle.ts";
import { DEFAULT_SENDER_EMAIL } from "../../events/settings.ts";
import { legalToday } from "../../law/calendar.ts";
import type { ReminderKind } from "../../law/reminders.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
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
import { callFigures, collectionDecider, remindersOf } from "./decider.ts";

/**
 * The `rent-reminders` job (docs/rent-cycle.md, "Reminders"): for every lease with a call unpaid
 * past its due date, the next reminder level due is recorded (`RentReminderSent` on the account
 * stream, decided at the revision read: at most once per call and level, never once paid, 24 h
 * apart) and its email queued in the outbox under the id hash(call, level).
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

async function queueReminder(
  deps: { sql: Sql; store: EventStore },
  tenantId: string,
  facts: LetterFacts,
  settings: TenantSettings,
  state: CollectionState,
  reminder: RentReminderSentData,
  correlation_id: string,
) {
  const email = await reminderEmail(deps.sql, facts, settings, state, reminder, tenantId);
  return queueMessage(deps, {
    tenant_id: tenantId,
    message_id: reminder.message_id,
    to: facts.lessees.map((l) => ({ email: l.email, name: `${l.first_name} ${l.last_name}`.trim() || null })),
    // The built-in sender address is no deliverable one: the outbox's default sender then.
    from: settings.sender.email === DEFAULT_SENDER_EMAIL ? null : settings.sender,
    ...email,
    topic: "rent-reminder",
    related: { kind: "rent_call", id: reminder.call_id },
    data_subjects: [
      ...facts.lessees.map((l) => lesseeStream(l.lessee_id)),
      ...(facts.owner_id ? [ownerResource.stream(facts.owner_id)] : []),
    ],
    correlation_id,
  });
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
  if (!facts || settings.levels.length === 0) return;
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
  const queue = (state: CollectionState, r: RentReminderSentData) =>
    queueReminder(deps, tenant_id, facts, settings, state, r, rc.correlation_id);
  const stream = leaseAccountStream(lease_id);
  let { state } = await loadStream(deps.store, stream, tenant_id, collectionDecider);
  for (const call of state.account.calls) {
    if (call.paid_cents >= call.total_cents || call.due_date >= run.today) continue;
    const line = { tenant_id, lease_id, call_id: call.call_id };
    // Reminders recorded lately whose message a cut-off run may not have queued.
    if (!rc.dry_run)
      for (const r of remindersOf(state, call.call_id))
        if (
          Date.parse(r.sent_at) >= now.getTime() - REQUEUE_HOURS * 3_600_000 &&
          (await queue(state, r)).queued
        )
          run.requeued++;
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
      await queue(state, event.data);
      run.sent.push({ ...line, ...pickLine(event.data) });
    }
  }
}

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
