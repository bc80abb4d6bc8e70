import { describe, expect, it } from "vitest";
import {
  claimVerdict,
  DEFAULT_REMINDER_LEVELS,
  daysLate,
  type ReminderFacts,
  reminderVerdict,
} from "../../src/law/reminders.ts";

/** Reminders: levels J+5, J+15, J+30 by default; once per level, never paid, 24 h apart, no fee (art. 4 i, p). */

const NO_FEE = "loi n° 89-462 du 6 juillet 1989, art. 4 p; loi n° 89-462 du 6 juillet 1989, art. 4 i";
const facts = (over: Partial<ReminderFacts>): ReminderFacts => ({
  due_date: "2026-03-05",
  remaining_amount: 970.5,
  today: "2026-03-10",
  now: "2026-03-10T07:00:00.000Z",
  levels: DEFAULT_REMINDER_LEVELS,
  sent: [],
  ...over,
});
const levelOf = (f: Partial<ReminderFacts>) => {
  const v = reminderVerdict(facts(f));
  return v.status === "PASS" ? v.details.level : null;
};

describe("days late", () => {
  it("counts calendar days from the due date, across months and leap days", () => {
    expect(daysLate("2026-03-05", "2026-03-05")).toBe(0);
    expect(daysLate("2026-03-05", "2026-03-04")).toBe(-1);
    expect(daysLate("2024-02-28", "2024-03-01")).toBe(2);
    expect(daysLate("2026-03-28", "2026-03-30")).toBe(2); // across the switch to summer time
    expect(daysLate("2025-12-31", "2026-01-01")).toBe(1);
  });
});

