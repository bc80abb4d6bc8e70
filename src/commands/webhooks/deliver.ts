import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { webhookSubscriptionStream } from "../../events/webhooks.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Config } from "../../platform/config.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { runCommand } from "../../platform/runCommand.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { insertDeliveries, type NewDelivery } from "../../projections/webhooks.ts";
import { newlyOverdueCalls } from "../../queries/webhooks.ts";
import { webhookSubscriptionDecider } from "./decider.ts";
import { resolvedUrlProblem } from "./url.ts";

/**
 * The webhook deliverer (docs/webhooks.md), a worker loop of every worker process. Each pass:
 * rows never tried and older than 24 h are EXPIRED (a rebuild of the projection must not replay
 * history to receivers); rent calls newly overdue get their deliveries; due deliveries are
 * claimed (FOR UPDATE SKIP LOCKED: one worker each), signed per Standard Webhooks and POSTed.
 * A 2xx is DELIVERED and never sent again; anything else is retried on PMS_WEBHOOK_RETRY_SECONDS,
 * then FAILED. A claim outlived by a killed worker is taken again: the receiver may then get the
 * same `webhook-id` twice, which is what the id is for.
 */

const BATCH = 20;
const CLAIM_SECONDS = 60;
const TIMEOUT_MS = 15_000;
/** What the log keeps of a receiver's answer. */
const ERROR_CHARS = 300;

export interface DelivererDeps {
  sql: Sql;
  store: EventStore;
  config: Pick<
    Config,
    | "PMS_WEBHOOKS_ALLOW_LOCALHOST"
    | "PMS_WEBHOOK_RETRY_SECONDS"
    | "PMS_WEBHOOK_DISABLE_AFTER"
    | "PMS_WEBHOOK_OVERDUE_SCAN_SECONDS"
  >;
}

interface Claimed {
  id: string;
  tenant_id: string;
  subscription_id: string;
  webhook_id: string;
  payload: unknown;
  attempts: number;
  url: string | null;
  secret: string | null;
  enabled: boolean | null;
}

interface Outcome {
  status_code: number | null;
  error: string | null;
  started_at: string;
  duration_ms: number;
}

/** Marks deliveries never tried whose event is over 24 h old: no longer worth sending. */
const expireStale = (sql: Sql) =>
  sql.query(
    `UPDATE webhook_deliveries SET status = 'EXPIRED', finished_at = now(), last_error = 'Not sent within 24 h of its event'
     WHERE status = 'PENDING' AND attempts = 0 AND occurred_at < now() - interval '24 hours'`,
  );

/** Overdue rent calls not yet announced to a subscription that asks for them. */
async function queueOverdue(sql: Sql): Promise<number> {
  const calls = await newlyOverdueCalls(sql, legalToday(), 500);
  const now = new Date().toISOString();
  const rows: NewDelivery[] = calls.map((c) => ({
    tenant_id: c.tenant_id,
    id: randomUUID(),
    subscription_id: c.subscription_id,
    // Stable per call: the unique (subscription_id, webhook_id) makes it once per call.
    webhook_id: `rent_call_overdue_${c.call_id}`,
    event_type: "rent_call.overdue",
    payload: {
      type: "rent_call.overdue",
      timestamp: now,
      data: {
        call_id: c.call_id,
        lease_id: c.lease_id,
        period_start: c.period_start,
        period_end: c.period_end,
        due_date: c.due_date,
        total_amount: c.total_amount,
        paid_amount: c.paid_amount,
      },
    },
    occurred_at: now,
  }));
  await insertDeliveries(sql, rows);
  return rows.length;
}

