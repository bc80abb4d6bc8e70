import { sepaMandateStream } from "../../events/bank/mandates.ts";
import { leaseAccountStream } from "../../events/rentCycle.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { runCommand } from "../../platform/runCommand.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { unsettledCollections } from "../../queries/bank/collections.ts";
import { unsettledMatches } from "../../queries/bank/index.ts";
import { mandateDecider } from "./mandates.ts";
import {
  type BankPaymentCommand,
  bankPaymentDecider,
  type DebitPayment,
  type LinePayment,
} from "./payments.ts";
import { queueRejectNotices } from "./rejectNotices.ts";

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

const metadataOf = (tenant_id: string, key: string) => ({
  tenant_id,
  actor_key_id: null,
  correlation_id: `bank-settlement-${key}`,
  causation_id: null,
  occurred_at: new Date().toISOString(),
});

/**
 * The same for SEPA collections (docs/bank.md, "SEPA collections"): the debit payments a batch
 * names and the lease accounts do not hold, the cancellations of rejected ones, the mandates'
 * use. Each with the ids the batch named, so the route's settlement and this one never do it twice.
 */
export async function settleCollectionLeftovers(
  deps: { sql: Sql; store: EventStore },
  olderThanSeconds = 30,
): Promise<number> {
  const rows = await unsettledCollections(deps.sql, BATCH, olderThanSeconds);
  const record = new Map<string, { tenant_id: string; payments: DebitPayment[] }>();
  const cancel = new Map<string, { tenant_id: string; lease_id: string; reason: string; ids: string[] }>();
  const mandates = new Map<
    string,
    { tenant_id: string; lease_id: string; collection_id: string; used_on: string }
  >();
  for (const r of rows) {
    if (r.reason === null && r.payment_missing) {
      const entry = record.get(r.lease_id) ?? { tenant_id: r.tenant_id, payments: [] };
      entry.payments.push({
        payment_id: r.payment_id,
        rent_call_id: r.rent_call_id,
        amount: r.amount,
        paid_on: r.due_on,
        bank_account_id: r.bank_account_id,
        sepa_collection_id: r.collection_id,
        end_to_end_id: r.end_to_end_id,
      });
      record.set(r.lease_id, entry);
    } else if (r.reason !== null && !r.payment_missing) {
      const reason = `Bank return ${r.reason}`;
      const key = `${r.lease_id} ${reason}`;
      const entry = cancel.get(key) ?? { tenant_id: r.tenant_id, lease_id: r.lease_id, reason, ids: [] };
      entry.ids.push(r.payment_id);
      cancel.set(key, entry);
    }
    if (r.mandate_unused) {
      const known = mandates.get(r.mandate_id);
      if (!known || known.used_on < r.due_on)
        mandates.set(r.mandate_id, {
          tenant_id: r.tenant_id,
          lease_id: r.lease_id,
          collection_id: r.collection_id,
          used_on: r.due_on,
        });
    }
  }
  const commands: { tenant_id: string; command: BankPaymentCommand }[] = [
    ...[...record].map(([lease_id, { tenant_id, payments }]) => ({
      tenant_id,
      command: { type: "RecordDebitPayments" as const, lease_id, payments },
    })),
    ...[...cancel.values()].map((c) => ({
      tenant_id: c.tenant_id,
      command: {
        type: "CancelLinePayments" as const,
        lease_id: c.lease_id,
        reason: c.reason,
        payment_ids: c.ids,
      },
    })),
  ];
  await queueRejectNotices(
    deps,
    rows
      .filter((r) => r.reason !== null && !r.payment_missing)
      .map((r) => ({
        tenant_id: r.tenant_id,
        collection_id: r.collection_id,
        end_to_end_id: r.end_to_end_id,
        lease_id: r.lease_id,
        reason_code: r.reason as string,
      })),
  );
  for (const { tenant_id, command } of commands)
    await runCommand(
      { store: deps.store, tenant_id, metadata: metadataOf(tenant_id, command.lease_id) },
      leaseAccountStream(command.lease_id),
      bankPaymentDecider,
      command,
    );
  for (const [mandate_id, m] of mandates)
    await runCommand(
      { store: deps.store, tenant_id: m.tenant_id, metadata: metadataOf(m.tenant_id, mandate_id) },
      sepaMandateStream(mandate_id),
      mandateDecider,
      {
        type: "UseMandate",
        mandate_id,
        lease_id: m.lease_id,
        collection_id: m.collection_id,
        used_on: m.used_on,
      },
    );
  return rows.length;
}

export const bankSettlementLoop: WorkerLoop = {
  name: "bank-settlement",
  open: ({ sql, store }) => ({
    run: async () =>
      (await settleLeftovers({ sql, store })) + (await settleCollectionLeftovers({ sql, store })),
  }),
};
