import {
  evolveSyndicBudget,
  type SyndicBudget,
  type SyndicEvent,
  syndicEventTypes,
} from "../events/syndic.ts";
import { type Row, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/** `syndic_budgets`: one row per budget, its lots, calls, notices and payments (docs/charges.md, "Syndic"). */

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
  "payments",
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
  payments jsonb NOT NULL,
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX syndic_budgets_place ON syndic_budgets (tenant_id, place_id, year);
${tenantPolicy("syndic_budgets")}`;

/** The fold's state of a row: its columns as they are (numeric columns come back as text). */
const budgetOf = (row: Row): SyndicBudget => ({
  budget_id: String(row.id),
  place_id: String(row.place_id),
  year: Number(row.year),
  amount: Number(row.amount),
  works_fund_amount: Number(row.works_fund_amount),
  lots: row.lots as SyndicBudget["lots"],
  calls: row.calls as SyndicBudget["calls"],
  notices: row.notices as SyndicBudget["notices"],
  payments: row.payments as SyndicBudget["payments"],
});

export const syndicBudgetsProjection = rowProjection<SyndicEvent>({
  name: "syndic_budgets",
  // 2: the lots' payments; the row is the budget stream's one fold.
  version: 2,
  table: "syndic_budgets",
  columns: COLUMNS,
  schema: SCHEMA,
  handles: syndicEventTypes,
  idOf: (e) => e.data.budget_id,
  creates: ["SyndicBudgetVoted"],
  evolve: (row, e) => {
    const budget = evolveSyndicBudget(row ? budgetOf(row) : null, e);
    if (!budget) return row;
    const { budget_id: _, ...columns } = budget;
    return {
      ...columns,
      created_at: row?.created_at ?? e.metadata.occurred_at,
      revision: Number(e.stream_revision),
      updated_at: e.metadata.occurred_at,
    };
  },
});
