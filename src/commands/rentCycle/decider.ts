import {
  type AccountEvent,
  allocate,
  emptyAccount,
  evolveAccount,
  type LeaseAccount,
  openingBalanceRecorded,
  type PaymentMethod,
  payableOf,
  paymentCancellation,
  rentCallId,
} from "../../events/rentCycle.ts";
import { cents, toEuros } from "../../law/money.ts";
import type { RentPeriod } from "../../law/rentPeriods.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, unprocessable, validationError } from "../../platform/errors.ts";

/**
 * The account of a lease (stream `lease_account-<lease>`, src/events/rentCycle.ts): rent calls
 * issued, payments recorded and cancelled (docs/rent-cycle.md).
 */
export type AccountCommand =
  /** Calls for periods that have started; a period already called is never called again. */
  | {
      type: "IssueRentCalls";
      lease_id: string;
      periods: readonly RentPeriod[];
      /** A lease taken over: what the tenant owed on its takeover date, recorded once before the calls. */
      opening_balance?: { amount: number; on: string } | null;
    }
  | {
      type: "RecordPayment";
      lease_id: string;
      payment_id: string;
      amount: number;
      paid_on: string;
      method: PaymentMethod;
      reference: string | null;
      payer_lessee_id: string | null;
      /** The legal day (Paris): a payment cannot be dated after it. */
      today: string;
      /** The lease's start date and the day it was signed (activated), null before. */
      lease_start_date: string;
      lease_signed_on: string | null;
    }
  | { type: "CancelPayment"; lease_id: string; payment_id: string; reason: string };

function issueRentCalls(command: Extract<AccountCommand, { type: "IssueRentCalls" }>, account: LeaseAccount) {
  const called = new Set(account.calls.map((c) => c.call_id));
  const events: AccountEvent[] = [];
  const opening = command.opening_balance;
  if (opening && cents(opening.amount) > 0 && !account.opening)
    events.push(openingBalanceRecorded(command.lease_id, opening));
  for (const period of command.periods) {
    const call_id = rentCallId(command.lease_id, period.period_start);
    // One call per (lease, period): a retried, crashed or concurrent run finds it and writes nothing.
    if (called.has(call_id)) continue;
    called.add(call_id);
    events.push({ type: "RentCallIssued", data: { call_id, lease_id: command.lease_id, ...period } });
  }
  return events;
}

function recordPayment(command: Extract<AccountCommand, { type: "RecordPayment" }>, account: LeaseAccount) {
  if (command.paid_on > command.today)
    throw validationError("Invalid payment data", [
      { field: "paid_on", message: `Must not be after today (${command.today}, Europe/Paris)` },
    ]);
  // An account holds what was paid under this lease: from its start, or from its signature when
  // the first rent is paid in advance. A day before both is a typo, not a payment (a lease taken
  // over with its past would carry its own start; there is no takeover yet).
  const { lease_start_date: start, lease_signed_on: signed } = command;
  const opens = signed !== null && signed < start ? signed : start;
  if (command.paid_on < opens)
    throw unprocessable(
      opens === start
        ? `A payment cannot be dated before the lease starts (${start})`
        : `A payment cannot be dated before the lease was signed (${signed}), its start being later`,
      [{ field: "paid_on", message: `Must not be before ${opens}` }],
    );
  const amount = cents(command.amount);
  if (amount <= 0)
    throw validationError("Invalid payment data", [{ field: "amount", message: "Must be > 0" }]);
  if (account.payments.some((p) => p.payment_id === command.payment_id))
    throw conflict(`Payment ${command.payment_id} already exists`);
  // Oldest open call first, whatever the payment's date (docs/decisions.md, "Rent cycle").
  const parts = allocate(payableOf(account), amount);
  const allocated = parts.reduce((s, p) => s + p.amount_cents, 0);
  return [
    {
      type: "PaymentRecorded" as const,
      data: {
        payment_id: command.payment_id,
        lease_id: command.lease_id,
        amount: toEuros(amount),
        paid_on: command.paid_on,
        method: command.method,
        reference: command.reference,
        payer_lessee_id: command.payer_lessee_id,
        allocations: parts.map((p) => ({ call_id: p.call_id, amount: toEuros(p.amount_cents) })),
        credit: toEuros(amount - allocated),
      },
    },
  ];
}

function cancelPayment(command: Extract<AccountCommand, { type: "CancelPayment" }>, account: LeaseAccount) {
  const payment = account.payments.find((p) => p.payment_id === command.payment_id);
  if (!payment) throw notFound("Payment", command.payment_id);
  if (payment.cancelled) throw conflict(`Payment ${command.payment_id} is already cancelled`);
  return [
    {
      type: "PaymentCancelled" as const,
      data: paymentCancellation(payment, command.lease_id, command.reason),
    },
  ];
}

export const accountDecider: Decider<LeaseAccount, AccountCommand, AccountEvent> = {
  initialState: emptyAccount,
  evolve: evolveAccount,
  decide(command, account) {
    switch (command.type) {
      case "IssueRentCalls":
        return issueRentCalls(command, account);
      case "RecordPayment":
        return recordPayment(command, account);
      case "CancelPayment":
        return cancelPayment(command, account);
    }
  },
};
