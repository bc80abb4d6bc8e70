import { cents, toEuros } from "../law/money.ts";
import type { PeriodFigures } from "../law/rentPeriods.ts";
import { allEventTypes } from "../platform/decider.ts";
import { deterministicUuid } from "../platform/ids.ts";
import { creditorReferenceFor } from "../platform/sepaIdentifiers.ts";
import { PAYMENT_METHODS } from "./leases.ts";
import type { CollectionEvent } from "./rentCollection.ts";

/**
 * The rent cycle's account of a lease (docs/design.md §7.1, docs/rent-cycle.md): stream
 * `lease_account-<lease uuid>`, one per lease, holding its rent calls and payments. The fold
 * `evolveAccount` is the one account every reader shares (rent calls, receipts, reminders, arrears).
 *
 * Amounts in events are euros with two decimals (JSON numbers, as every other event); the fold counts
 * in whole cents (src/law/money.ts) so replaying gives the same balances to the cent.
 *
 * Decisions (docs/decisions.md, "Rent cycle"):
 * - A payment's allocations are decided when it is recorded (oldest open call first, by period) and
 *   stored in the event: a backdated payment (`paid_on` in the past) is allocated to the calls open
 *   at recording time, oldest first; it never reshuffles the allocations of payments recorded before.
 * - What a payment leaves unallocated is credit. A new call eats the credit when it is issued: the
 *   fold applies credit (oldest payment first) to open calls after every event, so the allocation
 *   is derived, identical on every replay, and kept per payment (a cancellation reverses it).
 * - A cancellation is a reversing entry: the payment stays with `cancelled`, its allocations are
 *   removed from the calls they paid (`reversed_allocations`), then remaining credit settles again.
 * - OVERDUE is never stored: a call is overdue on a day when part of it is unpaid after its due date
 *   (`callStatusOn`).
 *
 * Room in the union: `ReceiptIssued` and `RentReminderSent` (the receipts and reminders work) join
 * `AccountEvent` on this same stream; `evolveAccount`'s switch then gains their cases.
 */

export const leaseAccountStream = (leaseId: string) => `lease_account-${leaseId.toLowerCase()}`;

export { PAYMENT_METHODS };
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const STORED_CALL_STATUSES = ["OPEN", "PARTIALLY_PAID", "PAID"] as const;
export const CALL_STATUSES = [...STORED_CALL_STATUSES, "OVERDUE"] as const;
export type StoredCallStatus = (typeof STORED_CALL_STATUSES)[number];
export type CallStatus = (typeof CALL_STATUSES)[number];

/** The one id of the call of a lease's period: a retried or concurrent issue names the same call. */
export const rentCallId = (leaseId: string, periodStart: string): string =>
  deterministicUuid("rent_call", leaseId.toLowerCase(), periodStart);

/**
 * The ISO 11649 creditor reference ("RF…") of a call, what the avis d'échéance asks the tenant to
 * quote on a transfer: derived from the call's id, so unique to it and the same on every replay.
 */
export const paymentReferenceOf = (callId: string): string => creditorReferenceFor(callId);

export interface Allocation {
  call_id: string;
  amount: number;
}

/** Days of the period the call covers, out of the full period's days (first and last period). */
export interface Proration {
  days: number;
  of_days: number;
}

export interface RentCallIssuedData extends PeriodFigures {
  call_id: string;
  lease_id: string;
  prorated: Proration | null;
}

export interface PaymentRecordedData {
  payment_id: string;
  lease_id: string;
  amount: number;
  paid_on: string;
  method: PaymentMethod;
  reference: string | null;
  payer_lessee_id: string | null;
  /** Oldest open call first, as decided when recorded. */
  allocations: Allocation[];
  /** What the payment left unallocated (amount minus allocations). */
  credit: number;
  /** Where it came from when not typed in: the bank line it was matched from (docs/bank.md). */
  source?: PaymentSource | null;
}

