import { ESTATE_CONTRACT_FIELDS, type EstateEvent, estateEventTypes } from "../events/estates.ts";
import {
  isLeaseStatusEvent,
  LEASE_STATUS_EVENTS,
  LEASE_STATUS_OF_EVENT,
} from "../events/leaseEventGroups.ts";
import { type LeaseEvent, leaseEventTypes, STATUS_OF_EVENT, statusesAfter } from "../events/leases.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  eventsOf,
  type Projection,
  type Row,
  rowProjection,
  statementStamp,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/**
 * The estates read models:
 * - `estates`: one row per live estate. `reference_rent_amount` is the rent the landlord set;
 *   `rental_status` and `rent_amount` are derived from `estate_lease_status` by
 *   `syncRentalState` (RENTED if a lease is ACTIVE, else NOTICE if one is in NOTICE or
 *   FINALISATION, else VACANT; the rent of that lease, else the reference rent).
 *   The current_dpe_* columns exist for the energy-diagnosis area; this projection never writes them.
 * - `estate_ownership_transfers`: one row per EstateOwnershipTransferred.
 * - `estate_lease_status`: one row per lease of an estate (status, current rent), fed from the
 *   lease events by `feedEstateLeaseStatus` (src/projections/leases.ts).
 */
export const estateColumns = [
  "tenant_id",
  "id",
  "place_id",
  "name",
  "estate_type_id",
  "area",
  "number_of_room",
  "orientation",
  "building",
  "floor",
  "owner_id",
  "previous_owner_id",
  "lot_number",
  "fiscal_identifier",
  "housing_tax",
  "property_tax",
  "acquisition_price",
  "reference_rent_amount",
  "construction_date",
  "renovation_date",
  "address",
  "other_detail",
  ...ESTATE_CONTRACT_FIELDS,
  "revision",
  "created_at",
  "updated_at",
] as const;

const schema = `
CREATE TABLE estates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  name text NOT NULL,
  estate_type_id uuid NOT NULL,
  area numeric NOT NULL,
  number_of_room integer,
  orientation text,
  building text,
  floor integer,
  owner_id uuid,
  previous_owner_id uuid,
  lot_number text,
  fiscal_identifier text NOT NULL,
  housing_tax numeric,
  property_tax numeric,
  acquisition_price numeric,
  reference_rent_amount numeric,
  rent_amount numeric,
  rental_status text NOT NULL DEFAULT 'VACANT',
  construction_date timestamptz,
  renovation_date timestamptz,
  address text,
  other_detail text,
  legal_regime text,
  heating jsonb,
  hot_water jsonb,
  private_parts jsonb,
  common_parts jsonb,
  it_access jsonb,
  current_dpe_id uuid,
  current_dpe_energy_label text,
  current_dpe_ges_label text,
  current_dpe_diagnosis_date date,
  current_dpe_valid_until date,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX estates_tenant_order ON estates (tenant_id, created_at, id);
CREATE INDEX estates_place ON estates (tenant_id, place_id, created_at, id);
CREATE INDEX estates_owner ON estates (tenant_id, owner_id);
${tenantPolicy("estates")}

CREATE TABLE estate_ownership_transfers (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  previous_owner_id uuid,
  new_owner_id uuid,
  transferred_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX estate_ownership_transfers_estate ON estate_ownership_transfers (tenant_id, estate_id, revision);
${tenantPolicy("estate_ownership_transfers")}

CREATE TABLE estate_lease_status (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  status text NOT NULL,
  rent_amount numeric
);
CREATE INDEX estate_lease_status_estate ON estate_lease_status (tenant_id, estate_id);
${tenantPolicy("estate_lease_status")}`;

/** Lease events that change an estate's rental state. */
export const ESTATE_STATUS_EVENT_TYPES = [
  "LeaseCreated",
  "LeaseUpdated",
  "LeaseDeleted",
  "LeaseRentChanged",
  ...LEASE_STATUS_EVENTS,
];

/** The estates projection's version, also in the text of the lease feed's statements. */
const ESTATES_VERSION = 3;
const estatesStamp = statementStamp("estates", ESTATES_VERSION);

const estateRows = rowProjection<EstateEvent>({
  name: "estates",
  version: ESTATES_VERSION,
  table: "estates",
  extraTables: ["estate_ownership_transfers", "estate_lease_status"],
  columns: estateColumns,
  schema,
  handles: estateEventTypes,
  idOf: (event) => event.data.estate_id,
  evolve: evolveEstate,
  // A create ignores the row it is given: a live batch does not read the row first.
  creates: ["EstateCreated"],
  after: afterEstates,
});

/** The estate rows, and their rental state following the lease events. */
export const estatesProjection: Projection = {
  ...estateRows,
  handles: [...estateEventTypes, ...ESTATE_STATUS_EVENT_TYPES],
};

