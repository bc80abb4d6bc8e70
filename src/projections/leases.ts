import { createHash } from "node:crypto";
import { z } from "zod";
import {
  AMENDMENT_STATUS_OF_EVENT,
  LEASE_TERM_FIELDS,
  type LeaseEvent,
  type LeaseTerms,
  leaseEventTypes,
  STATUS_OF_EVENT,
  statusesAfter,
} from "../events/leases.ts";
import {
  ABSENT_LEASE,
  evolveLease,
  isLiveLease,
  LEASE_STATUS_COLUMNS,
  type LeaseView,
} from "../events/leaseView.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  eventsOf,
  type Projection,
  type Row,
  type RowProjection,
  rowProjection,
  statementStamp,
  tenantPolicy,
} from "../platform/projections/projection.ts";
import { createLeaseSchema } from "../queries/leasesSchemas.ts";

/**
 * The leases read models:
 * - `leases`: one row per live lease (terms, status, status dates, revision for the ETag);
 * - `lease_lessees`: one row per lease-lessee association (its term and whether it ended);
 * - `lease_rent_history`: one row per LeaseRentChanged;
 * - `lease_amendments`: one row per amendment not deleted (the log keeps deleted ones);
 * - `lease_documents`: one row per document not deleted (metadata; bytes in the blob store).
 * The estates projection (estate_lease_status, rental_status, src/projections/estates.ts) and
 * the lessees' active-lease model (`feedLesseeActiveLeases`) read the same events.
 */
export const LEASE_COLUMNS = [
  "tenant_id",
  "id",
  ...LEASE_TERM_FIELDS,
  ...LEASE_STATUS_COLUMNS,
  "revision",
  "created_at",
  "updated_at",
] as const;

/** Unwraps optional, nullable: the type of the value and whether it may be absent. */
function unwrapped(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, optional };
}

/** A term's column from the schema a create takes it with: uuid, date, text, integer, numeric or jsonb. */
function termColumn(field: (typeof LEASE_TERM_FIELDS)[number]): string {
  const { inner, optional } = unwrapped(createLeaseSchema.shape[field]);
  const format = (inner as { format?: string | null }).format;
  const type =
    inner.def.type === "number"
      ? format === "safeint"
        ? "integer"
        : "numeric"
      : inner.def.type === "record"
        ? "jsonb"
        : format === "guid"
          ? "uuid"
          : format === "date"
            ? "date"
            : "text";
  return `  ${field} ${type}${optional ? "" : " NOT NULL"},`;
}

/** The terms' columns follow LEASE_TERM_FIELDS and the create schema: a new term needs no DDL here. */
const termColumns = LEASE_TERM_FIELDS.map(termColumn).join("\n");

const schema = `
CREATE TABLE leases (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
${termColumns}
  status text NOT NULL,
  rent_regulation_compliance_status text NOT NULL,
  signed_at date,
  notice_date date,
  notice_end_date date,
  terminated_at date,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX leases_tenant_order ON leases (tenant_id, created_at, id);
CREATE INDEX leases_estate ON leases (tenant_id, estate_id, created_at, id);
CREATE INDEX leases_status ON leases (tenant_id, status, created_at, id);
CREATE INDEX leases_expiry ON leases (end_date) WHERE status = 'ACTIVE';
${tenantPolicy("leases")}

CREATE TABLE lease_lessees (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  lessee_id uuid NOT NULL,
  role text NOT NULL,
  start_date date NOT NULL,
  end_date date,
  ended boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (lease_id, lessee_id)
);
CREATE INDEX lease_lessees_lessee ON lease_lessees (tenant_id, lessee_id);
${tenantPolicy("lease_lessees")}

CREATE TABLE lease_rent_history (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  rent_amount numeric NOT NULL,
  charges_amount numeric,
  previous_rent_amount numeric NOT NULL,
  previous_charges_amount numeric,
  effective_date date NOT NULL,
  reason text NOT NULL,
  index jsonb,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX lease_rent_history_lease ON lease_rent_history (tenant_id, lease_id, revision);
${tenantPolicy("lease_rent_history")}

CREATE TABLE lease_amendments (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  title text NOT NULL,
  effective_date date NOT NULL,
  changes jsonb NOT NULL,
  reason text,
  status text NOT NULL,
  status_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_amendments_lease ON lease_amendments (tenant_id, lease_id, created_at, id);
${tenantPolicy("lease_amendments")}

CREATE TABLE lease_documents (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  amendment_id uuid,
  document_type text NOT NULL,
  description text,
  filename text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lease_documents_lease ON lease_documents (tenant_id, lease_id, created_at, id);
CREATE INDEX lease_documents_amendment ON lease_documents (tenant_id, lease_id, amendment_id) WHERE amendment_id IS NOT NULL;
${tenantPolicy("lease_documents")}`;

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

