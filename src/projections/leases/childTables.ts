import {
  AMENDMENT_STATUS_OF_EVENT,
  isLeaseAmendmentEvent,
  isLeaseDocumentEvent,
  isLeaseStatusEvent,
  isLeaseTenantEvent,
  type LeaseAmendmentEvent,
  type LeaseDocumentEvent,
  type LeaseTenantEvent,
} from "../../events/leaseEventGroups.ts";
import { type LeaseEvent, leaseEventTypes } from "../../events/leases.ts";
import type { Sql } from "../../platform/db.ts";
import type { RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { eventsOf } from "../../platform/projections/projection.ts";
import { CHILD_TABLES } from "./tables.ts";

/**
 * The child tables of the leases read models (`lease_lessees`, `lease_rent_history`,
 * `lease_amendments`, `lease_documents`): what each lease event writes to them, after the
 * `leases` row (src/projections/leases.ts).
 */

/** One write to a child table. */
type Statement = [text: string, params: unknown[]];
type Recorded<T extends LeaseEvent["type"]> = RecordedEvent<Extract<LeaseEvent, { type: T }>>;

function tenantWrite(e: Recorded<LeaseTenantEvent>): Statement {
  const at = e.metadata.occurred_at;
  switch (e.type) {
    case "LeaseLesseeAdded": {
      const d = e.data;
      return [
        `INSERT INTO lease_lessees (tenant_id, id, lease_id, lessee_id, role, start_date, end_date, ended, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8, $8) ON CONFLICT (id) DO NOTHING`,
        [
          e.metadata.tenant_id,
          d.association_id,
          d.lease_id,
          d.lessee_id,
          d.role,
          d.start_date,
          d.end_date,
          at,
        ],
      ];
    }
    case "LeaseLesseeUpdated": {
      const c = e.data.changes;
      return [
        `UPDATE lease_lessees SET role = coalesce($3, role), start_date = coalesce($4::date, start_date),
           end_date = CASE WHEN $5 THEN $6::date ELSE end_date END, updated_at = $7
         WHERE lease_id = $1 AND lessee_id = $2`,
        [
          e.data.lease_id,
          e.data.lessee_id,
          c.role ?? null,
          c.start_date ?? null,
          "end_date" in c,
          c.end_date ?? null,
          at,
        ],
      ];
    }
    case "LeaseLesseeEnded":
      return [
        "UPDATE lease_lessees SET ended = true, end_date = $3, updated_at = $4 WHERE lease_id = $1 AND lessee_id = $2",
        [e.data.lease_id, e.data.lessee_id, e.data.ended_on, at],
      ];
    case "LeaseLesseeRemoved":
      return [
        "DELETE FROM lease_lessees WHERE lease_id = $1 AND lessee_id = $2",
        [e.data.lease_id, e.data.lessee_id],
      ];
  }
}

function amendmentWrite(e: Recorded<LeaseAmendmentEvent>): Statement {
  const at = e.metadata.occurred_at;
  switch (e.type) {
    case "LeaseAmendmentDrafted": {
      const d = e.data;
      return [
        `INSERT INTO lease_amendments (tenant_id, id, lease_id, title, effective_date, changes, reason, status,
           created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'DRAFT', $8, $8) ON CONFLICT (id) DO NOTHING`,
        [
          e.metadata.tenant_id,
          d.amendment_id,
          d.lease_id,
          d.title,
          d.effective_date,
          JSON.stringify(d.changes),
          d.reason,
          at,
        ],
      ];
    }
    case "LeaseAmendmentRevised": {
      const c = e.data.changes;
      return [
        `UPDATE lease_amendments SET title = coalesce($2, title), effective_date = coalesce($3::date, effective_date),
           changes = coalesce($4::jsonb, changes), reason = CASE WHEN $5 THEN $6 ELSE reason END, updated_at = $7
         WHERE id = $1`,
        [
          e.data.amendment_id,
          c.title ?? null,
          c.effective_date ?? null,
          c.changes ? JSON.stringify(c.changes) : null,
          "reason" in c,
          c.reason ?? null,
          at,
        ],
      ];
    }
    case "LeaseAmendmentDeleted":
      return ["DELETE FROM lease_amendments WHERE id = $1", [e.data.amendment_id]];
    case "LeaseAmendmentSubmitted":
    case "LeaseAmendmentValidated":
    case "LeaseAmendmentRejected":
    case "LeaseAmendmentCancelled":
      return [
        "UPDATE lease_amendments SET status = $2, status_reason = $3, updated_at = $4 WHERE id = $1",
        [e.data.amendment_id, AMENDMENT_STATUS_OF_EVENT[e.type], e.data.reason, at],
      ];
  }
}

function documentWrite(e: Recorded<LeaseDocumentEvent>): Statement {
  const at = e.metadata.occurred_at;
  switch (e.type) {
    case "LeaseDocumentAdded": {
      const { lease_id, document_id, ...d } = e.data;
      return [
        `INSERT INTO lease_documents (tenant_id, id, lease_id, document_type, description, filename, content_type,
           size, sha256, blob_key, created_at, updated_at, amendment_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12) ON CONFLICT (id) DO NOTHING`,
        [
          e.metadata.tenant_id,
          document_id,
          lease_id,
          d.document_type,
          d.description,
          d.filename,
          d.content_type,
          d.size,
          d.sha256,
          d.blob_key,
          at,
          // Documents recorded before amendments had any carry none: the lease's own.
          d.amendment_id ?? null,
        ],
      ];
    }
    case "LeaseDocumentUpdated": {
      const c = e.data.changes;
      return [
        `UPDATE lease_documents SET document_type = coalesce($2, document_type),
           description = CASE WHEN $3 THEN $4 ELSE description END, updated_at = $5 WHERE id = $1`,
        [e.data.document_id, c.document_type ?? null, "description" in c, c.description ?? null, at],
      ];
    }
    case "LeaseDocumentDeleted":
      return ["DELETE FROM lease_documents WHERE id = $1", [e.data.document_id]];
  }
}

function rentHistoryWrite(e: Recorded<"LeaseRentChanged">): Statement {
  const d = e.data;
  return [
    `INSERT INTO lease_rent_history (tenant_id, id, lease_id, rent_amount, charges_amount, previous_rent_amount,
       previous_charges_amount, effective_date, reason, index, revision, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
    [
      e.metadata.tenant_id,
      e.event_id,
      d.lease_id,
      d.rent_amount,
      d.charges_amount,
      d.previous_rent_amount,
      d.previous_charges_amount,
      d.effective_date,
      d.reason,
      d.index === null ? null : JSON.stringify(d.index),
      Number(e.stream_revision),
      e.metadata.occurred_at,
    ],
  ];
}

/** What an event writes to the child tables: exhaustive, so a new event type is placed here too. */
function childWrites(e: RecordedEvent<LeaseEvent>): Statement[] {
  // A status change is the row's own columns (evolveLeaseRow); no child table changes.
  if (isLeaseStatusEvent(e)) return [];
  if (isLeaseTenantEvent(e)) return [tenantWrite(e)];
  if (isLeaseAmendmentEvent(e)) return [amendmentWrite(e)];
  if (isLeaseDocumentEvent(e)) return [documentWrite(e)];
  switch (e.type) {
    case "LeaseRentChanged":
      return [rentHistoryWrite(e)];
    case "LeaseDeleted":
      return CHILD_TABLES.map((table) => [`DELETE FROM ${table} WHERE lease_id = $1`, [e.data.lease_id]]);
    // The row's own columns (evolveLeaseRow); no child table changes.
    case "LeaseCreated":
    case "LeaseUpdated":
    case "LeaseRenewed":
    case "LeaseAmended":
    case "LeaseComplianceChecked":
      return [];
    default: {
      const unwritten: never = e;
      return unwritten;
    }
  }
}

export async function afterLeases(tx: Sql, events: RecordedEvent[]): Promise<void> {
  // Writes only: held and sent together in a projector batch (db.ts `deferred`).
  for (const recorded of eventsOf<LeaseEvent>(events, leaseEventTypes))
    for (const [text, params] of childWrites(recorded)) await tx.query(text, params, { deferred: true });
}