/** A payment recorded from a bank statement's line, or debited by a SEPA collection (src/events/bank). */
export interface PaymentSource {
  bank_account_id: string;
  /** The statement line it was matched from (null for a direct debit). */
  bank_line_id: string | null;
  /** The SEPA collection batch that debited it, and the transaction's end-to-end id. */
  sepa_collection_id?: string;
  end_to_end_id?: string;
}

export interface PaymentCancelledData {
  payment_id: string;
  lease_id: string;
  reason: string;
  /** Every allocation of the payment at cancellation, its credit consumption by later calls included. */
  reversed_allocations: Allocation[];
  /** The payment's unconsumed credit at cancellation, withdrawn from the account. */
  reversed_credit: number;
}

/**
 * What the tenant already owed when the landlord took the lease over (its `takeover_date` and
 * `opening_balance`, docs/rent-cycle.md): a debt before the first call, paid first.
 */
export interface OpeningBalanceRecordedData {
  /** The id payments allocate to, as to a call (openingBalanceId). */
  call_id: string;
  lease_id: string;
  amount: number;
  /** The takeover date. */
  on: string;
}

export const openingBalanceId = (leaseId: string): string =>
  deterministicUuid("opening_balance", leaseId.toLowerCase());

/** The one opening balance event of a lease taken over: the decider's and the bulk issue's. */
export const openingBalanceRecorded = (
  leaseId: string,
  opening: { amount: number; on: string },
): { type: "OpeningBalanceRecorded"; data: OpeningBalanceRecordedData } => ({
  type: "OpeningBalanceRecorded",
  data: { call_id: openingBalanceId(leaseId), lease_id: leaseId, amount: opening.amount, on: opening.on },
});

export type AccountEvent =
  | { type: "OpeningBalanceRecorded"; data: OpeningBalanceRecordedData }
  | { type: "RentCallIssued"; data: RentCallIssuedData }
  | { type: "PaymentRecorded"; data: PaymentRecordedData }
  | { type: "PaymentCancelled"; data: PaymentCancelledData }
  // Receipts and reminders (src/events/rentCollection.ts): on this stream, moving no money.
  | CollectionEvent;

/** The types that move money: every type of the account stream but the receipts' and reminders'. */
export const accountEventTypes = allEventTypes<Exclude<AccountEvent["type"], CollectionEvent["type"]>>()([
  "OpeningBalanceRecorded",
  "RentCallIssued",
  "PaymentRecorded",
  "PaymentCancelled",
]);

/** A call as the account folds it, in cents. */
export interface AccountCall {
  call_id: string;
  period_start: string;
  period_end: string;
  due_date: string;
  rent_cents: number;
  charges_cents: number;
  total_cents: number;
  paid_cents: number;
  prorated: Proration | null;
}

export interface AccountPayment {
  payment_id: string;
  amount_cents: number;
  paid_on: string;
  method: PaymentMethod;
  reference: string | null;
  payer_lessee_id: string | null;
  /** Current allocations in cents (recorded ones plus credit consumed by later calls). */
  allocations: { call_id: string; amount_cents: number }[];
  /** Unallocated part still held as credit (0 once cancelled). */
  credit_cents: number;
  cancelled: { reason: string } | null;
  source?: PaymentSource | null;
}

/** The opening balance as the account folds it: owed from the takeover date, paid first. */
export interface AccountOpening {
  call_id: string;
  on: string;
  total_cents: number;
  paid_cents: number;
}

export interface LeaseAccount {
  /** Calls by period start (the oldest first). */
  calls: AccountCall[];
  /** The opening balance of a lease taken over; absent or null: none. */
  opening?: AccountOpening | null;
  /** Payments in recording order. */
  payments: AccountPayment[];
  credit_cents: number;
  /** Calls minus payments not cancelled: positive the tenant owes, negative a credit. */
  balance_cents: number;
}

export const emptyAccount = (): LeaseAccount => ({
  calls: [],
  payments: [],
  credit_cents: 0,
  balance_cents: 0,
});

/** The stored status of a call (OPEN, PARTIALLY_PAID, PAID). */
export const storedCallStatus = (call: Pick<AccountCall, "paid_cents" | "total_cents">): StoredCallStatus =>
  call.paid_cents >= call.total_cents ? "PAID" : call.paid_cents > 0 ? "PARTIALLY_PAID" : "OPEN";

