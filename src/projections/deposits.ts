import {
  type DepositBalance,
  type DepositEvent,
  type DepositReturn,
  type DepositState,
  depositEventTypes,
  evolveDeposit,
} from "../events/deposits.ts";
import type { LeaseEvent } from "../events/leases.ts";
import { type Row, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

/**
 * `lease_deposits`: one row per lease with its deposit (docs/moving.md "Deposit"): the amount and
 * the rent from the lease's events, the keys' return and the due day from its termination, what
 * was returned from the deposit stream.
 */
const LEASE_TYPES = [
  "LeaseCreated",
  "LeaseUpdated",
  "LeaseAmended",
  "LeaseRentChanged",
  "LeaseTerminated",
  "LeaseExpired",
  "LeaseDeleted",
] as const satisfies readonly LeaseEvent["type"][];
type Handled = Extract<LeaseEvent, { type: (typeof LEASE_TYPES)[number] }> | DepositEvent;

export const depositsProjection = rowProjection<Handled>({
  name: "lease_deposits",
  version: 2,
  table: "lease_deposits",
  columns: [
    "tenant_id",
    "id",
    "amount",
    "monthly_rent",
    "ended",
    "keys_returned_on",
    "exit_report_id",
    "exit_report_matches",
    "due_on",
    "returned_on",
    "deductions",
    "held",
    "returned_amount",
    "late_months",
    "late_penalty",
    "balance",
  ],
  schema: `
CREATE TABLE lease_deposits (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  amount numeric NOT NULL,
  monthly_rent numeric NOT NULL,
  ended boolean NOT NULL DEFAULT false,
  keys_returned_on date,
  exit_report_id uuid,
  exit_report_matches boolean,
  due_on date,
  returned_on date,
  deductions jsonb,
  held numeric,
  returned_amount numeric,
  late_months integer,
  late_penalty numeric,
  balance jsonb
);
${tenantPolicy("lease_deposits")}`,
  handles: [...LEASE_TYPES, ...depositEventTypes],
  creates: ["LeaseCreated"],
  idOf: (event) => event.data.lease_id,
  evolve(row, event) {
    switch (event.type) {
      case "LeaseCreated":
        return { amount: event.data.deposit_amount ?? 0, monthly_rent: event.data.rent_amount, ended: false };
      case "LeaseUpdated":
      case "LeaseAmended": {
        if (!row) return null;
        const c = event.data.changes;
        return {
          ...row,
          ...("deposit_amount" in c ? { amount: c.deposit_amount ?? 0 } : {}),
          ...(c.rent_amount !== undefined ? { monthly_rent: c.rent_amount } : {}),
        };
      }
      case "LeaseRentChanged":
        return row && { ...row, monthly_rent: event.data.rent_amount };
      case "LeaseExpired":
        return row && { ...row, ended: true };
      case "LeaseTerminated": {
        const d = event.data;
        if (!row) return null;
        if (d.keys_returned_on === undefined) return { ...row, ended: true };
        return {
          ...row,
          ended: true,
          keys_returned_on: d.keys_returned_on,
          exit_report_id: d.exit_report_id ?? null,
          exit_report_matches: d.exit_report_matches ?? null,
          due_on: d.deposit_due_on ?? null,
        };
      }
      case "LeaseDeleted":
        return null;
      case "LeaseDepositReturned":
      case "LeaseDepositBalanceSettled": {
        // The deposit's columns are its stream's one fold (evolveDeposit), as the decider sees it.
        const deposit = evolveDeposit(depositOf(row, event.data.lease_id), event);
        if (!deposit) return row;
        const { lease_id: _, balance, ...returned } = deposit;
        // The lease's row exists (a return needs its termination); the amount is the parts' sum anyway.
        const amount =
          row?.amount ??
          returned.returned_amount + returned.held + returned.deductions.reduce((s, d) => s + d.amount, 0);
        return {
          monthly_rent: 0,
          ended: true,
          ...row,
          amount,
          ...returned,
          balance: balance && answerOf(balance),
        };
      }
    }
  },
});

const RETURN_COLUMNS = [
  "returned_on",
  "deductions",
  "held",
  "returned_amount",
  "keys_returned_on",
  "due_on",
  "late_months",
  "late_penalty",
] as const satisfies readonly Exclude<keyof DepositReturn, "lease_id">[];

/** The deposit's state kept in its row: none before its return. */
function depositOf(row: Row | null, lease_id: string): DepositState {
  if (!row || row.returned_on === null || row.returned_on === undefined) return null;
  const returned = Object.fromEntries(RETURN_COLUMNS.map((c) => [c, row[c]])) as Omit<
    DepositReturn,
    "lease_id"
  >;
  const balance = row.balance as Omit<DepositBalance, "lease_id"> | null | undefined;
  return { lease_id, ...returned, balance: balance ? { lease_id, ...balance } : null };
}

/** The balance as the `balance` column keeps it (the lease is the row's). */
const answerOf = ({ lease_id: _, ...balance }: DepositBalance) => balance;
