import {
  estateRentRegulationEventTypes,
  irlEventTypes,
  PLATFORM_TENANT_ID,
  placeRentRegulationEventTypes,
  type RentRegulationEvent,
  type RentRegulationEventType,
} from "../events/rentRegulation.ts";
import {
  eventsOf,
  type Projection,
  rowProjection,
  tenantPolicy,
} from "../platform/projections/projection.ts";

/**
 * `irl_values`: IRL values published through the API (platform data, no tenant: every tenant
 * reads it; only events of the platform tenant count). They take precedence over the values
 * shipped in migration 060 (`irl_shipped`).
 */
export const irlValuesProjection: Projection = {
  name: "irl_values",
  version: 1,
  tables: ["irl_values"],
  schema: `
CREATE TABLE irl_values (
  quarter text PRIMARY KEY,
  value numeric(8, 2) NOT NULL,
  published_on date,
  updated_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
GRANT SELECT ON irl_values TO pms_reader;`,
  handles: irlEventTypes,
  async applyBatch(tx, events) {
    const latest = new Map<string, Record<string, unknown>>();
    for (const e of eventsOf<RentRegulationEvent>(events, irlEventTypes)) {
      if (e.type !== "IrlValuePublished" || e.metadata.tenant_id !== PLATFORM_TENANT_ID) continue;
      latest.set(e.data.quarter, {
        quarter: e.data.quarter,
        value: e.data.value,
        published_on: e.data.published_on ?? null,
        updated_at: e.metadata.occurred_at,
        revision: Number(e.stream_revision),
      });
    }
    if (latest.size === 0) return;
    await tx.query(
      `INSERT INTO irl_values SELECT * FROM jsonb_populate_recordset(NULL::irl_values, $1::jsonb)
       ON CONFLICT (quarter) DO UPDATE SET value = excluded.value, published_on = excluded.published_on,
         updated_at = excluded.updated_at, revision = excluded.revision`,
      [JSON.stringify([...latest.values()])],
    );
  },
};

const REGULATION_COLUMNS = [
  "high_demand_zone",
  "reference_rents",
  "order_reference",
  "effective_from",
  "created_at",
  "updated_at",
  "revision",
] as const;

const regulationDdl = (table: string) => `
CREATE TABLE ${table} (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  high_demand_zone boolean NOT NULL,
  reference_rents jsonb NOT NULL,
  order_reference text,
  effective_from date,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX ${table}_tenant ON ${table} (tenant_id, id);
${tenantPolicy(table)}`;

/** One row per place (id = place_id) or per estate with an override (id = estate_id). */
function regulationProjection(name: string, handles: readonly RentRegulationEventType[]) {
  return rowProjection<RentRegulationEvent>({
    name,
    version: 1,
    table: name,
    columns: ["tenant_id", "id", ...REGULATION_COLUMNS],
    schema: regulationDdl(name),
    handles,
    idOf(event) {
      switch (event.type) {
        case "PlaceRentRegulationSet":
          return event.data.place_id;
        case "EstateRentRegulationSet":
        case "EstateRentRegulationRemoved":
          return event.data.estate_id;
        default:
          return null;
      }
    },
    evolve(row, event) {
      if (event.type === "EstateRentRegulationRemoved") return null;
      if (event.type === "IrlValuePublished") return row;
      const { high_demand_zone, reference_rents, order_reference, effective_from } = event.data;
      return {
        high_demand_zone,
        reference_rents,
        order_reference,
        effective_from,
        created_at: row?.created_at ?? event.metadata.occurred_at,
        updated_at: event.metadata.occurred_at,
        revision: Number(event.stream_revision),
      };
    },
  });
}

export const placeRentRegulationProjection = regulationProjection(
  "place_rent_regulation",
  placeRentRegulationEventTypes,
);
export const estateRentRegulationProjection = regulationProjection(
  "estate_rent_regulation",
  estateRentRegulationEventTypes,
);

export const rentRegulationProjections = [
  irlValuesProjection,
  placeRentRegulationProjection,
  estateRentRegulationProjection,
];
