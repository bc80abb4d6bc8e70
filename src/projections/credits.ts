import { type CreditEvent, creditEventTypes, entryOf } from "../events/credits.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `credit_transactions`: one row per ledger entry (docs/credits.md). The balance is the sum of
 * `credits`, the credits held the sum of `held`: both computed from these rows, never stored.
 */
export const CREDIT_TRANSACTION_COLUMNS = [
  "tenant_id",
  "id",
  "kind",
  "credits",
  "held",
  "package_id",
  "amount",
  "currency",
  "provider",
  "provider_session_id",
  "provider_payment_id",
  "reservation_id",
  "purpose",
  "created_at",
] as const;

const KIND = {
  CreditsPurchased: "PURCHASE",
  CreditsReserved: "RESERVATION",
  CreditsCaptured: "CAPTURE",
  CreditsReleased: "RELEASE",
} as const;

export const creditTransactionsProjection = rowProjection<CreditEvent>({
  name: "credit_transactions",
  version: 1,
  table: "credit_transactions",
  columns: CREDIT_TRANSACTION_COLUMNS,
  schema: `
CREATE TABLE credit_transactions (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  credits integer NOT NULL,
  held integer NOT NULL,
  package_id text,
  amount numeric,
  currency text,
  provider text,
  provider_session_id text,
  provider_payment_id text,
  reservation_id uuid,
  purpose text,
  created_at timestamptz NOT NULL
);
CREATE INDEX credit_transactions_tenant ON credit_transactions (tenant_id, created_at, id);
${tenantPolicy("credit_transactions")}`,
  handles: creditEventTypes,
  idOf: (event) => event.data.entry_id,
  creates: creditEventTypes,
  keepRows: true,
  evolve(_row, event) {
    const { credits, held } = entryOf(event);
    const base = {
      kind: KIND[event.type],
      credits,
      held,
      package_id: null,
      amount: null,
      currency: null,
      provider: null,
      provider_session_id: null,
      provider_payment_id: null,
      reservation_id: null,
      purpose: null,
      created_at: event.metadata.occurred_at,
    };
    switch (event.type) {
      case "CreditsPurchased":
        return {
          ...base,
          package_id: event.data.package_id,
          amount: event.data.amount,
          currency: event.data.currency,
          provider: event.data.provider,
          provider_session_id: event.data.provider_session_id,
          provider_payment_id: event.data.provider_payment_id,
        };
      case "CreditsReserved":
        return { ...base, reservation_id: event.data.reservation_id, purpose: event.data.purpose };
      case "CreditsCaptured":
      case "CreditsReleased":
        return { ...base, reservation_id: event.data.reservation_id };
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  },
});
