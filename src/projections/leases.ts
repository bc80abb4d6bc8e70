import { createHash } from "node:crypto";
import { LEASE_TERM_FIELDS, type LeaseEvent, type LeaseTerms, leaseEventTypes } from "../events/leases.ts";
import {
  ABSENT_LEASE,
  evolveLease,
  isLiveLease,
  LEASE_STATUS_COLUMNS,
  type LeaseView,
} from "../events/leaseView.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  type RowProjection,
  rowProjection,
} from "../platform/projections/projection.ts";
import { afterLeases } from "./leases/childTables.ts";
import { lesseeLeaseLinksProjection } from "./leases/lesseeLinks.ts";
import { CHILD_TABLES, LEASE_COLUMNS, LEASES_SCHEMA as schema } from "./leases/tables.ts";

/**
 * The leases read models:
 * - `leases`: one row per live lease (terms, status, status dates, revision for the ETag);
 * - `lease_lessees`: one row per lease-lessee association (its term and whether it ended);
 * - `lease_rent_history`: one row per LeaseRentChanged;
 * - `lease_amendments`: one row per amendment not deleted (the log keeps deleted ones);
 * - `lease_documents`: one row per document not deleted (metadata; bytes in the blob store).
 * The estates projection (estate_lease_status, rental_status, src/projections/estates.ts) and
 * the lessees' active-lease model (`feedLesseeActiveLeases`) read the same events.
 *
 * Here the `leases` row; in src/projections/leases/: the tables (`tables.ts`), the child tables'
 * writes (`childTables.ts`), the lessees' active-lease model (`lesseeLinks.ts`).
 */
/** The view a `leases` row holds: its columns; the tenants, amendments and documents are child tables. */
function viewOfRow(row: Row): LeaseView {
  const terms: Record<string, unknown> = {};
  for (const f of LEASE_TERM_FIELDS) terms[f] = row[f];
  return {
    status: row.status as LeaseView["status"],
    terms: terms as unknown as LeaseTerms,
    rent_regulation_compliance_status:
      row.rent_regulation_compliance_status as LeaseView["rent_regulation_compliance_status"],
    signed_at: row.signed_at as string | null,
    notice_date: row.notice_date as string | null,
    notice_end_date: row.notice_end_date as string | null,
    // Not a column: only the decider's termination reads it.
    notice_given_by: null,
    terminated_at: row.terminated_at as string | null,
    lessees: {},
    amendments: {},
    documents: {},
  };
}

/**
 * The view each row this fold made came from: the next event folds it without rebuilding it from
 * the row's columns (rows are kept between live batches and never changed once made).
 */
const viewOfMadeRow = new WeakMap<Row, LeaseView>();

/** Every column, null: a new row starts as a copy of it, so rows share one shape (fast to copy). */
const EMPTY_ROW: Row = Object.fromEntries(LEASE_COLUMNS.map((c) => [c, null]));

/**
 * The lease row after one event; null deletes it: the lease's one fold (src/events/leaseView.ts)
 * on the row's columns, stamped with the event's revision (the ETag) and instant. The row is a copy
 * of the one before with the view's columns written over it: terms only when they changed.
 */
export function evolveLeaseRow(row: Row | null, recorded: RecordedEvent<LeaseEvent>): Row | null {
  const creates = recorded.type === "LeaseCreated";
  const before = creates || !row ? ABSENT_LEASE : (viewOfMadeRow.get(row) ?? viewOfRow(row));
  const after = evolveLease(before, recorded);
  if (!isLiveLease(after)) return null;
  const at = recorded.metadata.occurred_at;
  const made: Row = { ...(creates || !row ? EMPTY_ROW : row) };
  if (creates) {
    // Its keys as the projection keys it (tenant, the events' lease_id), so the row is kept as made.
    made.tenant_id = recorded.metadata.tenant_id;
    made.id = recorded.data.lease_id;
    made.created_at = at;
  }
  if (!isLiveLease(before) || after.terms !== before.terms)
    for (const f of LEASE_TERM_FIELDS) made[f] = after.terms[f];
  for (const c of LEASE_STATUS_COLUMNS) made[c] = after[c];
  made.revision = Number(recorded.stream_revision);
  made.updated_at = at;
  viewOfMadeRow.set(made, after);
  return made;
}

export const leasesProjection: RowProjection = rowProjection<LeaseEvent>({
  name: "leases",
  // The table's text is in it: a new term (or column) is a new version, rebuilt from the log.
  version: Number.parseInt(
    createHash("sha256")
      .update(`leases 2 (2: lease_documents.amendment_id)\n${schema}`)
      .digest("hex")
      .slice(0, 7),
    16,
  ),
  table: "leases",
  extraTables: CHILD_TABLES,
  columns: LEASE_COLUMNS,
  schema,
  handles: leaseEventTypes,
  idOf: (event) => (event.data as { lease_id?: string }).lease_id ?? null,
  evolve: evolveLeaseRow,
  // A create ignores the row it is given: a live batch does not read the row first.
  creates: ["LeaseCreated"],
  after: afterLeases,
  // Only this projection writes `leases`, and evolveLeaseRow builds new rows: a lease's row is
  // kept between live batches, so a status change reads nothing (docs/performance.md).
  keepRows: true,
});

export { lesseeLeaseLinksProjection };

/** Registered in src/areas.ts. */
export const leaseProjections: Projection[] = [leasesProjection, lesseeLeaseLinksProjection];
