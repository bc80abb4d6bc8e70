import { type MeterEvent, meterEventTypes } from "../events/meters.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import {
  eventsOf,
  type Projection,
  statementStamp,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/**
 * The meters' read models (docs/charges.md, "Meters"): `meters`, one row per live meter with its
 * last index and counts; `meter_readings`, one row per reading. Set-based: a batch loads the
 * touched meter rows in one query and writes meters, readings and removals in one statement each,
 * whatever the number of readings (the bulk route's speed rests on it).
 */

const NAME = "meters";
const VERSION = 1;
const stamp = statementStamp(NAME, VERSION);

const SCHEMA = `
CREATE TABLE meters (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  estate_id uuid,
  type text NOT NULL,
  billing text NOT NULL,
  label text,
  serial text,
  unit text NOT NULL,
  rollover_at numeric,
  parent_meter_id uuid,
  lease_ids jsonb NOT NULL,
  last_index numeric,
  last_read_on date,
  readings_count integer NOT NULL,
  anomalies_count integer NOT NULL,
  replacements jsonb NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX meters_place ON meters (tenant_id, place_id, created_at, id);
CREATE INDEX meters_estate ON meters (tenant_id, estate_id, created_at, id) WHERE estate_id IS NOT NULL;
CREATE INDEX meters_parent ON meters (tenant_id, parent_meter_id) WHERE parent_meter_id IS NOT NULL;
CREATE INDEX meters_tenant ON meters (tenant_id, created_at, id);
${tenantPolicy("meters")}

CREATE TABLE meter_readings (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  meter_id uuid NOT NULL,
  value numeric NOT NULL,
  read_on date NOT NULL,
  source text NOT NULL,
  media_id uuid,
  consumption numeric,
  days integer,
  anomaly boolean NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX meter_readings_meter ON meter_readings (tenant_id, meter_id, read_on, id);
${tenantPolicy("meter_readings")}`;

type Row = Record<string, unknown>;

function evolveRow(row: Row | null, e: RecordedEvent<MeterEvent>, readings: Row[]): Row | null {
  const at = e.metadata.occurred_at;
  const moved = { revision: Number(e.stream_revision), updated_at: at };
  switch (e.type) {
    case "MeterInstalled": {
      const { meter_id, ...fields } = e.data;
      return {
        tenant_id: e.metadata.tenant_id,
        id: meter_id,
        ...fields,
        last_index: null,
        last_read_on: null,
        readings_count: 0,
        anomalies_count: 0,
        replacements: [],
        created_at: at,
        ...moved,
      };
    }
    case "MeterUpdated":
      return row && { ...row, ...e.data.changes, ...moved };
    case "MeterRemoved":
      return null;
    case "MeterReadingsRecorded": {
      if (!row) return row;
      const list = e.data.readings;
      for (const r of list)
        readings.push({
          tenant_id: e.metadata.tenant_id,
          id: r.reading_id,
          meter_id: e.data.meter_id,
          value: r.value,
          read_on: r.read_on,
          source: r.source,
          media_id: r.media_id,
          consumption: r.consumption,
          days: r.days,
          anomaly: r.anomaly,
          created_at: at,
        });
      const last = list[list.length - 1];
      return {
        ...row,
        last_index: last ? last.value : row.last_index,
        last_read_on: last ? last.read_on : row.last_read_on,
        readings_count: Number(row.readings_count) + list.length,
        anomalies_count: Number(row.anomalies_count) + list.filter((r) => r.anomaly).length,
        ...moved,
      };
    }
    case "MeterReplaced": {
      if (!row) return row;
      const { meter_id: _, ...replacement } = e.data;
      return {
        ...row,
        serial: replacement.new_serial,
        last_index: replacement.initial_index,
        last_read_on: replacement.on,
        replacements: [...(row.replacements as unknown[]), replacement],
        ...moved,
      };
    }
    case "MeterConsumptionAnomalyDetected":
      return row && { ...row, ...moved };
    default: {
      const unknown: never = e;
      return unknown;
    }
  }
}

async function write(tx: Sql, table: string, rows: Row[], onConflict: string) {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb) ${onConflict} ${stamp}`,
    [JSON.stringify(rows)],
    { deferred: true },
  );
}

const READING_COLUMNS = [
  ["tenant_id", "uuid"],
  ["id", "uuid"],
  ["meter_id", "uuid"],
  ["value", "numeric"],
  ["read_on", "date"],
  ["source", "text"],
  ["media_id", "uuid"],
  ["consumption", "numeric"],
  ["days", "integer"],
  ["anomaly", "boolean"],
  ["created_at", "timestamptz"],
] as const;

/**
 * The readings of a batch in one statement, one array per column: PostgreSQL parses typed arrays
 * faster than a JSON document of the same rows (the bulk route's 10,000 readings a request).
 */
async function insertReadings(tx: Sql, rows: Row[]) {
  if (rows.length === 0) return;
  const names = READING_COLUMNS.map(([c]) => c).join(", ");
  const arrays = READING_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ");
  await tx.query(
    `INSERT INTO meter_readings (${names}) SELECT * FROM unnest(${arrays}) ON CONFLICT (id) DO NOTHING ${stamp}`,
    READING_COLUMNS.map(([c]) => rows.map((r) => r[c] ?? null)),
    { prepare: true, deferred: true },
  );
}

const METER_UPDATES = [
  "type",
  "billing",
  "label",
  "serial",
  "unit",
  "rollover_at",
  "parent_meter_id",
  "lease_ids",
  "last_index",
  "last_read_on",
  "readings_count",
  "anomalies_count",
  "replacements",
  "revision",
  "updated_at",
]
  .map((c) => `${c} = excluded.${c}`)
  .join(", ");

export const metersProjection: Projection = {
  name: NAME,
  version: VERSION,
  tables: ["meters", "meter_readings"],
  schema: SCHEMA,
  handles: meterEventTypes,
  async applyBatch(tx, events) {
    const mine = eventsOf<MeterEvent>(events, meterEventTypes);
    if (mine.length === 0) return;
    const ids = [...new Set(mine.map((e) => e.data.meter_id.toLowerCase()))];
    const stored = await tx.query<Row>(`SELECT * FROM meters WHERE id = ANY($1::uuid[]) ${stamp}`, [ids], {
      prepare: true,
    });
    const rows = new Map<string, Row | null>(stored.map((r) => [String(r.id), r]));
    const touched = new Set<string>();
    const readings: Row[] = [];
    for (const e of mine) {
      const id = e.data.meter_id.toLowerCase();
      const row = rows.get(id) ?? null;
      // A batch replayed over rows it already wrote (at-least-once delivery) changes nothing.
      if (row && Number(e.stream_revision) <= Number(row.revision)) continue;
      rows.set(id, evolveRow(row, e, readings));
      touched.add(id);
    }
    const live = [...touched].flatMap((id) => {
      const row = rows.get(id);
      return row ? [row] : [];
    });
    const removed = [...touched].filter((id) => !rows.get(id));
    await write(tx, "meters", live, `ON CONFLICT (id) DO UPDATE SET ${METER_UPDATES}`);
    await insertReadings(tx, readings);
    if (removed.length > 0) {
      await tx.query(`DELETE FROM meter_readings WHERE meter_id = ANY($1::uuid[]) ${stamp}`, [removed]);
      await tx.query(`DELETE FROM meters WHERE id = ANY($1::uuid[]) ${stamp}`, [removed]);
    }
  },
};