describe("which reminder goes out", () => {
  it("day 4: none; day 5: the first reminder, claiming the remaining amount and no fee", () => {
    expect(reminderVerdict(facts({ today: "2026-03-09" }))).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "No reminder level is due 4 day(s) after the due date",
    });
    expect(reminderVerdict(facts({ today: "2026-03-10" }))).toEqual({
      rule: "RENT_REMINDER",
      status: "PASS",
      message: `Reminder level 1 (REMINDER) is due 5 day(s) after the due date: 970.50 is claimed, no fee or penalty (${NO_FEE})`,
      legal_reference: NO_FEE,
      details: { level: 1, kind: "REMINDER", days_late: 5, amount_claimed: 970.5, fee_amount: 0 },
    });
  });

  it("never once paid (to the cent); a cent left is still reminded", () => {
    expect(reminderVerdict(facts({ remaining_amount: 0 }))).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "The call is paid: no reminder",
    });
    expect(reminderVerdict(facts({ remaining_amount: 0.01 })).details.amount_claimed).toBe(0.01);
  });

  it("each level once: level 1 sent, nothing more until day 15, then level 2; day 30 the formal notice", () => {
    const one = [{ level: 1, sent_at: "2026-03-10T07:00:00.000Z" }];
    expect(
      reminderVerdict(facts({ today: "2026-03-19", now: "2026-03-19T07:00:00Z", sent: one })),
    ).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "Every reminder level due so far has been sent",
    });
    expect(levelOf({ today: "2026-03-20", now: "2026-03-20T07:00:00Z", sent: one })).toBe(2);
    const two = [...one, { level: 2, sent_at: "2026-03-20T07:00:00.000Z" }];
    expect(levelOf({ today: "2026-04-03", now: "2026-04-03T07:00:00Z", sent: two })).toBeNull();
    expect(
      reminderVerdict(facts({ today: "2026-04-04", now: "2026-04-04T07:00:00Z", sent: two })).details,
    ).toMatchObject({ level: 3, kind: "FORMAL_NOTICE", days_late: 30 });
  });

  it("two levels due the same day: the lowest first, the next one 24 hours later and not a minute before", () => {
    // The first run is on day 16: levels 1 and 2 are both due.
    expect(levelOf({ today: "2026-03-21", now: "2026-03-21T07:00:00.000Z" })).toBe(1);
    const sent = [{ level: 1, sent_at: "2026-03-21T07:00:00.000Z" }];
    const early = reminderVerdict(facts({ today: "2026-03-22", now: "2026-03-22T06:59:59.999Z", sent }));
    expect(early).toMatchObject({
      status: "NOT_APPLICABLE",
      message: "A reminder of this call was sent less than 24 hours ago",
      details: { next_possible_at: "2026-03-22T07:00:00.000Z" },
    });
    expect(levelOf({ today: "2026-03-22", now: "2026-03-22T07:00:00.000Z", sent })).toBe(2);
  });

  it("on the day a sent level was due, again: every level due so far is sent", () => {
    const sent = [{ level: 1, sent_at: "2026-03-09T07:00:00.000Z" }];
    expect(reminderVerdict(facts({ today: "2026-03-10", now: "2026-03-10T08:00:00Z", sent })).message).toBe(
      "Every reminder level due so far has been sent",
    );
  });

  it("the 24 hours count from the latest reminder, not the first", () => {
    const sent = [
      { level: 1, sent_at: "2026-03-10T07:00:00.000Z" },
      { level: 2, sent_at: "2026-04-03T07:00:00.000Z" },
    ];
    expect(
      reminderVerdict(facts({ today: "2026-04-04", now: "2026-04-04T06:00:00.000Z", sent })).details,
    ).toMatchObject({ next_possible_at: "2026-04-04T07:00:00.000Z" });
  });

  it("levels in any order: the earliest day first, then the lowest level on the same day", () => {
    const shuffled = [
      { level: 3, days_after_due: 30, kind: "FORMAL_NOTICE" as const },
      { level: 2, days_after_due: 15, kind: "SECOND_REMINDER" as const },
      { level: 1, days_after_due: 5, kind: "REMINDER" as const },
    ];
    expect(levelOf({ today: "2026-04-20", levels: shuffled })).toBe(1);
    const sameDay = [
      { level: 2, days_after_due: 5, kind: "SECOND_REMINDER" as const },
      { level: 1, days_after_due: 5, kind: "REMINDER" as const },
    ];
    expect(levelOf({ levels: sameDay })).toBe(1);
  });

  it("the tenant's own levels: no levels, no reminder; a J+1 level on day 1", () => {
    expect(levelOf({ levels: [] })).toBeNull();
    expect(
      levelOf({ today: "2026-03-06", levels: [{ level: 1, days_after_due: 1, kind: "REMINDER" }] }),
    ).toBe(1);
  });

  it("a call reopened by a cancelled payment resumes where it was: sent levels stay sent", () => {
    const sent = [{ level: 1, sent_at: "2026-03-10T07:00:00.000Z" }];
    expect(levelOf({ today: "2026-03-25", now: "2026-03-25T07:00:00Z", sent })).toBe(2);
  });
});

describe("no fee or penalty (art. 4 i and p)", () => {
  it("claiming what is owed passes; a cent more fails, naming the excess", () => {
    expect(claimVerdict(970.5, 970.5)).toEqual({
      rule: "NO_FEE_OR_PENALTY",
      status: "PASS",
      message: "The amount claimed is what is owed",
      legal_reference: NO_FEE,
      details: { claimed_amount: 970.5, owed_amount: 970.5 },
    });
    expect(claimVerdict(970.51, 970.5)).toEqual({
      rule: "NO_FEE_OR_PENALTY",
      status: "FAIL",
      message: `A reminder may not add a fee or a penalty to the rent owed (${NO_FEE}): 0.01 above the 970.50 owed`,
      legal_reference: NO_FEE,
      details: {
        claimed_amount: 970.51,
        owed_amount: 970.5,
        errors: [{ field: "amount_claimed", message: "0.01 more than what is owed" }],
      },
    });
  });
});
