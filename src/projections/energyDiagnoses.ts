import {
  ENERGY_DIAGNOSIS_FIELDS,
  type EnergyDiagnosisEvent,
  type EnergyDiagnosisFields,
  energyDiagnosisEventTypes,
  legalValidUntil,
} from "../events/energyDiagnoses.ts";
import type { EstateEvent } from "../events/estates.ts";
import type { Sql } from "../platform/db.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import { parisDate } from "../platform/formatDates.ts";
import { deterministicUuid } from "../platform/ids.ts";
import {
  eventsOf,
  type Projection,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

const COLUMNS = [
  "tenant_id",
  "id",
  ...ENERGY_DIAGNOSIS_FIELDS,
  "created_at",
  "updated_at",
  "revision",
] as const;

/**
 * The `energy_diagnoses` read model. Lists page over 100,000s of rows per tenant, so every
 * list filter has an index ending in the list order (created_at, id): a page's ids are an
 * index-only range scan of one index (both labels: `energy_diagnoses_labels`; a place or estate
 * with a label: the place/estate index, whose INCLUDEd labels filter without reading the table). Counting 100,000s of index entries per request would dominate a list's
 * latency, so `energy_diagnosis_counts` keeps the number of diagnoses per tenant and label pair
 * (49 rows per tenant at most), maintained in the same transaction as the rows.
 */
const rows = rowProjection<EnergyDiagnosisEvent>({
  name: "energy_diagnoses",
  version: 3,
  table: "energy_diagnoses",
  columns: COLUMNS,
  schema: `
CREATE TABLE energy_diagnoses (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid,
  estate_id uuid,
  reference_number text NOT NULL,
  diagnosis_date date NOT NULL,
  valid_until date NOT NULL,
  energy_label text NOT NULL,
  ges_label text NOT NULL,
  construction_year integer NOT NULL,
  energy_consumption numeric,
  final_energy_consumption numeric,
  ges_emission numeric,
  heated_area numeric,
  notes text,
  media_id uuid,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX energy_diagnoses_order ON energy_diagnoses (tenant_id, created_at, id);
CREATE INDEX energy_diagnoses_energy_label ON energy_diagnoses (tenant_id, energy_label, created_at, id);
CREATE INDEX energy_diagnoses_ges_label ON energy_diagnoses (tenant_id, ges_label, created_at, id);
CREATE INDEX energy_diagnoses_labels ON energy_diagnoses (tenant_id, energy_label, ges_label, created_at, id);
CREATE INDEX energy_diagnoses_place ON energy_diagnoses (tenant_id, place_id, created_at, id)
  INCLUDE (energy_label, ges_label) WHERE place_id IS NOT NULL;
CREATE INDEX energy_diagnoses_estate ON energy_diagnoses (tenant_id, estate_id, created_at, id)
  INCLUDE (energy_label, ges_label) WHERE estate_id IS NOT NULL;
${tenantPolicy("energy_diagnoses")}
CREATE TABLE energy_diagnosis_counts (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  energy_label text NOT NULL,
  ges_label text NOT NULL,
  n bigint NOT NULL
);
CREATE UNIQUE INDEX energy_diagnosis_counts_labels ON energy_diagnosis_counts (tenant_id, energy_label, ges_label);
${tenantPolicy("energy_diagnosis_counts")}`,
  extraTables: ["energy_diagnosis_counts"],
  handles: energyDiagnosisEventTypes,
  idOf: (event) => event.data.diagnosis_id,
  evolve(row, event) {
    const stamp = { updated_at: event.metadata.occurred_at, revision: Number(event.stream_revision) };
    switch (event.type) {
      case "EnergyDiagnosisRecorded": {
        const { diagnosis_id: _id, ...fields } = event.data;
        return { ...fields, created_at: event.metadata.occurred_at, ...stamp };
      }
      case "EnergyDiagnosisUpdated":
        return row && { ...row, ...event.data.changes, ...stamp };
      case "EnergyDiagnosisDeleted":
        return null;
      default:
        return row;
    }
  },
});

export const energyDiagnosesProjection: Projection = {
  ...rows,
  async applyBatch(tx, events) {
    const ids = [...new Set(events.map((e) => e.data?.diagnosis_id).filter((id): id is string => !!id))];
    const labels = () =>
      tx.query<{ tenant_id: string; energy_label: string; ges_label: string }>(
        "SELECT tenant_id, energy_label, ges_label FROM energy_diagnoses WHERE id = ANY($1::uuid[])",
        [ids],
      );
    const before = ids.length > 0 ? await labels() : [];
    await rows.applyBatch(tx, events);
    const after = ids.length > 0 ? await labels() : [];
    const deltas = new Map<
      string,
      { tenant_id: string; id: string; energy_label: string; ges_label: string; n: number }
    >();
    const add = (r: { tenant_id: string; energy_label: string; ges_label: string }, n: number) => {
      const id = deterministicUuid("energy_diagnosis_counts", r.tenant_id, r.energy_label, r.ges_label);
      const current = deltas.get(id) ?? { ...r, id, n: 0 };
      current.n += n;
      deltas.set(id, current);
    };
    for (const r of before) add(r, -1);
    for (const r of after) add(r, 1);
    const changed = [...deltas.values()].filter((d) => d.n !== 0);
    if (changed.length === 0) return;
    await tx.query(
      `INSERT INTO energy_diagnosis_counts (tenant_id, id, energy_label, ges_label, n)
       SELECT tenant_id, id, energy_label, ges_label, n FROM jsonb_populate_recordset(NULL::energy_diagnosis_counts, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET n = energy_diagnosis_counts.n + excluded.n`,
      [JSON.stringify(changed)],
    );
    await tx.query("DELETE FROM energy_diagnosis_counts WHERE id = ANY($1::uuid[]) AND n = 0", [
      changed.map((d) => d.id),
    ]);
  },
};

/** Estate events this area follows: which place an estate is in (read from src/events/estates.ts). */
const ESTATE_EVENTS = ["EstateCreated", "EstateMoved", "EstateDeleted"] as const;

interface DpeRow {
  tenant_id: string;
  id: string;
  place_id: string | null;
  estate_id: string | null;
  diagnosis_date: string;
  /** What the certificate says. */
  certificate_valid_until: string;
  /** The earlier of that and its legal end (legalValidUntil): what "valid" means here. */
  valid_until: string;
  energy_label: string;
  ges_label: string;
  final_energy_consumption: number | null;
  recorded_at: string;
}

/**
 * `estate_current_dpe`: each estate's current DPE — its own newest valid diagnosis, else its
 * place's newest valid one (docs/architecture.md §6). "Newest" is the latest diagnosis_date (then the
 * latest recorded); "valid" is its legal validity (the earlier of the certificate's valid_until and
 * the end the décret n° 2020-1610 set for pre-2021 certificates, docs/dpe.md) on or after today
 * (Paris) when the row is computed.
 * The projection keeps its own copy of what it needs (diagnosis dates and labels, the place of
 * each estate) so it never reads another projection's tables, which may be rebuilding.
 */
export const estateCurrentDpeProjection: Projection = {
  name: "estate_current_dpe",
  version: 3,
  tables: ["estate_current_dpe", "estate_dpe_diagnoses", "estate_dpe_estates"],
  schema: `
CREATE TABLE estate_dpe_estates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL
);
CREATE INDEX estate_dpe_estates_place ON estate_dpe_estates (place_id);
${tenantPolicy("estate_dpe_estates")}
CREATE TABLE estate_dpe_diagnoses (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid,
  estate_id uuid,
  diagnosis_date date NOT NULL,
  certificate_valid_until date NOT NULL,
  -- legal validity: the earlier of certificate_valid_until and the legal end of its method
  valid_until date NOT NULL,
  energy_label text NOT NULL,
  ges_label text NOT NULL,
  final_energy_consumption numeric,
  recorded_at timestamptz NOT NULL
);
CREATE INDEX estate_dpe_diagnoses_estate ON estate_dpe_diagnoses (estate_id, diagnosis_date DESC) WHERE estate_id IS NOT NULL;
CREATE INDEX estate_dpe_diagnoses_place ON estate_dpe_diagnoses (place_id, diagnosis_date DESC) WHERE place_id IS NOT NULL;
${tenantPolicy("estate_dpe_diagnoses")}
CREATE TABLE estate_current_dpe (
  tenant_id uuid NOT NULL,
  estate_id uuid PRIMARY KEY,
  dpe_id uuid NOT NULL,
  energy_label text NOT NULL,
  ges_label text NOT NULL,
  diagnosis_date date NOT NULL,
  -- legal validity (estate_dpe_diagnoses.valid_until)
  valid_until date NOT NULL,
  -- 'estate' (the estate's own diagnosis) or 'place' (the building's)
  source text NOT NULL
);
CREATE INDEX estate_current_dpe_tenant ON estate_current_dpe (tenant_id, estate_id);
${tenantPolicy("estate_current_dpe")}`,
  handles: [...energyDiagnosisEventTypes, ...ESTATE_EVENTS],
  applyBatch: applyCurrentDpeBatch,
};

async function applyCurrentDpeBatch(tx: Sql, events: RecordedEvent[]): Promise<void> {
  const affectedEstates = new Set<string>();
  const affectedPlaces = new Set<string>();

  // Diagnoses: fold the batch in memory over the stored rows, then one upsert and one delete.
  const diagnosisEvents = eventsOf<EnergyDiagnosisEvent>(events, energyDiagnosisEventTypes);
  if (diagnosisEvents.length > 0) {
    const ids = [...new Set(diagnosisEvents.map((e) => e.data.diagnosis_id))];
    const stored = await tx.query<DpeRow>(
      `SELECT tenant_id, id, place_id, estate_id, diagnosis_date, certificate_valid_until, valid_until,
         energy_label, ges_label, final_energy_consumption, recorded_at
       FROM estate_dpe_diagnoses WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const rows = new Map<string, DpeRow | null>(stored.map((r) => [r.id, r]));
    const touch = (row: DpeRow | null | undefined) => {
      if (row?.estate_id) affectedEstates.add(row.estate_id);
      if (row?.place_id) affectedPlaces.add(row.place_id);
    };
    stored.forEach(touch);
    for (const e of diagnosisEvents) {
      const id = e.data.diagnosis_id;
      const row = rows.get(id) ?? null;
      let next: DpeRow | null = row;
      if (e.type === "EnergyDiagnosisRecorded") {
        next = {
          tenant_id: e.metadata.tenant_id,
          id,
          place_id: e.data.place_id ?? null,
          estate_id: e.data.estate_id ?? null,
          diagnosis_date: e.data.diagnosis_date,
          certificate_valid_until: e.data.valid_until,
          valid_until: legalValidUntil(e.data.diagnosis_date, e.data.valid_until),
          energy_label: e.data.energy_label,
          ges_label: e.data.ges_label,
          final_energy_consumption: e.data.final_energy_consumption ?? null,
          recorded_at: e.metadata.occurred_at,
        };
      } else if (e.type === "EnergyDiagnosisUpdated" && row) {
        const c: Partial<EnergyDiagnosisFields> = e.data.changes;
        const certificate = c.valid_until != null ? c.valid_until : row.certificate_valid_until;
        const diagnosisDate = c.diagnosis_date ?? row.diagnosis_date;
        next = {
          ...row,
          place_id: c.place_id !== undefined ? c.place_id : row.place_id,
          estate_id: c.estate_id !== undefined ? c.estate_id : row.estate_id,
          diagnosis_date: diagnosisDate,
          energy_label: c.energy_label ?? row.energy_label,
          ges_label: c.ges_label ?? row.ges_label,
          final_energy_consumption:
            c.final_energy_consumption !== undefined
              ? c.final_energy_consumption
              : row.final_energy_consumption,
          certificate_valid_until: certificate,
          valid_until: legalValidUntil(diagnosisDate, certificate),
        };
      } else if (e.type === "EnergyDiagnosisDeleted") {
        next = null;
      }
      touch(next);
      rows.set(id, next);
    }
    const upserts = [...rows.values()].filter((r): r is DpeRow => r !== null);
    const deletes = [...rows.entries()].filter(([, r]) => r === null).map(([id]) => id);
    if (upserts.length > 0) {
      await tx.query(
        `INSERT INTO estate_dpe_diagnoses
         SELECT * FROM jsonb_populate_recordset(NULL::estate_dpe_diagnoses, $1::jsonb)
         ON CONFLICT (id) DO UPDATE SET place_id = excluded.place_id, estate_id = excluded.estate_id,
           diagnosis_date = excluded.diagnosis_date, certificate_valid_until = excluded.certificate_valid_until,
           valid_until = excluded.valid_until,
           energy_label = excluded.energy_label, ges_label = excluded.ges_label,
           final_energy_consumption = excluded.final_energy_consumption`,
        [JSON.stringify(upserts)],
      );
    }
    if (deletes.length > 0) {
      await tx.query("DELETE FROM estate_dpe_diagnoses WHERE id = ANY($1::uuid[])", [deletes]);
    }
  }

  // Estates: where each one is.
  const estateEvents = eventsOf<EstateEvent>(events, ESTATE_EVENTS);
  if (estateEvents.length > 0) {
    const estates = new Map<string, { tenant_id: string; id: string; place_id: string } | null>();
    for (const e of estateEvents) {
      const id = e.data.estate_id;
      affectedEstates.add(id);
      if (e.type === "EstateCreated")
        estates.set(id, { tenant_id: e.metadata.tenant_id, id, place_id: e.data.place_id });
      else if (e.type === "EstateMoved")
        estates.set(id, { tenant_id: e.metadata.tenant_id, id, place_id: e.data.to_place_id });
      else estates.set(id, null);
    }
    const upserts = [...estates.values()].filter((r) => r !== null);
    const deletes = [...estates.entries()].filter(([, r]) => r === null).map(([id]) => id);
    if (upserts.length > 0) {
      await tx.query(
        `INSERT INTO estate_dpe_estates
         SELECT * FROM jsonb_populate_recordset(NULL::estate_dpe_estates, $1::jsonb)
         ON CONFLICT (id) DO UPDATE SET place_id = excluded.place_id`,
        [JSON.stringify(upserts)],
      );
    }
    if (deletes.length > 0) {
      await tx.query("DELETE FROM estate_dpe_estates WHERE id = ANY($1::uuid[])", [deletes]);
    }
  }

  if (affectedPlaces.size > 0) {
    const inPlaces = await tx.query<{ id: string }>(
      "SELECT id FROM estate_dpe_estates WHERE place_id = ANY($1::uuid[])",
      [[...affectedPlaces]],
    );
    for (const r of inPlaces) affectedEstates.add(r.id);
  }
  if (affectedEstates.size > 0) await recomputeCurrentDpe(tx, [...affectedEstates], parisDate());
}

/** Rewrites the current DPE of the given estates from the projection's own tables. */
async function recomputeCurrentDpe(tx: Sql, estateIds: string[], today: string): Promise<void> {
  await tx.query("DELETE FROM estate_current_dpe WHERE estate_id = ANY($1::uuid[])", [estateIds]);
  await tx.query(
    `INSERT INTO estate_current_dpe
       (tenant_id, estate_id, dpe_id, energy_label, ges_label, diagnosis_date, valid_until, source)
     SELECT e.tenant_id, e.id, c.id, c.energy_label, c.ges_label, c.diagnosis_date, c.valid_until, c.source
     FROM estate_dpe_estates e
     CROSS JOIN LATERAL (
       SELECT * FROM (
         (SELECT d.id, d.energy_label, d.ges_label, d.diagnosis_date, d.valid_until, 'estate' AS source, 0 AS rank
          FROM estate_dpe_diagnoses d
          WHERE d.estate_id = e.id AND d.tenant_id = e.tenant_id AND d.valid_until >= $2::date
          ORDER BY d.diagnosis_date DESC, d.recorded_at DESC, d.id DESC LIMIT 1)
         UNION ALL
         (SELECT d.id, d.energy_label, d.ges_label, d.diagnosis_date, d.valid_until, 'place' AS source, 1 AS rank
          FROM estate_dpe_diagnoses d
          WHERE d.place_id = e.place_id AND d.tenant_id = e.tenant_id AND d.valid_until >= $2::date
          ORDER BY d.diagnosis_date DESC, d.recorded_at DESC, d.id DESC LIMIT 1)
       ) candidates ORDER BY rank LIMIT 1
     ) c
     WHERE e.id = ANY($1::uuid[])`,
    [estateIds, today],
  );
}
