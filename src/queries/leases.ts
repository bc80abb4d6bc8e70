import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  AMENDMENT_STATUSES,
  LEASE_ROLES,
  LEASE_STATUSES,
  LEASE_TYPES,
  type LeaseEvent,
  leaseEventTypes,
  leaseStream,
  RENT_CHANGE_REASONS,
} from "../events/leases.ts";
import {
  ABSENT_LEASE,
  evolveLease,
  isLiveLease,
  type LeaseView,
  type LeaseViewState,
  leaseColumnsOf,
} from "../events/leaseView.ts";
import { blobKey, blobStoreFor } from "../platform/blobs/index.ts";
import type { Sql } from "../platform/db.ts";
import { notFound, validationError } from "../platform/errors.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { readHistory } from "../platform/http/handleCommand.ts";
import { offsetOf, pageQuery, sendPage, sendSlice } from "../platform/http/pagination.ts";
import {
  answers,
  fileBytes,
  historyBody,
  timestamp as instant,
  rowShape,
} from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import { eventsOf, type Row } from "../platform/projections/projection.ts";
import { LEASE_COLUMNS } from "../projections/leases.ts";
import { readEstate } from "./estates.ts";
import { amendmentChanges, createLeaseSchema, date, documentFields, rentSchema } from "./leasesSchemas.ts";
import { type Found, pick } from "./places.ts";

/** GET routes of the Leases area, and the look-ups other areas and the lease commands make. */

const tags = ["Leases"];
const read = { access: "LeasesRead" as const };
const LEASE_RESPONSE = LEASE_COLUMNS.filter((c) => c !== "tenant_id" && c !== "revision");
const ASSOCIATION_RESPONSE = [
  "id",
  "lease_id",
  "lessee_id",
  "role",
  "start_date",
  "end_date",
  "ended",
  "created_at",
  "updated_at",
] as const;

const AMENDMENT_RESPONSE = [
  "id",
  "lease_id",
  "title",
  "effective_date",
  "changes",
  "reason",
  "status",
  "status_reason",
  "created_at",
  "updated_at",
] as const;

export const leaseParams = z.strictObject({ lease_id: uuid() });
export const amendmentParams = z.strictObject({ lease_id: uuid(), amendment_id: uuid() });

export const documentParams = z.strictObject({ lease_id: uuid(), document_id: uuid() });
export const associationParams = z.strictObject({ lease_id: uuid(), lessee_id: uuid() });

const toLease = (row: Row) => pick(row, LEASE_RESPONSE);

// Answers (docs/decisions.md, "Responses in the contract"): the columns the row mappers pick, in
// their order, typed by the request schemas the data came through.

const { primary_lessee_id: _primary, ...leaseTermShape } = rowShape(createLeaseSchema.shape);
const { status: _s, rent_regulation_compliance_status: _c, signed_at: _si, ...terms } = leaseTermShape;
const { notice_date: _n, notice_end_date: _ne, terminated_at: _t, revision: _r, ...leaseTerms } = terms;

/** A lease as the API shows it (LEASE_RESPONSE). */
export const leaseBody = z
  .strictObject({
    id: uuid(),
    ...leaseTerms,
    status: z.enum(LEASE_STATUSES),
    rent_regulation_compliance_status: z.string(),
    signed_at: date().nullable(),
    notice_date: date().nullable(),
    notice_end_date: date().nullable(),
    terminated_at: date().nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "Lease" });

/** A tenant (or guarantor) on a lease (ASSOCIATION_RESPONSE). */
export const associationBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    lessee_id: uuid(),
    role: z.enum(LEASE_ROLES),
    start_date: date(),
    end_date: date().nullable(),
    ended: z.boolean(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseTenant", description: "A tenant (or guarantor) on a lease" });

/** An amendment (AMENDMENT_RESPONSE). */
export const amendmentBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    title: z.string(),
    effective_date: date(),
    changes: amendmentChanges,
    reason: z.string().nullable(),
    status: z.enum(AMENDMENT_STATUSES),
    status_reason: z.string().nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseAmendment" });

/** With as_of: the lease as replayed, with its tenants then (leaseAsOf). */
const leaseAnswer = leaseBody.extend({
  lessees: z
    .array(associationBody.omit({ lease_id: true, created_at: true, updated_at: true }))
    .optional()
    .describe("Only with as_of: the lease's tenants at that instant"),
  amendments: z
    .array(amendmentBody.omit({ lease_id: true, status_reason: true, created_at: true, updated_at: true }))
    .optional()
    .describe("Only with as_of: the lease's amendments at that instant"),
});

/** A lease document's metadata (DOCUMENT_RESPONSE); the bytes are at .../file. */
export const documentBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    ...rowShape(documentFields),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: "LeaseDocument", description: "A lease document's metadata; the bytes are at .../file" });