async function claim(sql: Sql): Promise<Claimed[]> {
  return sql.query<Claimed>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
       WHERE (status IN ('PENDING', 'RETRY_SCHEDULED') AND next_attempt_at <= now())
          OR (status = 'SENDING' AND claimed_until < now())
       ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET status = 'SENDING', attempts = d.attempts + 1,
         claimed_until = now() + interval '${CLAIM_SECONDS} seconds'
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.tenant_id, d.subscription_id, d.webhook_id, d.payload, d.attempts
     )
     SELECT c.*, s.url, s.secret, s.enabled FROM claimed c
     LEFT JOIN webhook_subscriptions s ON s.id = c.subscription_id`,
  );
}

/** POSTs one delivery, signed; never throws. */
async function post(delivery: Claimed, allowLocalhost: boolean): Promise<Outcome> {
  const started = new Date();
  const done = (status_code: number | null, error: string | null): Outcome => ({
    status_code,
    error,
    started_at: started.toISOString(),
    duration_ms: Date.now() - started.getTime(),
  });
  const url = delivery.url as string;
  try {
    const problem = await resolvedUrlProblem(url, allowLocalhost);
    if (problem) return done(null, `Refused: the URL ${problem}`);
    const body = JSON.stringify(delivery.payload);
    const signature = new Webhook(delivery.secret as string).sign(delivery.webhook_id, started, body);
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "pms-webhooks/1",
        "webhook-id": delivery.webhook_id,
        "webhook-timestamp": String(Math.floor(started.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
      // A redirect could lead anywhere (SSRF): it is an answer, not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text().catch(() => "");
    if (response.status >= 200 && response.status < 300) return done(response.status, null);
    return done(response.status, `HTTP ${response.status}${text ? `: ${text.slice(0, ERROR_CHARS)}` : ""}`);
  } catch (error) {
    return done(null, (error as Error).message.slice(0, ERROR_CHARS));
  }
}

/** Records the attempt, unless another worker has taken the delivery over since the claim. */
async function record(deps: DelivererDeps, delivery: Claimed, outcome: Outcome): Promise<boolean> {
  const retries = deps.config.PMS_WEBHOOK_RETRY_SECONDS;
  const ok = outcome.error === null;
  const exhausted = delivery.attempts > retries.length;
  const status = ok ? "DELIVERED" : exhausted ? "FAILED" : "RETRY_SCHEDULED";
  const wait = ok || exhausted ? 0 : retries[delivery.attempts - 1];
  const entry = { attempt: delivery.attempts, ...outcome };
  const rows = await deps.sql.query(
    `UPDATE webhook_deliveries SET status = $3, last_status_code = $4, last_error = $5,
       attempt_log = attempt_log || jsonb_build_array($6::jsonb), claimed_until = NULL,
       next_attempt_at = now() + make_interval(secs => $7),
       delivered_at = CASE WHEN $3 = 'DELIVERED' THEN now() END,
       finished_at = CASE WHEN $3 IN ('DELIVERED', 'FAILED') THEN now() END
     WHERE id = $1 AND attempts = $2 AND status = 'SENDING' RETURNING id`,
    [delivery.id, delivery.attempts, status, outcome.status_code, outcome.error, JSON.stringify(entry), wait],
  );
  return rows.length > 0 && status === "FAILED";
}

/**
 * Disables a subscription whose last PMS_WEBHOOK_DISABLE_AFTER finished deliveries all failed,
 * counting only those finished since it was (re-)enabled.
 */
async function disableIfFailing(deps: DelivererDeps, delivery: Claimed): Promise<void> {
  const n = deps.config.PMS_WEBHOOK_DISABLE_AFTER;
  const last = await deps.sql.query<{ status: string }>(
    `SELECT d.status FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
     WHERE d.subscription_id = $1 AND d.status IN ('DELIVERED', 'FAILED') AND d.finished_at >= s.enabled_at
     ORDER BY d.finished_at DESC LIMIT $2`,
    [delivery.subscription_id, n],
  );
  if (last.length < n || last.some((d) => d.status !== "FAILED")) return;
  await runCommand(
    {
      store: deps.store,
      tenant_id: delivery.tenant_id,
      metadata: {
        tenant_id: delivery.tenant_id,
        actor_key_id: null,
        correlation_id: randomUUID(),
        causation_id: null,
        occurred_at: new Date().toISOString(),
      },
    },
    webhookSubscriptionStream(delivery.subscription_id),
    webhookSubscriptionDecider,
    {
      type: "DisableWebhookSubscription",
      subscription_id: delivery.subscription_id,
      reason: `The last ${n} deliveries failed after every attempt`,
    },
  );
}

/** A subscription deleted or disabled since the event: its delivery is cancelled, not sent. */
const cancel = (sql: Sql, delivery: Claimed) =>
  sql.query(
    `UPDATE webhook_deliveries SET status = 'CANCELLED', finished_at = now(), claimed_until = NULL,
       attempts = attempts - 1, last_error = 'The subscription is disabled or deleted'
     WHERE id = $1 AND status = 'SENDING' AND attempts = $2`,
    [delivery.id, delivery.attempts],
  );

async function deliverOne(deps: DelivererDeps, delivery: Claimed): Promise<void> {
  if (!delivery.url || !delivery.enabled) {
    await cancel(deps.sql, delivery);
    return;
  }
  const outcome = await post(delivery, deps.config.PMS_WEBHOOKS_ALLOW_LOCALHOST);
  if (await record(deps, delivery, outcome)) await disableIfFailing(deps, delivery);
}

/** One pass; how many deliveries it tried or created. */
export function webhookDeliverer(deps: DelivererDeps): () => Promise<number> {
  let lastScan = 0;
  return async () => {
    await expireStale(deps.sql);
    let done = 0;
    if (Date.now() - lastScan >= deps.config.PMS_WEBHOOK_OVERDUE_SCAN_SECONDS * 1000) {
      lastScan = Date.now();
      done += await queueOverdue(deps.sql);
    }
    const claimed = await claim(deps.sql);
    await Promise.all(claimed.map((d) => deliverOne(deps, d)));
    return done + claimed.length;
  };
}

export const webhookLoop: WorkerLoop = {
  name: "webhooks",
  open: ({ sql, store, config }) => ({ run: webhookDeliverer({ sql, store, config }) }),
};
