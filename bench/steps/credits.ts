import { randomUUID } from "node:crypto";
import { CREDIT_PACKAGES, creditLedgerStream, entryOf } from "../../src/events/credits.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { mapLimit } from "../../src/platform/mapLimit.ts";
import { type LocalSession, localProvider } from "../../src/platform/payments/localProvider.ts";
import type { Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const PURCHASES = Number(process.env.BENCH_CREDIT_PURCHASES ?? 1000);
const AT_ONCE = 64;

/**
 * Credit purchases under contention (docs/credits.md, "The webhook: exactly once"): PURCHASES
 * distinct paid checkouts of one tenant, each a `checkout.completed` webhook of the local payment
 * provider signed per Standard Webhooks and POSTed to the service's /api/webhooks/local, AT_ONCE in
 * flight, all racing for the tenant's ledger stream; then every one delivered again (nothing
 * written). Pass: the ledger holds exactly one entry per purchase and its balance equals the sum
 * of their packages.
 */
export async function creditsStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const tenant = await service.newTenant("credits");
  const local = localProvider(service.localPaymentSecret);
  const sessions: LocalSession[] = Array.from({ length: PURCHASES }, (_, i) => {
    const pkg = CREDIT_PACKAGES[i % CREDIT_PACKAGES.length];
    return {
      session_id: randomUUID(),
      tenant_id: tenant.id,
      package_id: pkg.id,
      amount_cents: Math.round(pkg.price * 100),
      currency: pkg.currency.toLowerCase(),
    };
  });
  const expected = sessions.reduce(
    (sum, s) => sum + (CREDIT_PACKAGES.find((k) => k.id === s.package_id)?.credits ?? 0),
    0,
  );
  const deliver = async (session: LocalSession) => {
    // Signed when sent: the provider's timestamp is checked within 5 minutes.
    const { body, headers } = local.delivery(session);
    const res = await fetch(`${service.child.url}/api/webhooks/local`, { method: "POST", headers, body });
    const answer = (await res.json()) as { credited?: boolean };
    if (res.status !== 200)
      throw new Error(`POST /api/webhooks/local: ${res.status} ${JSON.stringify(answer)}`);
    return answer.credited === true;
  };
  let started = performance.now();
  const first = await mapLimit(sessions, AT_ONCE, deliver);
  const perSecond = PURCHASES / ((performance.now() - started) / 1000);
  started = performance.now();
  const again = await mapLimit(sessions, AT_ONCE, deliver);
  const againPerSecond = PURCHASES / ((performance.now() - started) / 1000);

  // The ledger as stored: the service's own event log, read back after the run.
  const sql = createPostgresSql(await ctx.mainDatabase());
  const store = createPostgresEventStore(sql);
  try {
    const ledger = await store.readStream(creditLedgerStream(tenant.id));
    const balance = ledger.reduce((sum, e) => sum + entryOf(e as never).credits, 0);
    ctx.raw.credits = {
      purchases: PURCHASES,
      at_once: AT_ONCE,
      per_second: perSecond,
      again_per_second: againPerSecond,
      entries: ledger.length,
      balance,
      expected,
    };
    ctx.figures.push(
      {
        step: "25 credits",
        metric: `distinct purchases credited/s through the local provider's webhook (${AT_ONCE} in flight, one tenant's ledger)`,
        value: round(perSecond, 0),
        unit: "/s",
        target: `ledger = sum of ${PURCHASES} purchases`,
        pass: ledger.length === PURCHASES && balance === expected && first.every(Boolean),
        note: `${ledger.length} entries, balance ${balance} of ${expected}`,
      },
      {
        step: "25 credits",
        metric: "the same webhooks delivered again/s (nothing written)",
        value: round(againPerSecond, 0),
        unit: "/s",
        target: "no entry added",
        pass: again.every((credited) => !credited) && ledger.length === PURCHASES,
      },
    );
  } finally {
    await store.close();
    await sql.close();
  }
}
