import type { CollectionEvent } from "../events/rentCollection.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/** `rent_reminders`: one row per reminder sent (call and level), from `RentReminderSent` (docs/rent-cycle.md). */
export const RENT_REMINDER_COLUMNS = [
  "tenant_id",
  "id",
  "lease_id",
  "call_id",
  "level",
  "kind",
  "due_date",
  "days_late",
  "amount_claimed",
  "sent_at",
  "message_id",
] as const;

export const rentRemindersProjection = rowProjection<CollectionEvent>({
  name: "rent_reminders",
  version: 1,
  table: "rent_reminders",
  columns: RENT_REMINDER_COLUMNS,
  schema: `
CREATE TABLE rent_reminders (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  call_id uuid NOT NULL,
  level integer NOT NULL,
  kind text NOT NULL,
  due_date date NOT NULL,
  days_late integer NOT NULL,
  amount_claimed numeric NOT NULL,
  sent_at timestamptz NOT NULL,
  message_id uuid NOT NULL
);
CREATE INDEX rent_reminders_lease ON rent_reminders (tenant_id, lease_id, sent_at, id);
CREATE INDEX rent_reminders_sent ON rent_reminders (sent_at);
${tenantPolicy("rent_reminders")}`,
  handles: ["RentReminderSent"],
  // The message id is the reminder's: one per (call, level).
  idOf: (event) => (event.type === "RentReminderSent" ? event.data.message_id : null),
  creates: ["RentReminderSent"],
  keepRows: true,
  evolve(row, event) {
    switch (event.type) {
      case "RentReminderSent":
        return { ...event.data };
      default:
        return row;
    }
  },
});