/** The status on `today`: OVERDUE when part of it is unpaid after its due date (derived, never stored). */
export function callStatusOn(
  call: Pick<AccountCall, "paid_cents" | "total_cents" | "due_date">,
  today: string,
): CallStatus {
  const stored = storedCallStatus(call);
  return stored !== "PAID" && call.due_date < today ? "OVERDUE" : stored;
}

/** Open parts of the calls, oldest period first: what a payment of `amountCents` would pay. */
export function allocate(
  calls: readonly AccountCall[],
  amountCents: number,
): { call_id: string; amount_cents: number }[] {
  const out: { call_id: string; amount_cents: number }[] = [];
  let left = amountCents;
  for (const call of calls) {
    if (left <= 0) break;
    const open = call.total_cents - call.paid_cents;
    if (open <= 0) continue;
    const part = Math.min(open, left);
    out.push({ call_id: call.call_id, amount_cents: part });
    left -= part;
  }
  return out;
}

/** The opening balance as a call (due on the takeover date), for allocating and for arrears. */
export const openingAsCall = (o: AccountOpening): AccountCall => ({
  call_id: o.call_id,
  period_start: o.on,
  period_end: o.on,
  due_date: o.on,
  rent_cents: o.total_cents,
  charges_cents: 0,
  total_cents: o.total_cents,
  paid_cents: o.paid_cents,
  prorated: null,
});

/** What a payment pays, in order: the opening balance first, then the calls oldest first. */
export const payableOf = (account: LeaseAccount): AccountCall[] =>
  account.opening ? [openingAsCall(account.opening), ...account.calls] : account.calls;

/** Allocations added to (or taken off) the calls and the opening balance. */
function addToAccount(
  account: LeaseAccount,
  parts: readonly { call_id: string; amount_cents: number }[],
  sign: 1 | -1,
): Pick<LeaseAccount, "calls" | "opening"> {
  const calls = addToCalls(account.calls, parts, sign);
  const o = account.opening ?? null;
  if (!o) return { calls, opening: o };
  const mine = parts.filter((p) => p.call_id === o.call_id).reduce((s, p) => s + p.amount_cents, 0);
  return { calls, opening: mine === 0 ? o : { ...o, paid_cents: o.paid_cents + sign * mine } };
}

const byPeriod = (a: AccountCall, b: AccountCall) =>
  a.period_start < b.period_start ? -1 : a.period_start > b.period_start ? 1 : 0;

function addToCalls(
  calls: AccountCall[],
  parts: readonly { call_id: string; amount_cents: number }[],
  sign: 1 | -1,
) {
  const byId = new Map(parts.map((p) => [p.call_id, p.amount_cents]));
  return calls.map((c) =>
    byId.has(c.call_id) ? { ...c, paid_cents: c.paid_cents + sign * (byId.get(c.call_id) ?? 0) } : c,
  );
}

function mergeAllocations(
  current: readonly { call_id: string; amount_cents: number }[],
  added: readonly { call_id: string; amount_cents: number }[],
) {
  const out = current.map((a) => ({ ...a }));
  for (const a of added) {
    const same = out.find((o) => o.call_id === a.call_id);
    if (same) same.amount_cents += a.amount_cents;
    else out.push({ ...a });
  }
  return out;
}

/** Credit (oldest payment first) goes to open calls (oldest first) until one of them runs out. */
function settleCredit(account: LeaseAccount): LeaseAccount {
  if (account.credit_cents <= 0) return account;
  let owed: Pick<LeaseAccount, "calls" | "opening"> = { calls: account.calls, opening: account.opening };
  const payments = account.payments.map((p) => {
    if (p.credit_cents <= 0) return p;
    const parts = allocate(payableOf({ ...account, ...owed }), p.credit_cents);
    if (parts.length === 0) return p;
    owed = addToAccount({ ...account, ...owed }, parts, 1);
    const used = parts.reduce((s, x) => s + x.amount_cents, 0);
    return { ...p, credit_cents: p.credit_cents - used, allocations: mergeAllocations(p.allocations, parts) };
  });
  const credit_cents = payments.reduce((s, p) => s + p.credit_cents, 0);
  return { ...account, ...owed, payments, credit_cents };
}

