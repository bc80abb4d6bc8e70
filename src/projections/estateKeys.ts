import { estateKeyResource, type KeyHandoverEvent, keyHandoverEventTypes } from "../events/estateKeys.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** `estate_keys`: the key sets of each estate (docs/moving.md "Keys"). */
export const estateKeysProjection = resourceProjection(estateKeyResource);

/** `key_handovers`: every handover and return of keys, never changed. */
export const keyHandoversProjection = rowProjection<KeyHandoverEvent>({
  name: "key_handovers",
  version: 1,
  table: "key_handovers",
  columns: ["tenant_id", "id", "estate_id", "lease_id", "direction", "on_date", "sets", "recorded_at"],
  schema: `
CREATE TABLE key_handovers (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  estate_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  direction text NOT NULL,
  on_date date NOT NULL,
  sets jsonb NOT NULL,
  recorded_at timestamptz NOT NULL
);
CREATE INDEX key_handovers_estate ON key_handovers (tenant_id, estate_id, on_date, id);
CREATE INDEX key_handovers_lease ON key_handovers (tenant_id, lease_id, direction, on_date);
${tenantPolicy("key_handovers")}`,
  handles: keyHandoverEventTypes,
  creates: keyHandoverEventTypes,
  idOf: (event) => event.data.handover_id,
  evolve: (_row, event) => {
    const { handover_id: _, on, ...rest } = event.data;
    return { ...rest, on_date: on, recorded_at: event.metadata.occurred_at };
  },
});
