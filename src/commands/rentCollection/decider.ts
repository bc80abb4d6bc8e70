import {
  type CollectionState,
  emptyCollection,
  evolveCollection,
  type ReceiptIssuedData,
  type RentReminderSentData,
  reminderMessageId,
} from "../../events/rentCollection.ts";
import type { AccountCall, AccountEvent } from "../../events/rentCycle.ts";
import { toEuros } from "../../law/money.ts";
import { receiptVerdict } from "../../law/receipts.ts";
import { claimVerdict, type ReminderLevel, reminderVerdict } from "../../law/reminders.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, enforce, notFound } from "../../platform/errors.ts";

/**
 * Receipts and reminders of a lease's account (docs/rent-cycle.md): decided on the account stream
 * as folded by `evolveCollection`, so a quittance or a reminder is judged on the revision that
 * says what was paid. Nothing here moves money.
 */

export type CollectionCommand =
  | {
      type: "IssueQuittance";
      lease_id: string;
      call_id: string;
      /** The number taken from the tenant's counter for this issue (receipts.ts). */
      number: { number: string; year: number; sequence: number };
      issued_on: string;
    }
  | {
      type: "RecordRentReminder";
      lease_id: string;
      call_id: string;
      today: string;
      now: string;
      levels: readonly ReminderLevel[];
    };

export const findCall = (state: CollectionState, callId: string): AccountCall => {
  const call = state.account.calls.find((c) => c.call_id === callId.toLowerCase());
  if (!call) throw notFound("Rent call", callId);
  return call;
};

export const callFigures = (call: AccountCall) => ({
  call_id: call.call_id,
  period_start: call.period_start,
  period_end: call.period_end,
  due_date: call.due_date,
  rent_amount: toEuros(call.rent_cents),
  charges_amount: toEuros(call.charges_cents),
  total_amount: toEuros(call.total_cents),
  paid_amount: toEuros(Math.min(call.paid_cents, call.total_cents)),
});

export const receiptOf = (state: CollectionState, callId: string): ReceiptIssuedData | null =>
  state.receipts.find((r) => r.call_id === callId.toLowerCase()) ?? null;

/** The reminders of a call recorded so far (whatever its payments did since). */
export const remindersOf = (state: CollectionState, callId: string): RentReminderSentData[] =>
  state.reminders.filter((r) => r.call_id === callId.toLowerCase());

function issueQuittance(
  cmd: Extract<CollectionCommand, { type: "IssueQuittance" }>,
  state: CollectionState,
): AccountEvent[] {
  const call = findCall(state, cmd.call_id);
  // Numbered once: a call that has its quittance keeps it (and its number) for good.
  if (receiptOf(state, call.call_id)) return [];
  const figures = callFigures(call);
  const verdict = receiptVerdict(figures);
  if (verdict.details.kind !== "QUITTANCE") throw conflict(verdict.message, verdict.details.errors);
  return [
    {
      type: "ReceiptIssued",
      data: {
        lease_id: cmd.lease_id,
        call_id: call.call_id,
        kind: "QUITTANCE",
        ...cmd.number,
        issued_on: cmd.issued_on,
        period_start: call.period_start,
        period_end: call.period_end,
        rent_amount: figures.rent_amount,
        charges_amount: figures.charges_amount,
        total_amount: figures.total_amount,
        paid_amount: figures.paid_amount,
      },
    },
  ];
}

function recordReminder(
  cmd: Extract<CollectionCommand, { type: "RecordRentReminder" }>,
  state: CollectionState,
): AccountEvent[] {
  const call = findCall(state, cmd.call_id);
  const remaining = toEuros(Math.max(0, call.total_cents - call.paid_cents));
  const verdict = reminderVerdict({
    due_date: call.due_date,
    remaining_amount: remaining,
    today: cmd.today,
    now: cmd.now,
    levels: cmd.levels,
    sent: remindersOf(state, call.call_id),
  });
  // Not due (paid, too early, sent, under 24 h): nothing to record; the job reports why.
  if (verdict.status !== "PASS") return [];
  const d = verdict.details as { level: number; kind: RentReminderSentData["kind"]; days_late: number };
  const amount_claimed = remaining;
  enforce(claimVerdict(amount_claimed, remaining));
  return [
    {
      type: "RentReminderSent",
      data: {
        lease_id: cmd.lease_id,
        call_id: call.call_id,
        level: d.level,
        kind: d.kind,
        due_date: call.due_date,
        days_late: d.days_late,
        amount_claimed,
        sent_at: cmd.now,
        message_id: reminderMessageId(call.call_id, d.level),
      },
    },
  ];
}

export const collectionDecider: Decider<CollectionState, CollectionCommand, AccountEvent> = {
  initialState: emptyCollection,
  evolve: evolveCollection,
  decide(command, state) {
    switch (command.type) {
      case "IssueQuittance":
        return issueQuittance(command, state);
      case "RecordRentReminder":
        return recordReminder(command, state);
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  },
};
