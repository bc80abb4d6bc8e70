import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { webhookDeliverer } from "../../src/commands/webhooks/deliver.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { rentCycleProjection } from "../../src/projections/rentCycle.ts";
import { insertDeliveries, WEBHOOK_DELIVERIES_DDL } from "../../src/projections/webhooks.ts";
import type { Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const DELIVERIES = 1000;

/**
 * Outbound webhooks (docs/webhooks.md): 1,000 due deliveries, two deliverers racing over them
 * (each pass claims 20 and POSTs them at once, as a worker does), signed, to an HTTP receiver in
 * this process. Information only: a real receiver's latency sets the real pace.
 */
export async function webhooksStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("webhooks");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    const id = String(req.headers["webhook-id"]);
    received.set(id, (received.get(id) ?? 0) + 1);
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await migrate(sql);
    // The read models the deliverer reads (the overdue scan reads rent_calls), empty but for ours.
    await sql.exec(rentCycleProjection.schema);
    await sql.exec(WEBHOOK_DELIVERIES_DDL);
    const tenant = randomUUID();
    const subscription = randomUUID();
    const now = new Date().toISOString();
    await sql.query(
      `INSERT INTO webhook_subscriptions (tenant_id, id, url, events, description, secret, enabled, enabled_at, revision, created_at, updated_at)
       VALUES ($1, $2, $3, '{payment.recorded}', null, $4, true, now(), 0, now(), now())`,
      [
        tenant,
        subscription,
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
      ],
    );
    await insertDeliveries(
      sql,
      Array.from({ length: DELIVERIES }, () => {
        const event = randomUUID();
        return {
          tenant_id: tenant,
          id: randomUUID(),
          subscription_id: subscription,
          webhook_id: `msg_${event}`,
          event_type: "payment.recorded",
          payload: { type: "payment.recorded", timestamp: now, data: { payment_id: event, amount: 850 } },
          occurred_at: now,
        };
      }),
    );
    const config = {
      PMS_WEBHOOKS_ALLOW_LOCALHOST: true,
      PMS_WEBHOOK_RETRY_SECONDS: [5],
      PMS_WEBHOOK_DISABLE_AFTER: 5,
      PMS_WEBHOOK_OVERDUE_SCAN_SECONDS: 3600,
    };
    const deliverer = () => {
      const pass = webhookDeliverer({ sql, store, config });
      return (async () => {
        while ((await pass()) > 0);
      })();
    };
    const started = performance.now();
    await Promise.all([deliverer(), deliverer()]);
    const perSecond = DELIVERIES / ((performance.now() - started) / 1000);
    const [{ n }] = await sql.query(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'DELIVERED'",
    );
    const twice = [...received.values()].filter((c) => c > 1).length;
    ctx.raw.webhooks = { delivered_per_second: perSecond, delivered: n, received: received.size, twice };
    ctx.figures.push({
      step: "webhooks",
      metric: "webhooks delivered/s (2 deliverers racing, in-process receiver)",
      value: round(perSecond, 0),
      unit: "/s",
      target: "each sent once",
      pass: n === DELIVERIES && received.size === DELIVERIES && twice === 0,
      note: `${n} DELIVERED, ${received.size} ids received, ${twice} received twice`,
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    await sql.close();
  }
}
