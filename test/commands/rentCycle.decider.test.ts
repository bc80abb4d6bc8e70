import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AccountCommand, accountDecider } from "../../src/commands/rentCycle/decider.ts";
import {
  type AccountEvent,
  callStatusOn,
  foldAccount,
  rentCallId,
  storedCallStatus,
} from "../../src/events/rentCycle.ts";
import type { RentPeriod } from "../../src/law/rentPeriods.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** The lease account (docs/design.md §7.1): calls, payments oldest call first, credit, reversing cancellations. */

const spec = deciderSpec(accountDecider);
const LEASE = "5b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
const TODAY = "2026-06-15";
const LEASE_START = "2026-01-01";

const period = (month: number, total = 950): RentPeriod => {
  const m = String(month).padStart(2, "0");
  return {
    period_start: `2026-${m}-01`,
    period_end: `2026-${m}-28`,
    due_date: `2026-${m}-05`,
    rent_amount: total - 50,
    charges_amount: 50,
    total_amount: total,
    prorated: null,
  };
};
const callOf = (month: number, total = 950): AccountEvent => ({
  type: "RentCallIssued",
  data: { call_id: rentCallId(LEASE, period(month).period_start), lease_id: LEASE, ...period(month, total) },
});
const callId = (month: number) => rentCallId(LEASE, period(month).period_start);
const pay = (payment_id: string, amount: number, paid_on = "2026-06-01"): AccountCommand => ({
  type: "RecordPayment",
  lease_id: LEASE,
  payment_id,
  amount,
  paid_on,
  method: "VIREMENT_BANCAIRE",
  reference: null,
  payer_lessee_id: null,
  today: TODAY,
  lease_start_date: LEASE_START,
  lease_signed_on: "2026-03-10",
});
const P1 = "00000000-0000-4000-8000-000000000001";
const P2 = "00000000-0000-4000-8000-000000000002";
const P3 = "00000000-0000-4000-8000-000000000003";

/** Decides then folds, as the command handler does. */
function run(history: AccountEvent[], ...commands: AccountCommand[]): AccountEvent[] {
  const events = [...history];
  for (const c of commands) events.push(...accountDecider.decide(c, foldAccount(events)));
  return events;
}

describe("rent calls", () => {
  it("issues one call per period, with the period's id; a period already called writes nothing", () => {
    spec
      .given([])
      .when({ type: "IssueRentCalls", lease_id: LEASE, periods: [period(1), period(2)] })
      .then([callOf(1), callOf(2)]);
    spec
      .given([callOf(1)])
      .when({ type: "IssueRentCalls", lease_id: LEASE, periods: [period(1)] })
      .thenNothing();
    spec
      .given([callOf(1)])
      .when({ type: "IssueRentCalls", lease_id: LEASE, periods: [period(1), period(2), period(2)] })
      .then([callOf(2)]);
  });

  it("the balance is calls minus payments; statuses OPEN, PARTIALLY_PAID, PAID; OVERDUE only derived", () => {
    const account = foldAccount(run([callOf(1), callOf(2)], pay(P1, 1000)));
    expect(account.balance_cents).toBe(90000);
    expect(account.calls.map(storedCallStatus)).toEqual(["PAID", "PARTIALLY_PAID"]);
    expect(account.calls[1].paid_cents).toBe(5000);
    expect(callStatusOn(account.calls[1], "2026-02-05")).toBe("PARTIALLY_PAID");
    expect(callStatusOn(account.calls[1], "2026-02-06")).toBe("OVERDUE");
    expect(callStatusOn(account.calls[0], "2030-01-01")).toBe("PAID");
    expect(storedCallStatus(foldAccount([callOf(3)]).calls[0])).toBe("OPEN");
  });
});

