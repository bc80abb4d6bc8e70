import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reminderMessageId } from "../../src/events/rentCollection.ts";
import { leaseAccountStream } from "../../src/events/rentCycle.ts";
import { rentRemindersProjection } from "../../src/projections/rentCollection.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const LEASE = "6f1c2b8a-1d2e-4f3a-9b4c-5d6e7f8a9b0c";
const CALL = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d";

describe.each(databaseKinds)("rent reminders projection on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [rentRemindersProjection]);
  });
  afterAll(async () => spec?.close());

  const sent = (level: number, kind: "REMINDER" | "SECOND_REMINDER", sent_at: string) => ({
    type: "RentReminderSent",
    data: {
      lease_id: LEASE,
      call_id: CALL,
      level,
      kind,
      due_date: "2026-03-05",
      days_late: level === 1 ? 5 : 15,
      amount_claimed: 970.5,
      sent_at,
      message_id: reminderMessageId(CALL, level),
    },
  });

  it("given reminders and a receipt on the account stream, then one row per reminder, keyed by its message", async () => {
    const stream = leaseAccountStream(LEASE);
    const receipt = { type: "ReceiptIssued", data: { lease_id: LEASE, call_id: CALL } };
    const t = await spec.given([
      on(stream, sent(1, "REMINDER", "2026-03-10T07:00:00.000Z")),
      on(stream, receipt),
      on(stream, sent(2, "SECOND_REMINDER", "2026-03-20T07:00:00.000Z")),
    ]);
    const rows = await t.rows("rent_reminders", "level");
    expect(rows.map((r) => [r.id, r.level, r.kind, Number(r.amount_claimed)])).toEqual([
      [reminderMessageId(CALL, 1), 1, "REMINDER", 970.5],
      [reminderMessageId(CALL, 2), 2, "SECOND_REMINDER", 970.5],
    ]);
    expect(rows[0]).toMatchObject({
      lease_id: LEASE,
      call_id: CALL,
      days_late: 5,
      message_id: reminderMessageId(CALL, 1),
    });
  });
});
