import type { RegularisationEvent } from "../events/charges.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `charge_statement_messages`: one row per regularisation of charges (docs/messages.md, "Charges
 * statement"), keyed by its id. The worker emails the statement and stamps `handled`; the
 * projection never writes that column (the message's id is the regularisation's: never twice).
 */
export const chargeStatementMessagesProjection = rowProjection<RegularisationEvent>({
  name: "charge_statement_messages",
  version: 1,
  table: "charge_statement_messages",
  columns: ["tenant_id", "id", "lease_id", "regularised_on", "occurred_at"],
  schema: `
CREATE TABLE charge_statement_messages (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  regularised_on date NOT NULL,
  occurred_at timestamptz NOT NULL,
  handled text
);
CREATE INDEX charge_statement_messages_pending ON charge_statement_messages (occurred_at) WHERE handled IS NULL;
${tenantPolicy("charge_statement_messages")}`,
  handles: ["ChargesRegularised"],
  creates: ["ChargesRegularised"],
  idOf: (event) => event.data.regularisation_id,
  evolve: (_row, event) => ({
    lease_id: event.data.lease_id,
    regularised_on: event.data.regularised_on,
    occurred_at: event.metadata.occurred_at,
  }),
});
