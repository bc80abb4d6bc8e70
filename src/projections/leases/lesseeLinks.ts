import {
  isLeaseStatusEvent,
  LEASE_STATUS_EVENTS,
  LEASE_STATUS_OF_EVENT,
} from "../../events/leaseEventGroups.ts";
import { type LeaseEvent, leaseEventTypes, statusesAfter } from "../../events/leases.ts";
import type { Sql } from "../../platform/db.ts";
import type { RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import {
  eventsOf,
  type Projection,
  statementStamp,
  tenantPolicy,
} from "../../platform/projections/projection.ts";

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
  ...LEASE_STATUS_EVENTS,
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
  if (isLeaseStatusEvent(event)) {
    links.update(links.ofLease(event.data.lease_id), { lease_status: LEASE_STATUS_OF_EVENT[event.type] });
    return;
  }
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
