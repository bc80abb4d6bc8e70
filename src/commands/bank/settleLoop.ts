import { leaseAccountStream } from "../../events/rentCycle.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { runCommand } from "../../platform/runCommand.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { unsettledMatches } from "../../queries/bank/index.ts";
import { bankPaymentDecider, type LinePayment } from "./payments.ts";

/**
 * Finishes settlements a stopped process left (docs/bank.md, "One line, once"): a line the ledger
 * matched whose payment the lease account does not hold gets it recorded, with the id the match
 * named, so the route's own settlement and this one never record it twice.
 */
const BATCH = 500;

export async function settleLeftovers(
  deps: { sql: Sql; store: EventStore },
  olderThanSeconds = 30,
): Promise<number> {
  const rows = await unsettledMatches(deps.sql, BATCH, olderThanSeconds);
  const byLease = new Map<string, { tenant_id: string; payments: LinePayment[] }>();
  for (const r of rows) {
    const entry = byLease.get(r.lease_id) ?? { tenant_id: r.tenant_id, payments: [] };
    entry.payments.push({
      payment_id: r.payment_id,
      rent_call_id: r.rent_call_id,
      amount: r.amount,
      paid_on: r.booked_on,
      bank_account_id: r.bank_account_id,
      bank_line_id: r.line_id,
    });
    byLease.set(r.lease_id, entry);
  }
  for (const [lease_id, { tenant_id, payments }] of byLease) {
    const metadata = {
      tenant_id,
      actor_key_id: null,
      correlation_id: `bank-settlement-${lease_id}`,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    };
    await runCommand(
      { store: deps.store, tenant_id, metadata },
      leaseAccountStream(lease_id),
      bankPaymentDecider,
      {
        type: "RecordLinePayments",
        lease_id,
        payments,
      },
    );
  }
  return rows.length;
}

export const bankSettlementLoop: WorkerLoop = {
  name: "bank-settlement",
  open: ({ sql, store }) => ({ run: () => settleLeftovers({ sql, store }) }),
};