/** A rent change (the rent-history columns picked below). */
const rentChangeBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    rent_amount: z.number(),
    charges_amount: z.number().nullable(),
    previous_rent_amount: z.number(),
    previous_charges_amount: z.number().nullable(),
    effective_date: date(),
    reason: z.enum(RENT_CHANGE_REASONS),
    index: rentSchema.shape.index.unwrap().nullable(),
    revision: z.number().int(),
    created_at: instant,
  })
  .meta({ id: "RentChange" });

export async function readLease(sql: Sql, tenantId: string, id: string): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM leases WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: toLease(row), revision: Number(row.revision) } : null;
}

/**
 * The lease as its read model holds it once the projector has applied `events` (the whole lease
 * stream, in order): the same fold, so a command answers without reading the row back
 * (docs/performance.md, "Lease status changes").
 */
export function leaseFromEvents(events: readonly RecordedEvent[]): Found | null {
  const replay = emptyReplay();
  for (const e of eventsOf<LeaseEvent>(events, leaseEventTypes)) replayLeaseEvent(replay, e);
  const first = events[0]?.data as { lease_id?: string } | undefined;
  const found = first?.lease_id ? replayedLease(replay, first.lease_id) : null;
  return found && { body: found.body, revision: found.revision };
}

/** One row of a lease's child table (tenants, amendments), with the lease's revision as its ETag. */
async function readChild(
  sql: Sql,
  tenantId: string,
  child: { table: string; key: string; columns: readonly string[] },
  leaseId: string,
  id: string,
): Promise<Found | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT a.*, l.revision FROM ${child.table} a JOIN leases l ON l.id = a.lease_id
       WHERE a.tenant_id = $1 AND a.lease_id = $2 AND a.${child.key} = $3`,
      [tenantId, leaseId, id],
    ),
  );
  return row ? { body: pick(row, child.columns), revision: Number(row.revision) } : null;
}

const DOCUMENT_RESPONSE = [
  "id",
  "lease_id",
  "document_type",
  "description",
  "filename",
  "content_type",
  "size",
  "sha256",
  "created_at",
  "updated_at",
] as const;
const DOCUMENTS = { table: "lease_documents", key: "id", columns: DOCUMENT_RESPONSE };
export const readDocument = (sql: Sql, tenantId: string, leaseId: string, id: string) =>
  readChild(sql, tenantId, DOCUMENTS, leaseId, id);

const ASSOCIATIONS = { table: "lease_lessees", key: "lessee_id", columns: ASSOCIATION_RESPONSE };
const AMENDMENTS = { table: "lease_amendments", key: "id", columns: AMENDMENT_RESPONSE };

export const readAssociation = (sql: Sql, tenantId: string, leaseId: string, lesseeId: string) =>
  readChild(sql, tenantId, ASSOCIATIONS, leaseId, lesseeId);
export const readAmendment = (sql: Sql, tenantId: string, leaseId: string, id: string) =>
  readChild(sql, tenantId, AMENDMENTS, leaseId, id);

/** The rows of a lease's child table, oldest first; 404 when the lease is unknown. */
async function listChildren(sql: Sql, tenantId: string, table: string, leaseId: string, extra = "") {
  await requireLease(sql, tenantId, leaseId);
  return sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM ${table} WHERE tenant_id = $1 AND lease_id = $2 ${extra}`, [
      tenantId,
      leaseId,
    ]),
  );
}

async function requireLease(sql: Sql, tenantId: string, id: string): Promise<Found> {
  const found = await readLease(sql, tenantId, id);
  if (!found) throw notFound("Lease", id);
  return found;
}

const listQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(LEASE_STATUSES).optional(),
  lease_type: z.enum(LEASE_TYPES).optional(),
  estate_id: uuid().optional(),
  place_id: uuid().optional(),
  lessee_id: uuid().optional(),
  start_date_from: date().optional(),
  start_date_to: date().optional(),
  end_date_from: date().optional(),
  end_date_to: date().optional(),
});
type ListQuery = z.output<typeof listQuery>;