describe("payments", () => {
  it("are allocated to the oldest open call first, whatever order the calls were issued in", () => {
    spec
      .given([callOf(2), callOf(1)])
      .when(pay(P1, 1200))
      .then([
        {
          type: "PaymentRecorded",
          data: {
            payment_id: P1,
            lease_id: LEASE,
            amount: 1200,
            paid_on: "2026-06-01",
            method: "VIREMENT_BANCAIRE",
            reference: null,
            payer_lessee_id: null,
            allocations: [
              { call_id: callId(1), amount: 950 },
              { call_id: callId(2), amount: 250 },
            ],
            credit: 0,
          },
        },
      ]);
  });

  it("an overpayment stays as credit, and a later call eats it when it is issued", () => {
    const events = run([callOf(1)], pay(P1, 1000.01));
    const paid = events[1];
    expect(paid.type === "PaymentRecorded" && paid.data.credit).toBe(50.01);
    let account = foldAccount(events);
    expect(account).toMatchObject({ credit_cents: 5001, balance_cents: -5001 });
    account = foldAccount([...events, callOf(2)]);
    expect(account.calls[1].paid_cents).toBe(5001);
    expect(account).toMatchObject({ credit_cents: 0, balance_cents: 89999 });
    expect(account.payments[0].allocations).toEqual([
      { call_id: callId(1), amount_cents: 95000 },
      { call_id: callId(2), amount_cents: 5001 },
    ]);
  });

  it("a payment with no call open is all credit", () => {
    const [e] = spec.given([]).when(pay(P1, 300)).thenEvents();
    expect(e.type === "PaymentRecorded" && [e.data.allocations, e.data.credit]).toEqual([[], 300]);
  });

  it("a backdated payment goes to the oldest call open now; it never moves earlier payments' allocations", () => {
    const events = run(
      [callOf(1), callOf(2), callOf(3)],
      pay(P1, 950, "2026-03-01"),
      pay(P2, 950, "2026-01-02"),
    );
    const account = foldAccount(events);
    expect(account.payments.map((p) => p.allocations.map((a) => a.call_id))).toEqual([
      [callId(1)],
      [callId(2)],
    ]);
    expect(account.calls.map(storedCallStatus)).toEqual(["PAID", "PAID", "OPEN"]);
  });

  it("refuses a payment dated after today, a zero amount, and a payment id used twice", () => {
    spec
      .given([])
      .when(pay(P1, 10, "2026-06-16"))
      .thenRefuses(400, /Invalid payment/, ["paid_on"]);
    spec
      .given([])
      .when(pay(P1, 0))
      .thenRefuses(400, /Invalid payment/, ["amount"]);
    spec
      .given(run([], pay(P1, 10)))
      .when(pay(P1, 10))
      .thenRefuses(409, /already exists/);
  });

  it("takes a payment dated the lease's first day and refuses one dated the day before (422)", () => {
    const [recorded] = spec
      .given([])
      .when(pay(P1, 10, LEASE_START))
      .thenEvents();
    expect(recorded).toMatchObject({ type: "PaymentRecorded", data: { paid_on: LEASE_START } });
    spec
      .given([])
      .when(pay(P1, 10, "2025-12-31"))
      .thenRefuses(422, /before the lease starts \(2026-01-01\)/, ["paid_on"]);
  });

  it("signed before its start, a lease takes a payment from its signature day (rent paid in advance)", () => {
    const signedEarly = (paid_on: string) => ({ ...pay(P1, 10, paid_on), lease_signed_on: "2025-12-15" });
    expect(spec.given([]).when(signedEarly("2025-12-15")).thenEvents()).toHaveLength(1);
    spec
      .given([])
      .when(signedEarly("2025-12-14"))
      .thenRefuses(422, /before the lease was signed \(2025-12-15\)/, ["paid_on"]);
  });
});