const toCents = (parts: readonly Allocation[]) =>
  parts.map((a) => ({ call_id: a.call_id, amount_cents: cents(a.amount) }));

function applyEvent(account: LeaseAccount, event: AccountEvent): LeaseAccount {
  switch (event.type) {
    case "OpeningBalanceRecorded": {
      const d = event.data;
      if (account.opening) return account;
      const total = cents(d.amount);
      const opening: AccountOpening = { call_id: d.call_id, on: d.on, total_cents: total, paid_cents: 0 };
      return { ...account, opening, balance_cents: account.balance_cents + total };
    }
    case "RentCallIssued": {
      const d = event.data;
      if (account.calls.some((c) => c.call_id === d.call_id)) return account;
      const total = cents(d.total_amount);
      const call: AccountCall = {
        call_id: d.call_id,
        period_start: d.period_start,
        period_end: d.period_end,
        due_date: d.due_date,
        rent_cents: cents(d.rent_amount),
        charges_cents: cents(d.charges_amount),
        total_cents: total,
        paid_cents: 0,
        prorated: d.prorated,
      };
      const calls = [...account.calls, call].sort(byPeriod);
      return { ...account, calls, balance_cents: account.balance_cents + total };
    }
    case "PaymentRecorded": {
      const d = event.data;
      const allocations = toCents(d.allocations);
      const amount = cents(d.amount);
      const credit = cents(d.credit);
      const payment: AccountPayment = {
        payment_id: d.payment_id,
        amount_cents: amount,
        paid_on: d.paid_on,
        method: d.method,
        reference: d.reference,
        payer_lessee_id: d.payer_lessee_id,
        allocations,
        credit_cents: credit,
        cancelled: null,
        source: d.source ?? null,
      };
      return {
        ...addToAccount(account, allocations, 1),
        payments: [...account.payments, payment],
        credit_cents: account.credit_cents + credit,
        balance_cents: account.balance_cents - amount,
      };
    }
    case "PaymentCancelled": {
      const d = event.data;
      const payment = account.payments.find((p) => p.payment_id === d.payment_id);
      if (!payment || payment.cancelled) return account;
      // The payment's own current allocations are reversed (the event lists them for readers).
      const owed = addToAccount(account, payment.allocations, -1);
      const payments = account.payments.map((p) =>
        p.payment_id === d.payment_id ? { ...p, credit_cents: 0, cancelled: { reason: d.reason } } : p,
      );
      return {
        ...owed,
        payments,
        credit_cents: account.credit_cents - payment.credit_cents,
        balance_cents: account.balance_cents + payment.amount_cents,
      };
    }
    case "ReceiptIssued":
    case "RentReminderSent":
      return account;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The account after `event`: the event applied, then any credit settled on open calls. */
export const evolveAccount = (account: LeaseAccount, event: AccountEvent): LeaseAccount =>
  settleCredit(applyEvent(account, event));

export const foldAccount = (events: readonly AccountEvent[]): LeaseAccount =>
  events.reduce(evolveAccount, emptyAccount());

/** The reversing entry of a payment: every allocation it holds now and its unconsumed credit. */
export const paymentCancellation = (
  payment: AccountPayment,
  leaseId: string,
  reason: string,
): PaymentCancelledData => ({
  payment_id: payment.payment_id,
  lease_id: leaseId,
  reason,
  reversed_allocations: payment.allocations.map((a) => ({
    call_id: a.call_id,
    amount: toEuros(a.amount_cents),
  })),
  reversed_credit: toEuros(payment.credit_cents),
});

/** What is still owed on a call, in cents. */
export const remainingCents = (call: Pick<AccountCall, "paid_cents" | "total_cents">): number =>
  Math.max(0, call.total_cents - call.paid_cents);
