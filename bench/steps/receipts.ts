import { randomUUID } from "node:crypto";
import { issueReceipt } from "../../src/commands/rentCollection/receipts.ts";
import { receiptCounterStream } from "../../src/events/rentCollection.ts";
import { leaseAccountStream, rentCallId } from "../../src/events/rentCycle.ts";
import { legalToday } from "../../src/law/calendar.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { mapLimit } from "../../src/platform/mapLimit.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { settingsProjections } from "../../src/projections/settings.ts";
import type { Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const LEASES = Number(process.env.BENCH_RECEIPT_LEASES ?? 1000);
const AT_ONCE = 32;

/**
 * Quittance numbers under contention (docs/rent-cycle.md, "Receipts"): LEASES paid calls of one
 * tenant get their quittance AT_ONCE at a time, every issue racing for the tenant's counter of the
 * year; then the same again, which finds the numbers and writes nothing. Numbering only (no PDF
 * render: the pdf step measures rendering). Pass: the numbers are exactly 1..LEASES.
 */
export async function receiptsStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("receipts");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  try {
    await migrate(sql);
    for (const p of settingsProjections) await sql.exec(p.schema);
    const tenant_id = randomUUID();
    const metadata = {
      tenant_id,
      actor_key_id: null,
      correlation_id: null,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    };
    const leases = Array.from({ length: LEASES }, () => randomUUID());
    await mapLimit(leases, 16, async (lease_id) => {
      const call_id = rentCallId(lease_id, "2026-01-01");
      const call = {
        call_id,
        lease_id,
        period_start: "2026-01-01",
        period_end: "2026-01-31",
        due_date: "2026-01-05",
      };
      await store.appendToStream(
        leaseAccountStream(lease_id),
        [
          {
            event_id: randomUUID(),
            type: "RentCallIssued",
            data: { ...call, rent_amount: 800, charges_amount: 50, total_amount: 850, prorated: null },
            metadata,
          },
          {
            event_id: randomUUID(),
            type: "PaymentRecorded",
            data: {
              payment_id: randomUUID(),
              lease_id,
              amount: 850,
              paid_on: "2026-01-03",
              method: "VIREMENT_BANCAIRE",
              reference: null,
              payer_lessee_id: null,
              allocations: [{ call_id, amount: 850 }],
              credit: 0,
            },
            metadata,
          },
        ],
        { expected_revision: "no_stream" },
      );
    });
    const issue = (lease_id: string) =>
      issueReceipt({ sql, store, tenant_id, metadata }, lease_id, rentCallId(lease_id, "2026-01-01"));
    let started = performance.now();
    const first = await mapLimit(leases, AT_ONCE, issue);
    const issuedPerSecond = LEASES / ((performance.now() - started) / 1000);
    const before = (await store.readStream(receiptCounterStream(tenant_id, Number(legalToday().slice(0, 4)))))
      .length;
    started = performance.now();
    const again = await mapLimit(leases, AT_ONCE, issue);
    const againPerSecond = LEASES / ((performance.now() - started) / 1000);
    const sequences = first.map((o) => o.receipt?.sequence ?? 0).sort((a, b) => a - b);
    const exact = sequences.every((s, i) => s === i + 1);
    const same = again.every((o, i) => o.receipt?.number === first[i].receipt?.number);
    ctx.raw.receipts = {
      leases: LEASES,
      issued_per_second: issuedPerSecond,
      again_per_second: againPerSecond,
    };
    ctx.figures.push(
      {
        step: "24 receipts",
        metric: `quittances numbered/s (${AT_ONCE} at once, one tenant's counter)`,
        value: round(issuedPerSecond, 0),
        unit: "/s",
        target: `numbers exactly 1..${LEASES}`,
        pass: exact && before === LEASES,
        note: `${before} numbers taken for ${LEASES} quittances`,
      },
      {
        step: "24 receipts",
        metric: "the same quittances asked again/s (nothing written)",
        value: round(againPerSecond, 0),
        unit: "/s",
        target: "same numbers",
        pass: same,
      },
    );
  } finally {
    await store.close();
    await sql.close();
  }
}
