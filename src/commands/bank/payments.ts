import type { CollectionEvent } from "../../events/bank/collections.ts";
import type { Ledger, LedgerEvent, LineMatch } from "../../events/bank/index.ts";
import {
  type AccountCall,
  type AccountEvent,
  allocate,
  emptyAccount,
  evolveAccount,
  type LeaseAccount,
  payableOf,
  paymentCancellation,
} from "../../events/rentCycle.ts";
import { cents, toEuros } from "../../law/money.ts";
import type { Decider } from "../../platform/decider.ts";

/**
 * What a bank line does to a lease's account (stream `lease_account-<lease>`, src/events/rentCycle.ts):
 * the rent cycle's own `PaymentRecorded` and `PaymentCancelled`, with the line as the payment's
 * source (docs/decisions.md, "Bank payments on the rent cycle's stream"). Idempotent by payment id:
 * a retried or repeated settlement writes nothing more, so a line is never counted twice.
 */
export interface LinePayment {
  payment_id: string;
  rent_call_id: string;
  amount: number;
  paid_on: string;
  bank_account_id: string;
  bank_line_id: string;
}

/** A call debited by a SEPA collection (src/events/bank/collections.ts), dated on its due date. */
export interface DebitPayment {
  payment_id: string;
  rent_call_id: string;
  amount: number;
  paid_on: string;
  bank_account_id: string;
  sepa_collection_id: string;
  end_to_end_id: string;
}

export type BankPaymentCommand =
  | { type: "RecordLinePayments"; lease_id: string; payments: readonly LinePayment[] }
  | { type: "RecordDebitPayments"; lease_id: string; payments: readonly DebitPayment[] }
  | { type: "CancelLinePayments"; lease_id: string; payment_ids: readonly string[]; reason: string };

/** The named call first (up to what it still owes), then the oldest open calls, the rest as credit. */
function allocationsOf(calls: readonly AccountCall[], callId: string, amountCents: number) {
  const named = calls.find((c) => c.call_id === callId);
  const first = named ? Math.min(amountCents, Math.max(0, named.total_cents - named.paid_cents)) : 0;
  const parts = first > 0 ? [{ call_id: callId, amount_cents: first }] : [];
  const others = calls.map((c) => (c.call_id === callId ? { ...c, paid_cents: c.total_cents } : c));
  return [...parts, ...allocate(others, amountCents - first)];
}

function recordLinePayments(
  command: Extract<BankPaymentCommand, { type: "RecordLinePayments" | "RecordDebitPayments" }>,
  start: LeaseAccount,
) {
  const events: AccountEvent[] = [];
  let account = start;
  for (const p of command.payments as readonly (LinePayment | DebitPayment)[]) {
    if (account.payments.some((x) => x.payment_id === p.payment_id)) continue;
    const amount = cents(p.amount);
    const parts = allocationsOf(payableOf(account), p.rent_call_id, amount);
    const allocated = parts.reduce((s, x) => s + x.amount_cents, 0);
    const event: AccountEvent = {
      type: "PaymentRecorded",
      data: {
        payment_id: p.payment_id,
        lease_id: command.lease_id,
        amount: toEuros(amount),
        paid_on: p.paid_on,
        method: "sepa_collection_id" in p ? "PRELEVEMENT_AUTOMATIQUE" : "VIREMENT_BANCAIRE",
        reference: null,
        payer_lessee_id: null,
        allocations: parts.map((x) => ({ call_id: x.call_id, amount: toEuros(x.amount_cents) })),
        credit: toEuros(amount - allocated),
        source:
          "sepa_collection_id" in p
            ? {
                bank_account_id: p.bank_account_id,
                bank_line_id: null,
                sepa_collection_id: p.sepa_collection_id,
                end_to_end_id: p.end_to_end_id,
              }
            : { bank_account_id: p.bank_account_id, bank_line_id: p.bank_line_id },
      },
    };
    events.push(event);
    account = evolveAccount(account, event);
  }
  return events;
}

function cancelLinePayments(
  command: Extract<BankPaymentCommand, { type: "CancelLinePayments" }>,
  account: LeaseAccount,
) {
  return command.payment_ids.flatMap((id): AccountEvent[] => {
    const payment = account.payments.find((p) => p.payment_id === id);
    if (!payment || payment.cancelled) return [];
    return [
      { type: "PaymentCancelled", data: paymentCancellation(payment, command.lease_id, command.reason) },
    ];
  });
}

