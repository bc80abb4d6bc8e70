import type { LeaseEvent } from "../events/leases.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `amendment_notices`: one row per amendment status event that tells the lease's tenants
 * (submitted for validation, validated, rejected), keyed by the event's id (docs/messages.md,
 * "Amendment notices"). The worker queues each row's messages and stamps `handled_at`; the
 * projection never writes those two columns, so a live batch cannot undo them.
 */
export const NOTICE_EVENT_TYPES = [
  "LeaseAmendmentSubmitted",
  "LeaseAmendmentValidated",
  "LeaseAmendmentRejected",
] as const satisfies readonly LeaseEvent["type"][];

type NoticeEvent = Extract<LeaseEvent, { type: (typeof NOTICE_EVENT_TYPES)[number] }>;

const STATUS_OF: Record<NoticeEvent["type"], string> = {
  LeaseAmendmentSubmitted: "PENDING_VALIDATION",
  LeaseAmendmentValidated: "VALIDATED",
  LeaseAmendmentRejected: "REJECTED",
};

export const amendmentNoticesProjection = rowProjection<NoticeEvent>({
  name: "amendment_notices",
  version: 1,
  table: "amendment_notices",
  columns: ["tenant_id", "id", "lease_id", "amendment_id", "status", "reason", "occurred_at"],
  schema: `
CREATE TABLE amendment_notices (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  amendment_id uuid NOT NULL,
  status text NOT NULL,
  reason text,
  occurred_at timestamptz NOT NULL,
  handled_at timestamptz,
  handled text
);
CREATE INDEX amendment_notices_pending ON amendment_notices (occurred_at) WHERE handled_at IS NULL;
${tenantPolicy("amendment_notices")}`,
  handles: NOTICE_EVENT_TYPES,
  creates: NOTICE_EVENT_TYPES,
  idOf: (event) => event.event_id,
  evolve: (_row, event) => ({
    lease_id: event.data.lease_id,
    amendment_id: event.data.amendment_id,
    status: STATUS_OF[event.type],
    reason: event.data.reason,
    occurred_at: event.metadata.occurred_at,
  }),
});
