import { randomUUID } from "node:crypto";
import type { Sql } from "../../src/platform/db.ts";
import type { EventStore, Position, RecordedEvent } from "../../src/platform/eventstore/eventStore.ts";
import { comparePositions } from "../../src/platform/eventstore/eventStore.ts";
import {
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../../src/platform/projections/projection.ts";

/**
 * A test-only projection for the platform suites: one row per `counter-<uuid>` stream counting
 * its events (`events = events + 1`, so an event applied twice shows) and summing `amount × factor`.
 */
export const COUNTED = "TestCounted";
export const REMOVED = "TestCounterRemoved";

export interface CounterControl {
  /** While true, a batch holding an event with `data.poison` throws after writing its rows. */
  broken: boolean;
  /** Sizes of the batches applyBatch received (live and rebuild alike). */
  batches: number[];
  /**
   * Events with `data.sql_poison` fail in PostgreSQL instead: a held (deferred) write that breaks a NOT NULL
   * constraint, so the batch's error surfaces later, at the next round trip or COMMIT.
   */
  failInSql?: boolean;
}

export interface CounterOptions {
  name: string;
  table?: string;
  version?: number;
  /** The "logic": total = sum(amount × factor). */
  factor?: number;
  /** Adds a column, to show a version bump can change the table's shape. */
  extraColumn?: boolean;
  /** pg_sleep inside every batch, after the rows are written (PostgreSQL only). */
  slowSeconds?: number;
  /** Called inside each batch after the rows are written (before the sleep). */
  onBatch?: (events: RecordedEvent[]) => void;
  control?: CounterControl;
  /** rowProjection's keepRows: rows kept between live batches. */
  keepRows?: boolean;
}

export function counterProjection(options: CounterOptions): Projection & { control: CounterControl } {
  const table = options.table ?? options.name;
  const factor = options.factor ?? 1;
  const control = options.control ?? { broken: false, batches: [] };
  const columns = ["tenant_id", "id", "stream_name", "events", "total", "last_revision"];
  const base = rowProjection({
    name: options.name,
    version: options.version ?? 1,
    table,
    columns: options.extraColumn ? [...columns, "note"] : columns,
    schema: `
CREATE TABLE ${table} (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  stream_name text NOT NULL,
  events integer NOT NULL,
  total numeric NOT NULL,
  last_revision bigint NOT NULL${options.extraColumn ? ",\n  note text" : ""}
);
CREATE INDEX ${table}_tenant ON ${table} (tenant_id);
${tenantPolicy(table)}`,
    handles: [COUNTED, REMOVED],
    idOf: (e) => counterId(e.stream_name),
    evolve: (row, e) => evolveCounter(row, e, factor, options.extraColumn),
    keepRows: options.keepRows,
  });
  return {
    ...base,
    control,
    async applyBatch(tx, events, memory) {
      control.batches.push(events.length);
      await base.applyBatch(tx, events, memory);
      options.onBatch?.(events);
      if (options.slowSeconds) await tx.query("SELECT pg_sleep($1)", [options.slowSeconds]);
      if (control.broken && events.some((e) => (control.failInSql ? e.data?.sql_poison : e.data?.poison))) {
        if (!control.failInSql) throw new Error("poisoned event");
        await tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [randomUUID()], { deferred: true });
      }
    },
  };
}

export function counterId(streamName: string): string | null {
  return streamName.startsWith("counter-") ? streamName.slice("counter-".length) : null;
}

function evolveCounter(row: Row | null, e: RecordedEvent, factor: number, extra?: boolean): Row | null {
  if (e.type === REMOVED) return null;
  return {
    stream_name: e.stream_name,
    events: Number(row?.events ?? 0) + 1,
    total: Number(row?.total ?? 0) + Number(e.data.amount) * factor,
    last_revision: Number(e.stream_revision),
    ...(extra ? { note: `v${e.stream_revision}` } : {}),
  };
}

export interface CounterRow {
  tenant_id: string;
  id: string;
  stream_name: string;
  events: number;
  total: number;
  last_revision: number;
}

/** The read model computed in memory from the whole log: what a from-scratch build must give. */
export async function expectedCounters(store: EventStore, factor = 1): Promise<CounterRow[]> {
  const rows = new Map<string, CounterRow | null>();
  let after: Position | undefined;
  for (;;) {
    // The committed log of this database, as the projector reads it: past other databases'
    // open transactions (on a shared server, another test file's).
    const page = await store.readAll({ after, max_count: 1000, past_other_databases: true });
    if (page.length === 0) break;
    for (const e of page) {
      const id = counterId(e.stream_name);
      if (!id || (e.type !== COUNTED && e.type !== REMOVED)) continue;
      const next = evolveCounter((rows.get(id) ?? null) as Row | null, e, factor);
      rows.set(id, next ? ({ ...next, tenant_id: e.metadata.tenant_id, id } as unknown as CounterRow) : null);
    }
    after = page[page.length - 1].position;
  }
  return sortRows([...rows.values()].filter((r): r is CounterRow => r !== null));
}

export async function readCounters(sql: Sql, table: string): Promise<CounterRow[]> {
  const rows = await sql.query(
    `SELECT tenant_id::text, id::text, stream_name, events, total, last_revision FROM ${table}`,
  );
  return sortRows(
    rows.map((r) => ({ ...r, total: Number(r.total), last_revision: Number(r.last_revision) })),
  );
}

const sortRows = (rows: CounterRow[]) => rows.sort((a, b) => a.id.localeCompare(b.id));

/** Appends `count` TestCounted events to a counter stream in one append; returns the append's position. */
export async function count(
  store: EventStore,
  tenantId: string,
  streamId: string,
  amounts: number[],
  extra: Record<string, unknown> = {},
): Promise<Position> {
  const stream = `counter-${streamId}`;
  const existing = await store.readStream(stream);
  const result = await store.appendToStream(
    stream,
    amounts.map((amount) => ({
      event_id: randomUUID(),
      type: COUNTED,
      data: { amount, ...extra },
      metadata: {
        tenant_id: tenantId,
        actor_key_id: null,
        correlation_id: null,
        causation_id: null,
        occurred_at: new Date().toISOString(),
      },
    })),
    { expected_revision: existing.length ? existing[existing.length - 1].stream_revision : "no_stream" },
  );
  return result.position;
}

export async function removeCounter(
  store: EventStore,
  tenantId: string,
  streamId: string,
): Promise<Position> {
  const result = await store.appendToStream(
    `counter-${streamId}`,
    [
      {
        event_id: randomUUID(),
        type: REMOVED,
        data: {},
        metadata: {
          tenant_id: tenantId,
          actor_key_id: null,
          correlation_id: null,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      },
    ],
    { expected_revision: "stream_exists" },
  );
  return result.position;
}

export const silentLog = { info: () => {}, error: () => {} };

/**
 * Waits until `position` is readable from the log. On a shared PostgreSQL server another
 * database's open write transaction holds every reader back for a while (the read horizon is
 * the server's oldest running transaction).
 */
export async function untilReadable(
  store: EventStore,
  position: Position,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await store.headPosition();
    if (head && comparePositions(head, position) >= 0) return;
    if (Date.now() > deadline) throw new Error("position not readable in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
