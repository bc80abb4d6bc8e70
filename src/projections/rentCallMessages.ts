import type { AccountEvent } from "../events/rentCycle.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `rent_call_messages`: one row per rent call issued (docs/messages.md, "Rent messages"), keyed by
 * the call's id. The worker queues the call's avis and, once the call is paid, its quittance, and
 * stamps `avis_handled` / `quittance_handled`; the projection never writes those columns, so a
 * rebuild or a live batch cannot undo them (and the messages' ids are the call's: never twice).
 */
export const rentCallMessagesProjection = rowProjection<Extract<AccountEvent, { type: "RentCallIssued" }>>({
  name: "rent_call_messages",
  version: 1,
  table: "rent_call_messages",
  columns: ["tenant_id", "id", "lease_id", "due_date", "occurred_at"],
  schema: `
CREATE TABLE rent_call_messages (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  due_date date NOT NULL,
  occurred_at timestamptz NOT NULL,
  avis_handled text,
  quittance_handled text
);
CREATE INDEX rent_call_messages_avis ON rent_call_messages (due_date) WHERE avis_handled IS NULL;
CREATE INDEX rent_call_messages_quittance ON rent_call_messages (due_date) WHERE quittance_handled IS NULL;
${tenantPolicy("rent_call_messages")}`,
  handles: ["RentCallIssued"],
  creates: ["RentCallIssued"],
  idOf: (event) => event.data.call_id,
  evolve: (_row, event) => ({
    lease_id: event.data.lease_id,
    due_date: event.data.due_date,
    occurred_at: event.metadata.occurred_at,
  }),
});