async function listLeases(sql: Sql, tenantId: string, q: ListQuery) {
  const where = ["l.tenant_id = $1"];
  const params: unknown[] = [tenantId];
  const add = (value: unknown, clause: (p: string) => string) => {
    if (value === undefined) return;
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  add(q.status, (p) => `l.status = ${p}`);
  add(q.lease_type, (p) => `l.lease_type = ${p}`);
  add(q.estate_id, (p) => `l.estate_id = ${p}`);
  add(q.place_id, (p) => `l.estate_id IN (SELECT id FROM estates WHERE tenant_id = $1 AND place_id = ${p})`);
  add(
    q.lessee_id,
    (p) =>
      `EXISTS (SELECT 1 FROM lease_lessees a WHERE a.tenant_id = $1 AND a.lease_id = l.id AND a.lessee_id = ${p})`,
  );
  add(q.start_date_from, (p) => `l.start_date >= ${p}::date`);
  add(q.start_date_to, (p) => `l.start_date <= ${p}::date`);
  add(q.end_date_from, (p) => `l.end_date >= ${p}::date`);
  add(q.end_date_to, (p) => `l.end_date <= ${p}::date`);
  const filter = where.join(" AND ");
  return sql.asTenant(tenantId, async (tx) => {
    const [{ total }] = await tx.query(`SELECT count(*)::int AS total FROM leases l WHERE ${filter}`, params);
    const rows = await tx.query<Row>(
      `SELECT l.* FROM leases l WHERE ${filter} ORDER BY l.created_at, l.id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, offsetOf(q)],
    );
    return { items: rows.map(toLease), total: Number(total), page: q.page, limit: q.limit };
  });
}

/**
 * A lease replayed from its events (`as_of`, snapshots, command answers): the lease's one fold
 * (src/events/leaseView.ts) and the stamps its row carries. JSON-safe (object keys keep
 * insertion order), so it is also what a snapshot stores.
 */
export interface LeaseReplay {
  lease: LeaseViewState;
  created_at: string | null;
  updated_at: string | null;
  /** The last revision folded in; -1 for none. */
  revision: number;
  /** The latest occurred_at folded in (concurrent commands may commit slightly out of time order). */
  max_occurred_at: string | null;
}

export const emptyReplay = (): LeaseReplay => ({
  lease: ABSENT_LEASE,
  created_at: null,
  updated_at: null,
  revision: -1,
  max_occurred_at: null,
});

/** Folds one event into `replay` (in place). */
export function replayLeaseEvent(replay: LeaseReplay, e: RecordedEvent<LeaseEvent>): LeaseReplay {
  replay.lease = evolveLease(replay.lease, e);
  const at = e.metadata.occurred_at;
  if (e.type === "LeaseCreated") replay.created_at = at;
  replay.updated_at = at;
  replay.revision = Number(e.stream_revision);
  if (replay.max_occurred_at === null || Date.parse(at) > Date.parse(replay.max_occurred_at))
    replay.max_occurred_at = at;
  return replay;
}

/** The lease `replay` holds, as the API shows it (and the read model holds it); null when none. */
function replayedLease(replay: LeaseReplay, id: string): (Found & { lease: LeaseView }) | null {
  const { lease } = replay;
  if (!isLiveLease(lease)) return null;
  const row = { ...leaseColumnsOf(lease), id, created_at: replay.created_at, updated_at: replay.updated_at };
  return { body: toLease(row), revision: replay.revision, lease };
}

/**
 * Snapshots of the replay (docs/leases.md, "Audit replay"): every LEASE_SNAPSHOT_EVERY revisions
 * the lease commands store one (src/commands/leases/snapshots.ts), so `as_of` folds at most that
 * many events after the latest snapshot wholly before the instant. Bump the version when the
 * replay changes: older snapshots are then ignored.
 */
export const LEASE_SNAPSHOT_EVERY = 100;
export const LEASE_SNAPSHOT_VERSION = 3;

/** The latest snapshot of the lease whose events all occurred at or before `at` (any, when null). */
export async function readLeaseSnapshot(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  at: Date | null,
): Promise<LeaseReplay | null> {
  const [found] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ state: LeaseReplay }>(
      `SELECT state FROM lease_snapshots
        WHERE tenant_id = $1 AND lease_id = $2 AND version = $3 AND ($4::timestamptz IS NULL OR max_occurred_at <= $4)
        ORDER BY revision DESC LIMIT 1`,
      [tenantId, leaseId, LEASE_SNAPSHOT_VERSION, at?.toISOString() ?? null],
    ),
  );
  return found?.state ?? null;
}

/** The lease as it stood at `asOf`, replayed from its stream (DESIGN.md §1: the audit view). */
async function leaseAsOf(request: Parameters<typeof readHistory>[0], id: string, asOf: string) {
  const tenantId = tenantOf(request);
  // A date or a timestamp without a zone is read as UTC (DESIGN.md §4).
  const at = Date.parse(asOf.length === 10 || /[zZ]|[+-]\d\d:\d\d$/.test(asOf) ? asOf : `${asOf}Z`);
  const snapshot = await readLeaseSnapshot(request.server.platform.sql, tenantId, id, new Date(at));
  const events = eventsOf<LeaseEvent>(
    await request.server.platform.store.readStream(
      leaseStream(id),
      snapshot ? { from_revision: BigInt(snapshot.revision + 1) } : {},
    ),
    leaseEventTypes,
  );
  if (!snapshot && (events.length === 0 || events[0].metadata.tenant_id !== tenantId))
    throw notFound("Lease", id);
  const replay = snapshot ?? emptyReplay();
  for (const e of events) {
    if (Date.parse(e.metadata.occurred_at) > at) break;
    replayLeaseEvent(replay, e);
  }
  const found = replayedLease(replay, id);
  if (!found) throw notFound("Lease", `${id} as of ${asOf}`);
  const { lessees, amendments } = found.lease;
  return {
    body: {
      ...found.body,
      lessees: Object.values(lessees).map(({ association_id, ...a }) => ({ id: association_id, ...a })),
      amendments: Object.entries(amendments).map(([amendment_id, a]) => ({ id: amendment_id, ...a })),
    },
    revision: found.revision,
  };
}

const timestamp = z.iso.datetime({ offset: true, local: true, message: "Must be an ISO 8601 timestamp" });

export async function leaseQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/leases",
    {
      schema: { tags, summary: "List leases", querystring: listQuery, response: answers(z.array(leaseBody)) },
      config: read,
    },
    async (request, reply) =>
      sendPage(request, reply, await listLeases(sql, tenantOf(request), request.query)),
  );

  api.get(
    "/api/leases/estate/:estate_id",
    {
      schema: {
        tags,
        summary: "Leases of an estate",
        params: z.strictObject({ estate_id: uuid() }),
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(leaseBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { estate_id } = request.params;
      if (!(await readEstate(sql, tenantId, estate_id))) throw notFound("Estate", estate_id);
      return sendPage(request, reply, await listLeases(sql, tenantId, { ...request.query, estate_id }));
    },
  );

  api.get(
    "/api/leases/:lease_id",
    {
      schema: {
        tags,
        summary: "A lease; with as_of, the lease as it stood then, replayed from its events",
        params: leaseParams,
        querystring: z.strictObject({
          as_of: z
            .string()
            .optional()
            .meta({
              description: "An instant (ISO 8601) or a date (YYYY-MM-DD)",
              anyOf: [{ format: "date-time" }, { format: "date" }],
              example: "2025-01-31T12:00:00Z",
            }),
        }),
        response: answers(leaseAnswer),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const asOf = request.query.as_of;
      if (asOf !== undefined && !timestamp.safeParse(asOf).success && !date().safeParse(asOf).success)
        throw validationError("Invalid query", [
          { field: "as_of", message: "Must be an ISO 8601 timestamp" },
        ]);
      const found =
        asOf !== undefined
          ? await leaseAsOf(request, lease_id, asOf)
          : await requireLease(sql, tenantId, lease_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/leases/:lease_id/history",
    {
      schema: {
        tags,
        summary: "The lease's events in order (audit)",
        params: leaseParams,
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const events = await readHistory(request, leaseStream(lease_id), () => notFound("Lease", lease_id));
      return sendSlice(request, reply, events, request.query);
    },
  );

  const associations = async (tenantId: string, leaseId: string, activeOnly: boolean) => {
    const order = `${activeOnly ? "AND NOT ended" : ""} ORDER BY created_at, id`;
    const rows = await listChildren(sql, tenantId, "lease_lessees", leaseId, order);
    return rows.map((r) => pick(r, ASSOCIATION_RESPONSE));
  };

  api.get(
    "/api/leases/:lease_id/lessees",
    {
      schema: {
        tags,
        summary: "Tenants of a lease (every term)",
        params: leaseParams,
        response: answers(z.array(associationBody)),
      },
      config: read,
    },
    async (request) => associations(tenantOf(request), request.params.lease_id, false),
  );

  api.get(
    "/api/leases/:lease_id/lessees/active",
    {
      schema: {
        tags,
        summary: "Tenants of a lease whose term has not ended",
        params: leaseParams,
        response: answers(z.array(associationBody)),
      },
      config: read,
    },
    async (request) => associations(tenantOf(request), request.params.lease_id, true),
  );

  api.get(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "One tenant of a lease",
        params: associationParams,
        response: answers(associationBody),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, lessee_id } = request.params;
      await requireLease(sql, tenantId, lease_id);
      const found = await readAssociation(sql, tenantId, lease_id, lessee_id);
      if (!found) throw notFound("Lease lessee", `${lessee_id} of lease ${lease_id}`);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/leases/:lease_id/amendments",
    {
      schema: {
        tags,
        summary: "Amendments of a lease, oldest first",
        params: leaseParams,
        response: answers(z.array(amendmentBody)),
      },
      config: read,
    },
    async (request) => {
      const { lease_id } = request.params;
      const rows = await listChildren(
        sql,
        tenantOf(request),
        "lease_amendments",
        lease_id,
        "ORDER BY created_at, id",
      );
      return rows.map((r) => pick(r, AMENDMENT_RESPONSE));
    },
  );

  api.get(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "One amendment of a lease",
        params: amendmentParams,
        response: answers(amendmentBody),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, amendment_id } = request.params;
      await requireLease(sql, tenantId, lease_id);
      const found = await readAmendment(sql, tenantId, lease_id, amendment_id);
      if (!found) throw notFound("Amendment", amendment_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/leases/:lease_id/documents",
    {
      schema: {
        tags,
        summary: "Documents of a lease, oldest first",
        params: leaseParams,
        response: answers(z.array(documentBody)),
      },
      config: read,
    },
    async (request) => {
      const { lease_id } = request.params;
      const rows = await listChildren(
        sql,
        tenantOf(request),
        "lease_documents",
        lease_id,
        "ORDER BY created_at, id",
      );
      return rows.map((r) => pick(r, DOCUMENT_RESPONSE));
    },
  );

  const requireDocument = async (tenantId: string, leaseId: string, id: string) => {
    await requireLease(sql, tenantId, leaseId);
    const found = await readDocument(sql, tenantId, leaseId, id);
    if (!found) throw notFound("Document", id);
    return found;
  };

  api.get(
    "/api/leases/:lease_id/documents/:document_id",
    {
      schema: {
        tags,
        summary: "One document's metadata",
        params: documentParams,
        response: answers(documentBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id, document_id } = request.params;
      const found = await requireDocument(tenantOf(request), lease_id, document_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/leases/:lease_id/documents/:document_id/file",
    {
      schema: { tags, summary: "The document's bytes", params: documentParams, response: answers(fileBytes) },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, document_id } = request.params;
      const found = await requireDocument(tenantId, lease_id, document_id);
      const blob = await blobStoreFor(sql).getBlob(blobKey(tenantId, "lease-documents", document_id));
      if (!blob) throw notFound("Document file", document_id);
      const filename = String(found.body.filename).replace(/["\\\r\n]/g, "_");
      return reply
        .header("content-type", blob.content_type)
        .header("content-length", String(blob.size))
        .header("content-disposition", `attachment; filename="${filename}"`)
        .send(blob.bytes);
    },
  );

  api.get(
    "/api/leases/:lease_id/rent-history",
    {
      schema: {
        tags,
        summary: "Rent changes of a lease, oldest first",
        params: leaseParams,
        response: answers(z.array(rentChangeBody)),
      },
      config: read,
    },
    async (request) => {
      const { lease_id } = request.params;
      const rows = await listChildren(
        sql,
        tenantOf(request),
        "lease_rent_history",
        lease_id,
        "ORDER BY revision",
      );
      return rows.map((r) =>
        pick(r, [
          "id",
          "lease_id",
          "rent_amount",
          "charges_amount",
          "previous_rent_amount",
          "previous_charges_amount",
          "effective_date",
          "reason",
          "index",
          "revision",
          "created_at",
        ]),
      );
    },
  );
}

// Facts of the leases area that other areas look up (`lessee_active_leases` is built by
// src/projections/leases.ts).

/** Lease statuses during which an association keeps a lessee from being deleted (docs/architecture.md §6). */
export const ACTIVE_LEASE_STATUSES = [
  "DRAFT",
  "PENDING_SIGNATURE",
  "ACTIVE",
  "NOTICE",
  "FINALISATION",
] as const;

/** Active-lease counts of the given lessees of one tenant; lessees without any are absent. */
export async function activeLeaseCounts(
  sql: Sql,
  tenantId: string,
  lesseeIds: string[],
): Promise<Map<string, number>> {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ lessee_id: string; count: number }>(
      `SELECT lessee_id, count(*)::int AS count FROM lessee_active_leases
        WHERE tenant_id = $1 AND lessee_id = ANY($2::uuid[]) AND NOT ended AND lease_status = ANY($3::text[])
        GROUP BY lessee_id`,
      [tenantId, lesseeIds, ACTIVE_LEASE_STATUSES],
    ),
  );
  return new Map(rows.map((r) => [r.lessee_id, r.count]));
}
