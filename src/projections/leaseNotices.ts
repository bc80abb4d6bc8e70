import type { LeaseEvent } from "../events/leases.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `lease_notices`: one row per lease with its notices in order (docs/moving.md "Notices"), from
 * LeaseNoticeGiven however given (POST .../notices or PUT .../status) and LeaseNoticeWithdrawn,
 * which withdraws the notice in force. A notice given through the status route before notices had
 * ids is named by its event's id.
 */
const NOTICE_EVENTS = [
  "LeaseNoticeGiven",
  "LeaseNoticeWithdrawn",
] as const satisfies readonly LeaseEvent["type"][];
type NoticeEvent = Extract<LeaseEvent, { type: (typeof NOTICE_EVENTS)[number] }>;

export interface NoticeRow {
  id: string;
  lease_id: string;
  given_by: "LESSEE" | "LESSOR";
  received_on: string;
  reason: string | null;
  notice_end_date: string | null;
  sale_offer_until?: string | null;
  solidarity_ends_on?: string | null;
  status: "IN_FORCE" | "WITHDRAWN";
  recorded_at: string;
}

export const leaseNoticesProjection = rowProjection<NoticeEvent>({
  name: "lease_notices",
  version: 1,
  table: "lease_notices",
  columns: ["tenant_id", "id", "notices"],
  schema: `
CREATE TABLE lease_notices (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  notices jsonb NOT NULL
);
${tenantPolicy("lease_notices")}`,
  handles: NOTICE_EVENTS,
  idOf: (event) => event.data.lease_id,
  evolve(row, event) {
    const notices = (row?.notices ?? []) as NoticeRow[];
    switch (event.type) {
      case "LeaseNoticeGiven": {
        const d = event.data;
        const notice: NoticeRow = {
          id: d.notice_id ?? event.event_id,
          lease_id: d.lease_id,
          given_by: d.given_by ?? "LESSEE",
          received_on: d.effective_date,
          reason: d.reason,
          notice_end_date: d.notice_end_date ?? null,
          sale_offer_until: d.sale_offer_until ?? null,
          solidarity_ends_on: d.solidarity_ends_on ?? null,
          status: "IN_FORCE",
          recorded_at: event.metadata.occurred_at,
        };
        return { notices: [...notices, notice] };
      }
      case "LeaseNoticeWithdrawn":
        if (!row) return null;
        return {
          notices: notices.map((n) => (n.status === "IN_FORCE" ? { ...n, status: "WITHDRAWN" } : n)),
        };
    }
  },
});