export const bankPaymentDecider: Decider<LeaseAccount, BankPaymentCommand, AccountEvent> = {
  initialState: emptyAccount,
  evolve: evolveAccount,
  decide(command, account) {
    switch (command.type) {
      case "RecordLinePayments":
      case "RecordDebitPayments":
        return recordLinePayments(command, account);
      case "CancelLinePayments":
        return cancelLinePayments(command, account);
    }
  },
};

/**
 * What the ledger's new events do to the lease accounts: payments recorded for matches, cancelled
 * for undos and returns (a return's reason keeps its ISO code; no fee goes with it: loi n° 89-462
 * art. 4 p). One command per lease account and reason.
 */
export function settlementOf(events: readonly LedgerEvent[], ledger: Ledger): BankPaymentCommand[] {
  const record = new Map<string, LinePayment[]>();
  const cancel = new Map<string, { lease_id: string; reason: string; payment_ids: string[] }>();
  const pay = (accountId: string, lineId: string, matches: readonly LineMatch[]) => {
    const line = ledger.lines[lineId];
    for (const m of matches) {
      const list = record.get(m.lease_id) ?? [];
      list.push({
        payment_id: m.payment_id,
        rent_call_id: m.rent_call_id,
        amount: m.amount,
        paid_on: line.booked_on,
        bank_account_id: accountId,
        bank_line_id: lineId,
      });
      record.set(m.lease_id, list);
    }
  };
  for (const e of events) {
    if (e.type === "BankStatementImported") {
      for (const l of e.data.lines) if (l.sure) pay(e.data.bank_account_id, l.line_id, l.sure.matches);
    } else if (e.type === "BankLineMatched") {
      pay(e.data.bank_account_id, e.data.line_id, e.data.matches);
    } else if (e.type === "BankLineUnmatched" || e.type === "BankLineReturned") {
      const reason =
        e.type === "BankLineReturned" ? `Bank return ${e.data.reason_code}` : "Bank line unmatched";
      for (const m of e.data.cancelled) {
        const key = `${m.lease_id} ${reason}`;
        const entry = cancel.get(key) ?? { lease_id: m.lease_id, reason, payment_ids: [] };
        entry.payment_ids.push(m.payment_id);
        cancel.set(key, entry);
      }
    }
  }
  return [
    ...[...record].map(([lease_id, payments]) => ({
      type: "RecordLinePayments" as const,
      lease_id,
      payments,
    })),
    ...[...cancel.values()].map((c) => ({ type: "CancelLinePayments" as const, ...c })),
  ];
}

/**
 * What a collection's events do to the lease accounts: a batch records a debit payment per call
 * (dated on its due date); a reject or return cancels it with its ISO reason, the same reversal as
 * a returned credit ("Bank return AC04"): the call is due again, no fee is charged to the tenant
 * (loi n° 89-462 art. 4 p). One command per lease account and reason.
 */
export function collectionSettlementOf(events: readonly CollectionEvent[]): BankPaymentCommand[] {
  const record = new Map<string, DebitPayment[]>();
  const cancel = new Map<string, { lease_id: string; reason: string; payment_ids: string[] }>();
  for (const e of events) {
    if (e.type === "SepaCollectionCreated") {
      for (const t of e.data.transactions) {
        const list = record.get(t.lease_id) ?? [];
        list.push({
          payment_id: t.payment_id,
          rent_call_id: t.rent_call_id,
          amount: t.amount,
          paid_on: e.data.due_on,
          bank_account_id: e.data.bank_account_id,
          sepa_collection_id: e.data.collection_id,
          end_to_end_id: t.end_to_end_id,
        });
        record.set(t.lease_id, list);
      }
    } else {
      for (const r of e.data.rejections) {
        const reason = `Bank return ${r.reason_code}`;
        const key = `${r.lease_id} ${reason}`;
        const entry = cancel.get(key) ?? { lease_id: r.lease_id, reason, payment_ids: [] };
        entry.payment_ids.push(r.payment_id);
        cancel.set(key, entry);
      }
    }
  }
  return [
    ...[...record].map(([lease_id, payments]) => ({
      type: "RecordDebitPayments" as const,
      lease_id,
      payments,
    })),
    ...[...cancel.values()].map((c) => ({ type: "CancelLinePayments" as const, ...c })),
  ];
}