function evolveEstate(row: Row | null, event: RecordedEvent<EstateEvent>): Row | null {
  const stamp = { revision: Number(event.stream_revision), updated_at: event.metadata.occurred_at };
  switch (event.type) {
    case "EstateCreated": {
      const { estate_id: _, rent_amount, ...fields } = event.data;
      return {
        ...fields,
        reference_rent_amount: rent_amount,
        previous_owner_id: null,
        created_at: event.metadata.occurred_at,
        ...stamp,
      };
    }
    case "EstateUpdated": {
      if (!row) return row;
      const { rent_amount, ...changes } = event.data.changes;
      return {
        ...row,
        ...changes,
        ...(rent_amount !== undefined ? { reference_rent_amount: rent_amount } : {}),
        ...stamp,
      };
    }
    case "EstateMoved":
      return row && { ...row, place_id: event.data.to_place_id, ...stamp };
    case "EstateOwnershipTransferred":
      return (
        row && {
          ...row,
          owner_id: event.data.new_owner_id,
          previous_owner_id: event.data.previous_owner_id ?? row.previous_owner_id,
          ...stamp,
        }
      );
    case "EstateDeleted":
      return null;
    default:
      return row;
  }
}

async function afterEstates(tx: Sql, batch: RecordedEvent[]): Promise<void> {
  const events = eventsOf<EstateEvent>(batch, estateEventTypes);
  const transfers = events.flatMap((e) =>
    e.type !== "EstateOwnershipTransferred"
      ? []
      : {
          tenant_id: e.metadata.tenant_id,
          id: e.event_id,
          estate_id: e.data.estate_id,
          previous_owner_id: e.data.previous_owner_id,
          new_owner_id: e.data.new_owner_id,
          transferred_at: e.data.transferred_at,
          revision: Number(e.stream_revision),
        },
  );
  if (transfers.length > 0) {
    await tx.query(
      `INSERT INTO estate_ownership_transfers
       SELECT * FROM jsonb_populate_recordset(NULL::estate_ownership_transfers, $1::jsonb)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(transfers)],
      { deferred: true },
    );
  }
  const deleted = events.flatMap((e) => (e.type === "EstateDeleted" ? e.data.estate_id : []));
  if (deleted.length > 0) {
    await tx.query("DELETE FROM estate_ownership_transfers WHERE estate_id = ANY($1::uuid[])", [deleted], {
      deferred: true,
    });
  }
  const touched = events.flatMap((e) =>
    e.type === "EstateCreated" || e.type === "EstateUpdated" ? e.data.estate_id : [],
  );
  touched.push(...(await feedEstateLeaseStatus(tx, batch)));
  if (touched.length > 0) await syncRentalState(tx, [...new Set(touched)]);
}

/**
 * Recomputes rental_status and rent_amount of the given estates from estate_lease_status
 * (docs/architecture.md §6 Estates). Whoever writes estate_lease_status calls it for the estates touched.
 */
export async function syncRentalState(tx: Sql, estateIds: string[]): Promise<void> {
  await tx.query(rentalStateSql("x.id = ANY($1::uuid[])"), [estateIds], { prepare: true, deferred: true });
}

/** `syncRentalState` for the estates of the given leases' rows in estate_lease_status. */
async function syncRentalStateOfLeases(tx: Sql, leaseIds: string[]): Promise<void> {
  await tx.query(
    rentalStateSql("x.id IN (SELECT s.estate_id FROM estate_lease_status s WHERE s.id = ANY($1::uuid[]))"),
    [leaseIds],
    { prepare: true, deferred: true },
  );
}

const rentalStateSql = (estates: string) =>
  `UPDATE estates e
     SET rental_status = CASE l.status WHEN 'ACTIVE' THEN 'RENTED' WHEN 'NOTICE' THEN 'NOTICE'
                                       WHEN 'FINALISATION' THEN 'NOTICE' ELSE 'VACANT' END,
         rent_amount = CASE WHEN l.status IS NULL THEN e.reference_rent_amount
                            ELSE coalesce(l.rent_amount, e.reference_rent_amount) END
     FROM estates x
     LEFT JOIN LATERAL (
       SELECT s.status, s.rent_amount FROM estate_lease_status s
       WHERE s.tenant_id = x.tenant_id AND s.estate_id = x.id
         AND s.status IN ('ACTIVE', 'NOTICE', 'FINALISATION')
       ORDER BY (s.status = 'ACTIVE') DESC
       LIMIT 1
     ) l ON true
     WHERE e.id = x.id AND ${estates} ${estatesStamp}`;

/**
 * Keeps `estate_lease_status` (owned by the estates projection) in step with lease events, one
 * row per lease keyed by the lease id. Per batch: one read of the leases it names, the events
 * folded in memory in log order, one delete and one upsert (docs/performance.md). Returns the
 * estates whose rental state must be recomputed (a lease's estate before and after a change);
 * a batch of status changes only recomputes its estates itself (by lease id, no rows read) and
 * returns none.
 */
export async function feedEstateLeaseStatus(tx: Sql, events: RecordedEvent[]): Promise<string[]> {
  const leaseEvents = eventsOf<LeaseEvent>(events, leaseEventTypes).filter(
    (e) => e.type in STATUS_OF_EVENT || ESTATE_STATUS_EVENT_TYPES.includes(e.type),
  );
  if (leaseEvents.length === 0) return [];
  // Only status changes (most live batches): set in SQL without reading the rows, and the estates
  // of those rows recomputed (a status change moves no lease to another estate).
  const last = statusesAfter(leaseEvents);
  if (last) {
    await tx.query(
      `UPDATE estate_lease_status s SET status = v.status
       FROM unnest($1::uuid[], $2::text[]) AS v(id, status) WHERE s.id = v.id ${estatesStamp}`,
      [[...last.keys()], [...last.values()]],
      { prepare: true, deferred: true },
    );
    await syncRentalStateOfLeases(tx, [...last.keys()]);
    return [];
  }
  const leaseIds = [...new Set(leaseEvents.map((e) => e.data.lease_id))];
  const loaded = await tx.query<LeaseStatusRow>(
    `SELECT tenant_id, id, estate_id, lease_id, status, rent_amount FROM estate_lease_status
     WHERE id = ANY($1::uuid[]) ${estatesStamp}`,
    [leaseIds],
    { prepare: true },
  );
  // Keyed as PostgreSQL compares uuids (case-insensitively).
  const rows = new Map<string, LeaseStatusRow>(loaded.map((r) => [r.id.toLowerCase(), r]));
  const touched = new Set<string>();
  const changed = new Set<string>();
  /** The lease's row before the event changes it: its estate is recomputed too. */
  const estateOf = (leaseId: string) => {
    const row = rows.get(leaseId);
    if (row) {
      touched.add(row.estate_id);
      changed.add(leaseId);
    }
    return row;
  };
  for (const event of leaseEvents) {
    const leaseId = event.data.lease_id.toLowerCase();
    if (isLeaseStatusEvent(event)) {
      const row = estateOf(leaseId);
      if (row) row.status = LEASE_STATUS_OF_EVENT[event.type];
      continue;
    }
    switch (event.type) {
      case "LeaseCreated":
        if (!rows.has(leaseId)) {
          changed.add(leaseId);
          rows.set(leaseId, {
            tenant_id: event.metadata.tenant_id,
            id: leaseId,
            estate_id: event.data.estate_id,
            lease_id: leaseId,
            status: "DRAFT",
            rent_amount: event.data.rent_amount,
          });
        }
        touched.add(event.data.estate_id);
        break;
      case "LeaseUpdated": {
        const c = event.data.changes;
        if (c.estate_id === undefined && c.rent_amount === undefined) break;
        const row = estateOf(leaseId);
        if (row) {
          row.estate_id = c.estate_id ?? row.estate_id;
          row.rent_amount = c.rent_amount ?? row.rent_amount;
        }
        if (c.estate_id) touched.add(c.estate_id);
        break;
      }
      case "LeaseRentChanged": {
        const row = estateOf(leaseId);
        if (row) row.rent_amount = event.data.rent_amount;
        break;
      }
      case "LeaseDeleted":
        rows.delete(leaseId);
        touched.add(event.data.estate_id);
        break;
      // Filtered out above: they change neither a lease's estate, status nor rent.
      case "LeaseRenewed":
      case "LeaseLesseeAdded":
      case "LeaseLesseeUpdated":
      case "LeaseLesseeEnded":
      case "LeaseLesseeRemoved":
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
        break;
      default: {
        // A new lease event fails here until this feed says what it does to the estate.
        const unhandled: never = event;
        throw new Error(`Unhandled lease event ${(unhandled as { type: string }).type}`);
      }
    }
  }
  const gone = loaded.filter((r) => !rows.has(r.id.toLowerCase())).map((r) => r.id);
  if (gone.length > 0)
    await tx.query("DELETE FROM estate_lease_status WHERE id = ANY($1::uuid[])", [gone], { deferred: true });
  const upserts = [...changed].flatMap((id) => rows.get(id) ?? []);
  if (upserts.length > 0) {
    await tx.query(
      `INSERT INTO estate_lease_status (tenant_id, id, estate_id, lease_id, status, rent_amount)
       SELECT tenant_id, id, estate_id, lease_id, status, rent_amount
       FROM jsonb_populate_recordset(NULL::estate_lease_status, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET estate_id = excluded.estate_id, status = excluded.status,
         rent_amount = excluded.rent_amount ${estatesStamp}`,
      [JSON.stringify(upserts)],
      { prepare: true, deferred: true },
    );
  }
  return [...touched];
}

interface LeaseStatusRow {
  tenant_id: string;
  id: string;
  estate_id: string;
  lease_id: string;
  status: string;
  rent_amount: number | null;
}