describe("cancellation", () => {
  it("is a reversing entry: the payment stays, cancelled; its allocations (credit consumption included) undone", () => {
    const events = run([callOf(1)], pay(P1, 1000));
    const withCall = [...events, callOf(2)];
    const [cancelled] = spec
      .given(withCall)
      .when({ type: "CancelPayment", lease_id: LEASE, payment_id: P1, reason: "cheque returned" })
      .thenEvents();
    expect(cancelled).toEqual({
      type: "PaymentCancelled",
      data: {
        payment_id: P1,
        lease_id: LEASE,
        reason: "cheque returned",
        reversed_allocations: [
          { call_id: callId(1), amount: 950 },
          { call_id: callId(2), amount: 50 },
        ],
        reversed_credit: 0,
      },
    });
    const account = foldAccount([...withCall, cancelled]);
    expect(account.payments).toHaveLength(1);
    expect(account.payments[0].cancelled).toEqual({ reason: "cheque returned" });
    expect(account.calls.map((c) => c.paid_cents)).toEqual([0, 0]);
    expect(account).toMatchObject({ balance_cents: 190000, credit_cents: 0 });
  });

  it("other payments' credit then pays the calls it reopened", () => {
    const events = run([callOf(1)], pay(P1, 950), pay(P2, 500), {
      type: "CancelPayment",
      lease_id: LEASE,
      payment_id: P1,
      reason: "error",
    });
    const account = foldAccount(events);
    expect(account.calls[0].paid_cents).toBe(50000);
    expect(account).toMatchObject({ credit_cents: 0, balance_cents: 45000 });
  });

  it("refuses an unknown payment (404) and a second cancellation (409)", () => {
    const cancel: AccountCommand = { type: "CancelPayment", lease_id: LEASE, payment_id: P3, reason: "x" };
    spec
      .given([])
      .when(cancel)
      .thenRefuses(404, /Payment .* not found/);
    spec
      .given(run([], pay(P3, 10), cancel))
      .when(cancel)
      .thenRefuses(409, /already cancelled/);
  });
});

describe("replay", () => {
  it("gives the same balances to the cent, event by event, for any mix of calls, payments and cancellations", () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("call" as const), cents: fc.integer({ min: 1, max: 300_000 }) }),
      fc.record({ kind: fc.constant("pay" as const), cents: fc.integer({ min: 1, max: 400_000 }) }),
      fc.record({ kind: fc.constant("cancel" as const), which: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let events: AccountEvent[] = [];
        let month = 0;
        const paymentIds: string[] = [];
        for (const s of steps) {
          const state = foldAccount(events);
          if (s.kind === "call") {
            month += 1;
            const start = `20${String(10 + Math.floor(month / 12)).padStart(2, "0")}-${String((month % 12) + 1).padStart(2, "0")}-01`;
            const p = {
              ...period(1, s.cents / 100),
              period_start: start,
              period_end: start,
              due_date: start,
            };
            events = [
              ...events,
              ...accountDecider.decide({ type: "IssueRentCalls", lease_id: LEASE, periods: [p] }, state),
            ];
          } else if (s.kind === "pay") {
            const id = `00000000-0000-4000-8000-${String(paymentIds.length).padStart(12, "0")}`;
            paymentIds.push(id);
            events = [...events, ...accountDecider.decide(pay(id, s.cents / 100), state)];
          } else {
            const live = state.payments.filter((p) => !p.cancelled);
            if (live.length === 0) continue;
            const id = live[s.which % live.length].payment_id;
            events = [
              ...events,
              ...accountDecider.decide(
                { type: "CancelPayment", lease_id: LEASE, payment_id: id, reason: "r" },
                state,
              ),
            ];
          }
        }
        // Replayed from JSON (as the log returns it) the account is the same.
        const account = foldAccount(events);
        expect(foldAccount(JSON.parse(JSON.stringify(events)))).toEqual(account);
        const calls = account.calls.reduce((s, c) => s + c.total_cents, 0);
        const paid = account.payments.filter((p) => !p.cancelled).reduce((s, p) => s + p.amount_cents, 0);
        expect(account.balance_cents).toBe(calls - paid);
        const unpaid = account.calls.reduce((s, c) => s + c.total_cents - c.paid_cents, 0);
        expect(account.balance_cents).toBe(unpaid - account.credit_cents);
        // Credit and open calls never coexist; no call is paid beyond its total or below zero.
        expect(account.credit_cents === 0 || unpaid === 0).toBe(true);
        for (const c of account.calls) expect(c.paid_cents >= 0 && c.paid_cents <= c.total_cents).toBe(true);
      }),
    );
  });
});
