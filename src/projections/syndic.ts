import { type SyndicEvent, syndicEventTypes } from "../events/syndic.ts";
import { rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/** `syndic_budgets`: one row per budget, its lots, calls and notices as voted and sent (docs/charges.md, "Syndic"). */

const COLUMNS = [
  "tenant_id",
  "id",
  "place_id",
  "year",
  "amount",
  "works_fund_amount",
  "lots",
  "calls",
  "notices",
  "revision",
  "created_at",
  "updated_at",
] as const;

const SCHEMA = `
CREATE TABLE syndic_budgets (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  place_id uuid NOT NULL,
  year integer NOT NULL,
  amount numeric NOT NULL,
  works_fund_amount numeric NOT NULL,
  lots jsonb NOT NULL,
  calls jsonb NOT NULL,
  notices jsonb NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX syndic_budgets_place ON syndic_budgets (tenant_id, place_id, year);
${tenantPolicy("syndic_budgets")}`;

export const syndicBudgetsProjection = rowProjection<SyndicEvent>({
  name: "syndic_budgets",
  version: 1,
  table: "syndic_budgets",
  columns: COLUMNS,
  schema: SCHEMA,
  handles: syndicEventTypes,
  idOf: (e) => e.data.budget_id,
  creates: ["SyndicBudgetVoted"],
  evolve: (row, e) => {
    const moved = { revision: Number(e.stream_revision), updated_at: e.metadata.occurred_at };
    switch (e.type) {
      case "SyndicBudgetVoted": {
        const { budget_id: _, ...voted } = e.data;
        return { ...voted, notices: [], created_at: e.metadata.occurred_at, ...moved };
      }
      case "SyndicFormalNoticeSent": {
        if (!row) return row;
        const { budget_id: _, ...notice } = e.data;
        return {
          ...row,
          notices: [...(row.notices as unknown[]), { ...notice, answered_on: null }],
          ...moved,
        };
      }
      case "SyndicFormalNoticeAnswered":
        if (!row) return row;
        return {
          ...row,
          notices: (row.notices as { notice_id: string }[]).map((n) =>
            n.notice_id === e.data.notice_id ? { ...n, answered_on: e.data.answered_on } : n,
          ),
          ...moved,
        };
      default: {
        const unknown: never = e;
        return unknown;
      }
    }
  },
});