/** One write to a child table. */
type Statement = [text: string, params: unknown[]];
type Recorded<T extends LeaseEvent["type"]> = RecordedEvent<Extract<LeaseEvent, { type: T }>>;

type TenantEvent = "LeaseLesseeAdded" | "LeaseLesseeUpdated" | "LeaseLesseeEnded" | "LeaseLesseeRemoved";

function tenantWrite(e: Recorded<TenantEvent>): Statement {
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

type AmendmentEvent =
  | "LeaseAmendmentDrafted"
  | "LeaseAmendmentRevised"
  | "LeaseAmendmentDeleted"
  | "LeaseAmendmentSubmitted"
  | "LeaseAmendmentValidated"
  | "LeaseAmendmentRejected"
  | "LeaseAmendmentCancelled";

function amendmentWrite(e: Recorded<AmendmentEvent>): Statement {
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

type DocumentEvent = "LeaseDocumentAdded" | "LeaseDocumentUpdated" | "LeaseDocumentDeleted";

function documentWrite(e: Recorded<DocumentEvent>): Statement {
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

const CHILD_TABLES = ["lease_lessees", "lease_rent_history", "lease_amendments", "lease_documents"];

/** What an event writes to the child tables: exhaustive, so a new event type is placed here too. */
function childWrites(e: RecordedEvent<LeaseEvent>): Statement[] {
  switch (e.type) {
    case "LeaseLesseeAdded":
    case "LeaseLesseeUpdated":
    case "LeaseLesseeEnded":
    case "LeaseLesseeRemoved":
      return [tenantWrite(e)];
    case "LeaseAmendmentDrafted":
    case "LeaseAmendmentRevised":
    case "LeaseAmendmentDeleted":
    case "LeaseAmendmentSubmitted":
    case "LeaseAmendmentValidated":
    case "LeaseAmendmentRejected":
    case "LeaseAmendmentCancelled":
      return [amendmentWrite(e)];
    case "LeaseDocumentAdded":
    case "LeaseDocumentUpdated":
    case "LeaseDocumentDeleted":
      return [documentWrite(e)];
    case "LeaseRentChanged":
      return [rentHistoryWrite(e)];
    case "LeaseDeleted":
      return CHILD_TABLES.map((table) => [`DELETE FROM ${table} WHERE lease_id = $1`, [e.data.lease_id]]);
    // The row's own columns (evolveLeaseRow); no child table changes.
    case "LeaseCreated":
    case "LeaseUpdated":
    case "LeaseSentForSignature":
    case "LeaseReturnedToDraft":
    case "LeaseActivated":
    case "LeaseNoticeGiven":
    case "LeaseNoticeWithdrawn":
    case "LeaseFinalisationStarted":
    case "LeaseTerminated":
    case "LeaseExpired":
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

async function afterLeases(tx: Sql, events: RecordedEvent[]): Promise<void> {
  // Writes only: held and sent together in a projector batch (db.ts `deferred`).
  for (const recorded of eventsOf<LeaseEvent>(events, leaseEventTypes))
    for (const [text, params] of childWrites(recorded)) await tx.query(text, params, { deferred: true });
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

/** The lessees' active-lease model's version, also in its prepared statements' text (see estates.ts). */
const LINKS_VERSION = 2;
const linksStamp = statementStamp("lesseeLeaseLinks", LINKS_VERSION);

/** Lease events the lessees' active-lease model reads. */
export const LESSEE_LINK_EVENT_TYPES = [
  "LeaseLesseeAdded",
  "LeaseLesseeEnded",
  "LeaseLesseeUpdated",
  "LeaseLesseeRemoved",
  "LeaseDeleted",
  ...Object.keys(STATUS_OF_EVENT),
];

/** The links of one batch, keyed as PostgreSQL compares uuids (case-insensitively), and what changed. */
function linkSet(loaded: LesseeLinkRow[]) {
  const key = (id: string) => id.toLowerCase();
  const rows = new Map<string, LesseeLinkRow>();
  const byLease = new Map<string, Set<LesseeLinkRow>>();
  const changed = new Set<LesseeLinkRow>();
  const put = (r: LesseeLinkRow) => {
    rows.set(key(r.id), r);
    const lease = byLease.get(key(r.lease_id)) ?? new Set();
    byLease.set(key(r.lease_id), lease.add(r));
  };
  for (const r of loaded) put(r);
  return {
    has: (id: string) => rows.has(key(id)),
    changed,
    add(r: LesseeLinkRow) {
      put(r);
      changed.add(r);
    },
    ofLease: (leaseId: string, lesseeId?: string) =>
      [...(byLease.get(key(leaseId)) ?? [])].filter(
        (r) => lesseeId === undefined || key(r.lessee_id) === key(lesseeId),
      ),
    update(targets: LesseeLinkRow[], change: Partial<LesseeLinkRow>) {
      for (const r of targets) {
        Object.assign(r, change);
        changed.add(r);
      }
    },
    remove(targets: LesseeLinkRow[]) {
      for (const r of targets) {
        rows.delete(key(r.id));
        byLease.get(key(r.lease_id))?.delete(r);
        changed.delete(r);
      }
    },
  };
}

/** One lease event folded into the batch's links: exhaustive, so a new event type is placed here too. */
function foldLink(links: ReturnType<typeof linkSet>, event: RecordedEvent<LeaseEvent>): void {
  switch (event.type) {
    case "LeaseLesseeAdded": {
      const d = event.data;
      if (links.has(d.association_id)) return;
      // A tenant added later shares the lease's current status, which its other rows carry.
      links.add({
        tenant_id: event.metadata.tenant_id,
        id: d.association_id,
        lessee_id: d.lessee_id,
        lease_id: d.lease_id,
        role: d.role,
        lease_status: links.ofLease(d.lease_id)[0]?.lease_status ?? "DRAFT",
        ended: false,
      });
      return;
    }
    case "LeaseLesseeUpdated":
      if (event.data.changes.role)
        links.update(links.ofLease(event.data.lease_id, event.data.lessee_id), {
          role: event.data.changes.role,
        });
      return;
    case "LeaseLesseeEnded":
      links.update(links.ofLease(event.data.lease_id, event.data.lessee_id), { ended: true });
      return;
    case "LeaseLesseeRemoved":
      links.remove(links.ofLease(event.data.lease_id, event.data.lessee_id));
      return;
    case "LeaseDeleted":
      links.remove(links.ofLease(event.data.lease_id));
      return;
    case "LeaseSentForSignature":
    case "LeaseReturnedToDraft":
    case "LeaseActivated":
    case "LeaseNoticeGiven":
    case "LeaseNoticeWithdrawn":
    case "LeaseFinalisationStarted":
    case "LeaseTerminated":
    case "LeaseExpired":
      links.update(links.ofLease(event.data.lease_id), { lease_status: STATUS_OF_EVENT[event.type] });
      return;
    // Not a link's concern (and not in LESSEE_LINK_EVENT_TYPES).
    case "LeaseCreated":
    case "LeaseUpdated":
    case "LeaseRenewed":
    case "LeaseRentChanged":
    case "LeaseAmendmentDrafted":
    case "LeaseAmendmentRevised":
    case "LeaseAmendmentDeleted":
    case "LeaseAmendmentSubmitted":
    case "LeaseAmendmentValidated":
    case "LeaseAmendmentRejected":
    case "LeaseAmendmentCancelled":
    case "LeaseAmended":
    case "LeaseDocumentAdded":
    case "LeaseDocumentUpdated":
    case "LeaseDocumentDeleted":
    case "LeaseComplianceChecked":
      return;
    default: {
      const unfolded: never = event;
      throw new Error(`Unfolded lease event ${JSON.stringify(unfolded)}`);
    }
  }
}

/** Only status changes (most live batches): set in SQL without reading the rows. */
async function setLinkStatuses(tx: Sql, tenants: string[], last: Map<string, string>) {
  await tx.query(
    `UPDATE lessee_active_leases l SET lease_status = v.status
     FROM unnest($2::uuid[], $3::text[]) AS v(lease_id, status)
     WHERE l.tenant_id = ANY($1::uuid[]) AND l.lease_id = v.lease_id ${linksStamp}`,
    [tenants, [...last.keys()], [...last.values()]],
    { prepare: true, deferred: true },
  );
}

/** One delete of the links gone, one upsert of those changed. */
async function writeLinks(tx: Sql, loaded: LesseeLinkRow[], links: ReturnType<typeof linkSet>) {
  const gone = loaded.filter((r) => !links.has(r.id)).map((r) => r.id);
  if (gone.length > 0)
    await tx.query("DELETE FROM lessee_active_leases WHERE id = ANY($1::uuid[])", [gone], { deferred: true });
  const upserts = [...links.changed];
  if (upserts.length === 0) return;
  await tx.query(
    `INSERT INTO lessee_active_leases (tenant_id, id, lessee_id, lease_id, role, lease_status, ended)
     SELECT tenant_id, id, lessee_id, lease_id, role, lease_status, ended
     FROM jsonb_populate_recordset(NULL::lessee_active_leases, $1::jsonb)
     ON CONFLICT (id) DO UPDATE SET role = excluded.role, lease_status = excluded.lease_status,
       ended = excluded.ended ${linksStamp}`,
    [JSON.stringify(upserts)],
    { prepare: true, deferred: true },
  );
}

/**
 * Keeps `lessee_active_leases` (owned by the lessees area) in step with lease events. Per batch:
 * one read of the rows of the leases it names, the events folded in memory in log order, one
 * delete and one upsert (docs/performance.md).
 */
export async function feedLesseeActiveLeases(tx: Sql, events: RecordedEvent[]): Promise<void> {
  const leaseEvents = eventsOf<LeaseEvent>(events, leaseEventTypes).filter((e) =>
    LESSEE_LINK_EVENT_TYPES.includes(e.type),
  );
  if (leaseEvents.length === 0) return;
  const tenants = [...new Set(leaseEvents.map((e) => e.metadata.tenant_id))];
  const last = statusesAfter(leaseEvents);
  if (last) {
    await setLinkStatuses(tx, tenants, last);
    return;
  }
  const leaseIds = [...new Set(leaseEvents.map((e) => e.data.lease_id))];
  const associationIds = leaseEvents.flatMap((e) =>
    e.type === "LeaseLesseeAdded" ? e.data.association_id : [],
  );
  // The tenants too, so the (tenant_id, lease_id) index serves the lease ids.
  const loaded = await tx.query<LesseeLinkRow>(
    `SELECT tenant_id, id, lessee_id, lease_id, role, lease_status, ended FROM lessee_active_leases
     WHERE (tenant_id = ANY($3::uuid[]) AND lease_id = ANY($1::uuid[])) OR id = ANY($2::uuid[]) ${linksStamp}`,
    [leaseIds, associationIds, tenants],
    { prepare: true },
  );
  const links = linkSet(loaded);
  for (const event of leaseEvents) foldLink(links, event);
  await writeLinks(tx, loaded, links);
}

interface LesseeLinkRow {
  tenant_id: string;
  id: string;
  lessee_id: string;
  lease_id: string;
  role: string;
  lease_status: string;
  ended: boolean;
}

/**
 * Which lessees are on which leases: fed by the leases area's events (`feedLesseeActiveLeases`),
 * read by lessee deletes. One row per lease-lessee association (`id` is the association's id).
 */
export const lesseeLeaseLinksProjection: Projection = {
  name: "lesseeLeaseLinks",
  version: LINKS_VERSION,
  tables: ["lessee_active_leases"],
  schema: `
CREATE TABLE lessee_active_leases (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lessee_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  role text NOT NULL,
  lease_status text NOT NULL,
  ended boolean NOT NULL DEFAULT false
);
CREATE INDEX lessee_active_leases_lessee ON lessee_active_leases (tenant_id, lessee_id);
CREATE INDEX lessee_active_leases_lease ON lessee_active_leases (tenant_id, lease_id);
${tenantPolicy("lessee_active_leases")}`,
  handles: LESSEE_LINK_EVENT_TYPES,
  applyBatch: feedLesseeActiveLeases,
};

/** Registered in src/areas.ts. */
export const leaseProjections: Projection[] = [leasesProjection, lesseeLeaseLinksProjection];
