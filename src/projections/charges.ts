import {
  type ChargesEvent,
  chargeEventTypes,
  freezeEventTypes,
  keyEventTypes,
  type RegularisationEvent,
  regularisationEventTypes,
  serviceResource,
} from "../events/charges.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** Read models of the charges area (docs/charges.md): charges, keys, freezes, regularisations, services. */

export const CHARGE_COLUMNS = [
  "tenant_id",
  "id",
  "place_id",
  "category",
  "tax",
  "amount",
  "period_from",
  "period_to",
  "label",
  "invoice_media_id",
  "distribution_key_id",
  "corrects_charge_id",
  "revision",
  "created_at",
  "updated_at",
] as const;

export const chargesProjection = rowProjection<ChargesEvent>({
  name: "charges",
  version: 2,
  table: "charges",
  columns: CHARGE_COLUMNS,
  schema: `
CREATE TABLE charges (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  category text NOT NULL,
  tax text,
  amount numeric NOT NULL,
  period_from date NOT NULL,
  period_to date NOT NULL,
  label text NOT NULL,
  invoice_media_id uuid,
  distribution_key_id uuid,
  corrects_charge_id uuid,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX charges_place ON charges (tenant_id, place_id, period_from, id);
${tenantPolicy("charges")}`,
  handles: chargeEventTypes,
  idOf: (event) => ("charge_id" in event.data ? event.data.charge_id : null),
  creates: ["ChargeRecorded"],
  evolve(row, event) {
    const at = event.metadata.occurred_at;
    const revision = Number(event.stream_revision);
    switch (event.type) {
      case "ChargeRecorded": {
        const { charge_id: _, ...fields } = event.data;
        return { ...fields, tax: fields.tax ?? null, revision, created_at: at, updated_at: at };
      }
      case "ChargeChanged":
        return row && { ...row, ...event.data.changes, revision, updated_at: at };
      case "ChargeRemoved":
        return null;
      default:
        return row;
    }
  },
});

export const distributionKeysProjection = rowProjection<ChargesEvent>({
  name: "distribution_keys",
  version: 1,
  table: "distribution_keys",
  columns: ["tenant_id", "id", "place_id", "name", "kind", "shares", "created_at"],
  schema: `
CREATE TABLE distribution_keys (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  name text NOT NULL,
  kind text NOT NULL,
  shares jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX distribution_keys_place ON distribution_keys (tenant_id, place_id, created_at, id);
${tenantPolicy("distribution_keys")}`,
  handles: keyEventTypes,
  idOf: (event) => (event.type === "DistributionKeyDefined" ? event.data.key_id : null),
  creates: ["DistributionKeyDefined"],
  evolve(row, event) {
    switch (event.type) {
      case "DistributionKeyDefined": {
        const { key_id: _, ...fields } = event.data;
        return { ...fields, created_at: event.metadata.occurred_at };
      }
      default:
        return row;
    }
  },
});

export const chargeFreezesProjection = rowProjection<ChargesEvent>({
  name: "charge_freezes",
  version: 1,
  table: "charge_freezes",
  columns: ["tenant_id", "id", "place_id", "period_from", "period_to", "created_at"],
  schema: `
CREATE TABLE charge_freezes (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  period_from date NOT NULL,
  period_to date NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX charge_freezes_place ON charge_freezes (tenant_id, place_id, period_from, id);
${tenantPolicy("charge_freezes")}`,
  handles: freezeEventTypes,
  idOf: (event) => (event.type === "ChargesFrozen" ? event.data.freeze_id : null),
  creates: ["ChargesFrozen"],
  evolve(row, event) {
    switch (event.type) {
      case "ChargesFrozen":
        return {
          place_id: event.data.place_id,
          period_from: event.data.from,
          period_to: event.data.to,
          created_at: event.metadata.occurred_at,
        };
      default:
        return row;
    }
  },
});

export const chargeRegularisationsProjection = rowProjection<RegularisationEvent>({
  name: "charge_regularisations",
  version: 1,
  table: "charge_regularisations",
  columns: [
    "tenant_id",
    "id",
    "lease_id",
    "place_id",
    "period_from",
    "period_to",
    "regularised_on",
    "record",
    "created_at",
  ],
  schema: `
CREATE TABLE charge_regularisations (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  place_id uuid NOT NULL,
  period_from date NOT NULL,
  period_to date NOT NULL,
  regularised_on date NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX charge_regularisations_lease ON charge_regularisations (tenant_id, lease_id, period_from, id);
CREATE INDEX charge_regularisations_place ON charge_regularisations (tenant_id, place_id, period_to);
${tenantPolicy("charge_regularisations")}`,
  handles: regularisationEventTypes,
  idOf: (event) => event.data.regularisation_id,
  creates: ["ChargesRegularised"],
  evolve(row, event) {
    switch (event.type) {
      case "ChargesRegularised": {
        const d = event.data;
        return {
          lease_id: d.lease_id,
          place_id: d.place_id,
          period_from: d.period_from,
          period_to: d.period_to,
          regularised_on: d.regularised_on,
          record: d,
          created_at: event.metadata.occurred_at,
        };
      }
      default:
        return row;
    }
  },
});

export const serviceContractsProjection = resourceProjection(serviceResource);

export const chargeProjections = [
  chargesProjection,
  distributionKeysProjection,
  chargeFreezesProjection,
  chargeRegularisationsProjection,
  serviceContractsProjection,
];
