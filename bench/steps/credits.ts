import { randomUUID } from "node:crypto";
import { creditPurchase } from "../../src/commands/credits/purchases.ts";
import { CREDIT_PACKAGES, creditLedgerStream, entryOf } from "../../src/events/credits.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { mapLimit } from "../../src/platform/mapLimit.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { createTenant } from "../../src/platform/tenants/tenants.ts";
import type { Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const PURCHASES = Number(process.env.BENCH_CREDIT_PURCHASES ?? 1000);
const AT_ONCE = 32;

/**
 * Credit purchases under contention (docs/credits.md, "The webhook: exactly once"): PURCHASES
 * distinct paid checkouts of one tenant credited AT_ONCE at a time, all racing for the tenant's
 * ledger stream, then every one delivered again (nothing written). Pass: the ledger holds exactly
 * one entry per purchase and its balance equals the sum of their packages.
 */
export async function creditsStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("credits");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  try {
    await migrate(sql);
    const tenant = await createTenant(sql, `bench-credits-${randomUUID()}`);
    const purchases = Array.from({ length: PURCHASES }, (_, i) => {
      const pkg = CREDIT_PACKAGES[i % CREDIT_PACKAGES.length];
      const session_id = `cs_bench_${randomUUID()}`;
      return {
        kind: "checkout_completed" as const,
        event_id: `evt_${session_id}`,
        session_id,
        payment_id: `pi_${session_id}`,
        tenant_id: tenant.id,
        package_id: pkg.id,
        amount_cents: Math.round(pkg.price * 100),
        currency: "eur",
      };
    });
    const expected = purchases.reduce(
      (sum, p) => sum + (CREDIT_PACKAGES.find((k) => k.id === p.package_id)?.credits ?? 0),
      0,
    );
    const deliver = (p: (typeof purchases)[number]) => creditPurchase({ sql, store }, "stripe", p, null);
    let started = performance.now();
    const first = await mapLimit(purchases, AT_ONCE, deliver);
    const perSecond = PURCHASES / ((performance.now() - started) / 1000);
    started = performance.now();
    const again = await mapLimit(purchases, AT_ONCE, deliver);
    const againPerSecond = PURCHASES / ((performance.now() - started) / 1000);
    const ledger = await store.readStream(creditLedgerStream(tenant.id));
    const balance = ledger.reduce((sum, e) => sum + entryOf(e as never).credits, 0);
    ctx.raw.credits = {
      purchases: PURCHASES,
      per_second: perSecond,
      again_per_second: againPerSecond,
      balance,
      expected,
    };
    ctx.figures.push(
      {
        step: "25 credits",
        metric: `distinct purchases credited/s (${AT_ONCE} at once, one tenant's ledger)`,
        value: round(perSecond, 0),
        unit: "/s",
        target: `ledger = sum of ${PURCHASES} purchases`,
        pass: ledger.length === PURCHASES && balance === expected && first.every((r) => r.credited),
        note: `${ledger.length} entries, balance ${balance} of ${expected}`,
      },
      {
        step: "25 credits",
        metric: "the same purchases delivered again/s (nothing written)",
        value: round(againPerSecond, 0),
        unit: "/s",
        target: "no entry added",
        pass: again.every((r) => !r.credited) && ledger.length === PURCHASES,
      },
    );
  } finally {
    await store.close();
    await sql.close();
  }
}
