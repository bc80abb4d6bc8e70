import type { ReminderKind } from "../law/reminders.ts";
import { allEventTypes } from "../platform/decider.ts";
import { deterministicUuid } from "../platform/ids.ts";
import { type AccountEvent, emptyAccount, evolveAccount, type LeaseAccount } from "./rentCycle.ts";

/**
 * Receipts and reminders of a lease's account (docs/rent-cycle.md, "Receipts", "Reminders"): their
 * events live on the account stream `lease_account-<lease>` (src/events/rentCycle.ts) beside the
 * calls and payments they are about, so a reminder is decided on the very revision that says the
 * call is unpaid. They move no money: `evolveAccount` passes them by; `evolveCollection` keeps them.
 *
 * Quittance numbers come from a counter per (tenant, year): stream `receipt_counter-<uuid of tenant
 * and year>`, one `ReceiptNumberTaken` per number, appended at the revision read, so two concurrent
 * issues can never take the same number (docs/decisions.md, "Receipt numbers").
 */

export interface ReceiptIssuedData {
  lease_id: string;
  call_id: string;
  /** Only quittances are numbered and recorded; a reçu is a dated statement (docs/decisions.md). */
  kind: "QUITTANCE";
  number: string;
  year: number;
  sequence: number;
  issued_on: string;
  period_start: string;
  period_end: string;
  rent_amount: number;
  charges_amount: number;
  total_amount: number;
  paid_amount: number;
}

export interface RentReminderSentData {
  lease_id: string;
  call_id: string;
  level: number;
  kind: ReminderKind;
  due_date: string;
  days_late: number;
  /** What the letter claims: the call's remaining amount, nothing added (loi n° 89-462 art. 4 i, p). */
  amount_claimed: number;
  sent_at: string;
  /** The outbox message (deterministic: hash of call and level). */
  message_id: string;
}

export type CollectionEvent =
  | { type: "ReceiptIssued"; data: ReceiptIssuedData }
  | { type: "RentReminderSent"; data: RentReminderSentData };

export const collectionEventTypes = allEventTypes<CollectionEvent["type"]>()([
  "ReceiptIssued",
  "RentReminderSent",
]);

/** The outbox id of a call's reminder of a level: the same on every retry and every run. */
export const reminderMessageId = (callId: string, level: number): string =>
  deterministicUuid("rent_reminder", callId.toLowerCase(), String(level));

/** The id of a call's `ReceiptIssued` (and of its number's event): a retried append writes nothing. */
export const receiptEventId = (callId: string): string =>
  deterministicUuid("ReceiptIssued", callId.toLowerCase());

// ---------------------------------------------------------------- receipt numbers

export interface ReceiptNumberTakenData {
  year: number;
  sequence: number;
  number: string;
  lease_id: string;
  call_id: string;
}

export type ReceiptCounterEvent = { type: "ReceiptNumberTaken"; data: ReceiptNumberTakenData };

export const receiptCounterStream = (tenantId: string, year: number): string =>
  `receipt_counter-${deterministicUuid("receipt_counter", tenantId.toLowerCase(), String(year))}`;

/** `Q-2026-000001`: the tenant's prefix, the year, the sequence on six digits. */
export const receiptNumber = (prefix: string, year: number, sequence: number): string =>
  `${prefix}-${year}-${String(sequence).padStart(6, "0")}`;

// ---------------------------------------------------------------- fold

export interface CollectionState {
  account: LeaseAccount;
  receipts: ReceiptIssuedData[];
  reminders: RentReminderSentData[];
}

export const emptyCollection = (): CollectionState => ({
  account: emptyAccount(),
  receipts: [],
  reminders: [],
});

/** The account (every event through `evolveAccount`) plus the receipts and reminders it holds. */
export function evolveCollection(state: CollectionState, event: AccountEvent): CollectionState {
  const account = evolveAccount(state.account, event);
  switch (event.type) {
    case "ReceiptIssued":
      return { ...state, account, receipts: [...state.receipts, event.data] };
    case "RentReminderSent":
      return { ...state, account, reminders: [...state.reminders, event.data] };
    default:
      return { ...state, account };
  }
}
