import { createHash } from "node:crypto";
import type { Sql } from "../db.ts";
import { isDatabaseUnavailable } from "../db.ts";
import type { EventStore, RecordedEvent } from "../eventstore/eventStore.ts";
import { CHECKPOINT_MOVED } from "./checkpoints.ts";
import type { Projection } from "./projection.ts";

/**
 * Quarantine (docs/architecture.md, "Quarantine"): an event a projection cannot apply is set
 * aside for its tenant instead of halting the projection. Its row in `projection_quarantine`
 * commits with the checkpoint that passes it; later events of the same stream wait behind it
 * (held), so a stream's events are never applied out of order. An operator's retry or skip is
 * an event of the log (`projection_quarantine-<id>`) the projector reacts to in its batch.
 */

/** The stream category of the operators' retries and skips (EventStoreDB reads it: startService.ts). */
export const QUARANTINE_CATEGORY = "projection_quarantine";

export const QUARANTINE_RETRIED = "QuarantinedEventRetried";
export const QUARANTINE_SKIPPED = "QuarantinedEventSkipped";

export type QuarantineEvent =
  | { type: typeof QUARANTINE_RETRIED; data: { projection: string; event_id: string } }
  | { type: typeof QUARANTINE_SKIPPED; data: { projection: string; event_id: string } };

/** One stream per quarantined event of a projection: its id derived from both. */
export function quarantineStream(projection: string, eventId: string): string {
  const h = createHash("sha256").update(`${projection}\u0000${eventId.toLowerCase()}`).digest("hex");
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return `${QUARANTINE_CATEGORY}-${id}`;
}

/**
 * A failure that says nothing of the event: the database away, a deadlock or serialization
 * failure, a lock or statement timeout, a moved checkpoint. Those retry the batch; any other
 * error, met by the event alone in its savepoint, quarantines it.
 */
export function isTransient(error: unknown): boolean {
  const e = error as { code?: unknown; message?: string };
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  return (
    isDatabaseUnavailable(e) ||
    code.startsWith("40") ||
    code.startsWith("25") ||
    code === "55P03" ||
    code === "57014" ||
    code === CHECKPOINT_MOVED
  );
}

/** The streams a projection (at this version) has quarantined events of. */
export async function loadHeld(sql: Sql, projection: Projection): Promise<Set<string>> {
  const rows = await sql.query<{ stream_name: string }>(
    "SELECT DISTINCT stream_name FROM projection_quarantine WHERE projection = $1 AND version = $2",
    [projection.name, projection.version],
  );
  return new Set(rows.map((r) => r.stream_name));
}

/** What a batch's transaction changed in the quarantine, applied to the runner once it commits. */
export interface Aside {
  held: Set<string>;
  released: Set<string>;
  /** Events quarantined by this transaction (metrics). */
  quarantined: number;
}

export const newAside = (): Aside => ({ held: new Set(), released: new Set(), quarantined: 0 });

/** A stream held in the quarantine as this transaction sees it. */
const isHeld = (base: Set<string>, aside: Aside, stream: string) =>
  aside.held.has(stream) || (base.has(stream) && !aside.released.has(stream));

/** Whether a slice needs the careful path: an operation for this projection, or a held stream's event. */
export function needsCare(projection: Projection, held: Set<string>, slice: RecordedEvent[]): boolean {
  return slice.some((e) => isOperationFor(projection, e) || (held.size > 0 && held.has(e.stream_name)));
}

export const isOperationFor = (projection: Projection, e: RecordedEvent) =>
  (e.type === QUARANTINE_RETRIED || e.type === QUARANTINE_SKIPPED) &&
  e.stream_name.startsWith(`${QUARANTINE_CATEGORY}-`) &&
  e.data?.projection === projection.name;

/** Runs fn in a savepoint: its writes undone when it throws. */
export async function inSavepoint(tx: Sql, fn: () => Promise<void>): Promise<void> {
  await tx.exec("SAVEPOINT pms_event");
  try {
    await fn();
  } catch (error) {
    await tx.exec("ROLLBACK TO SAVEPOINT pms_event");
    throw error;
  }
  await tx.exec("RELEASE SAVEPOINT pms_event");
}

