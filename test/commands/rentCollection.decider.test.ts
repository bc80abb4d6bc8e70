import { describe, expect, it } from "vitest";
import { collectionDecider } from "../../src/commands/rentCollection/decider.ts";
import { emptyCollection, evolveCollection, reminderMessageId } from "../../src/events/rentCollection.ts";
import type { AccountEvent } from "../../src/events/rentCycle.ts";
import { DEFAULT_REMINDER_LEVELS } from "../../src/law/reminders.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** Receipts and reminders decided on the lease account (docs/rent-cycle.md). */

const spec = deciderSpec(collectionDecider);
const LEASE = "6f1c2b8a-1d2e-4f3a-9b4c-5d6e7f8a9b0c";
const CALL = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d";
const PAYMENT = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";

const issued: AccountEvent = {
  type: "RentCallIssued",
  data: {
    call_id: CALL,
    lease_id: LEASE,
    period_start: "2026-03-01",
    period_end: "2026-03-31",
    due_date: "2026-03-05",
    rent_amount: 850,
    charges_amount: 120.5,
    total_amount: 970.5,
    prorated: null,
  },
};
const paid = (amount: number, payment_id = PAYMENT): AccountEvent => ({
  type: "PaymentRecorded",
  data: {
    payment_id,
    lease_id: LEASE,
    amount,
    paid_on: "2026-03-04",
    method: "VIREMENT_BANCAIRE",
    reference: null,
    payer_lessee_id: null,
    allocations: [{ call_id: CALL, amount }],
    credit: 0,
  },
});
const cancelled = (amount: number, payment_id = PAYMENT): AccountEvent => ({
  type: "PaymentCancelled",
  data: {
    payment_id,
    lease_id: LEASE,
    reason: "Chèque rejeté",
    reversed_allocations: [{ call_id: CALL, amount }],
    reversed_credit: 0,
  },
});

const number = { number: "Q-2026-000001", year: 2026, sequence: 1 };
const issue = {
  type: "IssueQuittance" as const,
  lease_id: LEASE,
  call_id: CALL,
  number,
  issued_on: "2026-03-06",
};
const quittance: AccountEvent = {
  type: "ReceiptIssued",
  data: {
    lease_id: LEASE,
    call_id: CALL,
    kind: "QUITTANCE",
    ...number,
    issued_on: "2026-03-06",
    period_start: "2026-03-01",
    period_end: "2026-03-31",
    rent_amount: 850,
    charges_amount: 120.5,
    total_amount: 970.5,
    paid_amount: 970.5,
  },
};

describe("a quittance", () => {
  it("a call paid in full gets its number once; asked again, nothing new (same number kept)", () => {
    spec
      .given([issued, paid(970.5)])
      .when(issue)
      .then([quittance]);
    spec
      .given([issued, paid(970.5), quittance])
      .when({ ...issue, number: { number: "Q-2026-000002", year: 2026, sequence: 2 } })
      .thenNothing();
  });

  it("unpaid or partly paid: 409 (the route gives a reçu for the latter); an unknown call: 404", () => {
    spec
      .given([issued])
      .when(issue)
      .thenRefuses(409, /Nothing has been paid.*art\. 21/, ["call_id"]);
    spec
      .given([issued, paid(500)])
      .when(issue)
      .thenRefuses(409, /Paid in part/);
    spec
      .given([issued])
      .when({ ...issue, call_id: PAYMENT })
      .thenRefuses(404, `Rent call ${PAYMENT} not found`);
  });

  it("a receipt moves no money: the balance is the same with it", () => {
    const without = [issued, paid(970.5)].reduce(evolveCollection, emptyCollection());
    const withIt = [issued, paid(970.5), quittance].reduce(evolveCollection, emptyCollection());
    expect(withIt.account).toEqual(without.account);
    expect(withIt.receipts).toEqual([quittance.data]);
  });
});

describe("a reminder", () => {
  const remind = (today: string, now = `${today}T07:00:00.000Z`) => ({
    type: "RecordRentReminder" as const,
    lease_id: LEASE,
    call_id: CALL,
    today,
    now,
    levels: DEFAULT_REMINDER_LEVELS,
  });
  const sent = (
    level: number,
    kind: "REMINDER" | "SECOND_REMINDER",
    days_late: number,
    at: string,
    amount = 970.5,
  ) =>
    ({
      type: "RentReminderSent",
      data: {
        lease_id: LEASE,
        call_id: CALL,
        level,
        kind,
        due_date: "2026-03-05",
        days_late,
        amount_claimed: amount,
        sent_at: at,
        message_id: reminderMessageId(CALL, level),
      },
    }) as AccountEvent;

  it("day 4 nothing; day 5 the first level, its message id hash(call, level), claiming what is left", () => {
    spec.given([issued]).when(remind("2026-03-09")).thenNothing();
    spec
      .given([issued])
      .when(remind("2026-03-10"))
      .then([sent(1, "REMINDER", 5, "2026-03-10T07:00:00.000Z")]);
    spec
      .given([issued, paid(300)])
      .when(remind("2026-03-10"))
      .then([sent(1, "REMINDER", 5, "2026-03-10T07:00:00.000Z", 670.5)]);
  });

  it("paid the day before: nothing; the same level never twice", () => {
    spec
      .given([issued, paid(970.5)])
      .when(remind("2026-03-10"))
      .thenNothing();
    spec
      .given([issued, sent(1, "REMINDER", 5, "2026-03-10T07:00:00.000Z")])
      .when(remind("2026-03-12"))
      .thenNothing();
  });

  it("two levels due the same day: one now, the next only 24 h later", () => {
    const first = sent(1, "REMINDER", 16, "2026-03-21T07:00:00.000Z");
    spec.given([issued]).when(remind("2026-03-21")).then([first]);
    spec.given([issued, first]).when(remind("2026-03-22", "2026-03-22T06:00:00.000Z")).thenNothing();
    spec
      .given([issued, first])
      .when(remind("2026-03-22", "2026-03-22T07:00:00.000Z"))
      .then([sent(2, "SECOND_REMINDER", 17, "2026-03-22T07:00:00.000Z")]);
  });

  it("a cancelled payment reopens the call: the reminders resume at the next level", () => {
    const first = sent(1, "REMINDER", 5, "2026-03-10T07:00:00.000Z");
    spec
      .given([issued, first, paid(970.5)])
      .when(remind("2026-03-20"))
      .thenNothing();
    spec
      .given([issued, first, paid(970.5), cancelled(970.5)])
      .when(remind("2026-03-20"))
      .then([sent(2, "SECOND_REMINDER", 15, "2026-03-20T07:00:00.000Z")]);
  });
});