const messageOf = (error: unknown) => String((error as Error)?.message ?? error).slice(0, 2000);

export interface Careful {
  tx: Sql;
  store: EventStore;
  projection: Projection;
  handled: Set<string>;
  /** The streams held when the transaction began. */
  held: Set<string>;
  aside: Aside;
}

/**
 * The careful path of a slice: runs of events applied each in a savepoint, a run that fails
 * applied again event by event; an event that fails alone (not transiently) is quarantined,
 * and the events after it of its stream are held behind it. Operations for this projection
 * (a retry, a skip) act where they are in the log.
 */
export async function applyCarefully(c: Careful, slice: RecordedEvent[]): Promise<void> {
  let run: RecordedEvent[] = [];
  const flush = async () => {
    if (run.length > 0) await applyRun(c, run);
    run = [];
  };
  for (const e of slice) {
    if (isOperationFor(c.projection, e)) {
      await flush();
      await operate(c, e);
      continue;
    }
    if (!c.handled.has(e.type)) continue;
    if (isHeld(c.held, c.aside, e.stream_name)) {
      await flush();
      await holdBehind(c, e);
    } else run.push(e);
  }
  await flush();
}

async function applyRun(c: Careful, run: RecordedEvent[]): Promise<void> {
  if (run.length > 1) {
    try {
      return await inSavepoint(c.tx, () => c.projection.applyBatch(c.tx, run));
    } catch (error) {
      if (isTransient(error)) throw error;
    }
  }
  for (const e of run) {
    if (isHeld(c.held, c.aside, e.stream_name)) {
      await holdBehind(c, e);
      continue;
    }
    try {
      await inSavepoint(c.tx, () => c.projection.applyBatch(c.tx, [e]));
    } catch (error) {
      if (isTransient(error)) throw error;
      await quarantine(c, e, messageOf(error), null);
    }
  }
}

async function quarantine(c: Careful, e: RecordedEvent, error: string, heldBy: string | null): Promise<void> {
  await c.tx.query(
    `INSERT INTO projection_quarantine (projection, version, event_id, stream_name, stream_revision,
       commit_position, prepare_position, tenant_id, event_type, error, held_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (projection, version, event_id) DO UPDATE SET error = excluded.error, updated_at = now()`,
    [
      c.projection.name,
      c.projection.version,
      e.event_id,
      e.stream_name,
      e.stream_revision.toString(),
      e.position.commit.toString(),
      e.position.prepare.toString(),
      e.metadata.tenant_id,
      e.type,
      error,
      heldBy,
    ],
  );
  c.aside.held.add(e.stream_name);
  c.aside.released.delete(e.stream_name);
  c.aside.quarantined++;
}

/** An event of a held stream waits behind the first quarantined event of that stream. */
async function holdBehind(c: Careful, e: RecordedEvent): Promise<void> {
  const [first] = await c.tx.query<{ event_id: string }>(
    `SELECT event_id::text FROM projection_quarantine WHERE projection = $1 AND version = $2 AND stream_name = $3
     ORDER BY stream_revision LIMIT 1`,
    [c.projection.name, c.projection.version, e.stream_name],
  );
  await quarantine(c, e, "held behind an earlier quarantined event of its stream", first?.event_id ?? null);
}

interface QuarantineRow {
  event_id: string;
  stream_name: string;
  stream_revision: string;
  c: string;
  p: string;
}

/**
 * An operator's retry or skip: a skip deletes its event's row; either then applies again the
 * stream's quarantined events in order, each in a savepoint, until one fails (it stays, with its
 * new error, and those after it stay held). An event already gone from the quarantine: nothing.
 */
async function operate(c: Careful, op: RecordedEvent): Promise<void> {
  const { name, version } = c.projection;
  const [target] = await c.tx.query<QuarantineRow>(
    `SELECT stream_name FROM projection_quarantine WHERE projection = $1 AND version = $2 AND event_id = $3`,
    [name, version, op.data.event_id],
  );
  if (!target) return;
  if (op.type === QUARANTINE_SKIPPED) {
    await c.tx.query(
      "DELETE FROM projection_quarantine WHERE projection = $1 AND version = $2 AND event_id = $3",
      [name, version, op.data.event_id],
    );
  }
  const rows = await c.tx.query<QuarantineRow>(
    `SELECT event_id::text, stream_name, stream_revision::text, commit_position::text AS c, prepare_position::text AS p
     FROM projection_quarantine WHERE projection = $1 AND version = $2 AND stream_name = $3 ORDER BY stream_revision`,
    [name, version, target.stream_name],
  );
  const stream = rows.length > 0 ? await c.store.readStream(target.stream_name) : [];
  const byId = new Map(stream.map((e) => [e.event_id.toLowerCase(), e]));
  for (const row of rows) {
    const found = byId.get(row.event_id.toLowerCase());
    // The stream's events as the log holds them, at the position they were quarantined at.
    const e = found && { ...found, position: { commit: BigInt(row.c), prepare: BigInt(row.p) } };
    try {
      if (!e) throw new Error("the event is no longer in its stream");
      if (c.handled.has(e.type)) await inSavepoint(c.tx, () => c.projection.applyBatch(c.tx, [e]));
    } catch (error) {
      if (isTransient(error)) throw error;
      await c.tx.query(
        `UPDATE projection_quarantine SET error = $4, held_by = NULL, attempts = attempts + 1, updated_at = now()
         WHERE projection = $1 AND version = $2 AND event_id = $3`,
        [name, version, row.event_id, messageOf(error)],
      );
      return;
    }
    await c.tx.query(
      "DELETE FROM projection_quarantine WHERE projection = $1 AND version = $2 AND event_id = $3",
      [name, version, row.event_id],
    );
  }
  c.aside.released.add(target.stream_name);
  c.aside.held.delete(target.stream_name);
}

/** After the commit: the runner's held streams as the transaction left them. */
export function settleAside(held: Set<string>, aside: Aside): void {
  for (const s of aside.released) held.delete(s);
  for (const s of aside.held) held.add(s);
}

/** Quarantined events per tenant, of the projections' current versions (stale read models). */
export async function staleByTenant(sql: Sql): Promise<Map<string, string[]>> {
  const rows = await sql.query<{ tenant_id: string; projections: string[] }>(
    `SELECT q.tenant_id::text, array_agg(DISTINCT q.projection ORDER BY q.projection) AS projections
     FROM projection_quarantine q JOIN projection_checkpoints c ON c.name = q.projection AND c.version = q.version
     GROUP BY q.tenant_id`,
  );
  return new Map(rows.map((r) => [r.tenant_id, r.projections]));
}

export interface QuarantinedEvent {
  projection: string;
  event_id: string;
  stream_name: string;
  tenant_id: string;
  event_type: string;
  position: { commit: bigint; prepare: bigint };
  error: string;
  held_by: string | null;
  attempts: number;
  quarantined_at: Date;
}

/** The quarantine of the projections' current versions, in log order (one event: `event_id`). */
export async function listQuarantine(
  sql: Sql,
  filter: { projection?: string; event_id?: string } = {},
): Promise<QuarantinedEvent[]> {
  const rows = await sql.query(
    `SELECT q.projection, q.event_id::text, q.stream_name, q.tenant_id::text, q.event_type,
            q.commit_position::text AS c, q.prepare_position::text AS p, q.error, q.held_by::text,
            q.attempts, q.quarantined_at
     FROM projection_quarantine q JOIN projection_checkpoints c ON c.name = q.projection AND c.version = q.version
     WHERE ($1::text IS NULL OR q.projection = $1) AND ($2::uuid IS NULL OR q.event_id = $2)
     ORDER BY q.projection, q.commit_position, q.prepare_position`,
    [filter.projection ?? null, filter.event_id ?? null],
  );
  return rows.map((r) => ({
    projection: r.projection,
    event_id: r.event_id,
    stream_name: r.stream_name,
    tenant_id: r.tenant_id,
    event_type: r.event_type,
    position: { commit: BigInt(r.c), prepare: BigInt(r.p) },
    error: r.error,
    held_by: r.held_by,
    attempts: r.attempts,
    quarantined_at: r.quarantined_at,
  }));
}
