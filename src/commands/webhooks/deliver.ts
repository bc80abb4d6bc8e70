import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import { webhookSubscriptionStream } from "../../events/webhooks.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Config } from "../../platform/config.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { runCommand } from "../../platform/runCommand.ts";
import type { LoopDeps, WorkerLoop } from "../../platform/workerLoops.ts";
import { insertDeliveries, type NewDelivery } from "../../projections/webhooks.ts";
import { newlyOverdueCalls } from "../../queries/webhooks.ts";
import { webhookSubscriptionDecider } from "./decider.ts";
import { type Receiver, receiverOf } from "./url.ts";

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
  log?: LoopDeps["log"];
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

/** The log's entry for an attempt under way: replaced by its outcome, left as is by a killed worker. */
const UNRECORDED = "No outcome recorded: the attempt was under way when its worker stopped";

/**
 * Claims up to `limit` due deliveries and enters each attempt in the log before it is sent, so
 * an attempt cut by a kill still shows (with UNRECORDED) once another worker takes the row over.
 */
async function claim(sql: Sql, limit: number): Promise<Claimed[]> {
  return sql.query<Claimed>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
       WHERE (status IN ('PENDING', 'RETRY_SCHEDULED') AND next_attempt_at <= now())
          OR (status = 'SENDING' AND claimed_until < now())
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET status = 'SENDING', attempts = d.attempts + 1,
         claimed_until = now() + interval '${CLAIM_SECONDS} seconds',
         attempt_log = d.attempt_log || jsonb_build_array(jsonb_build_object(
           'attempt', d.attempts + 1, 'started_at', $2::text, 'duration_ms', 0,
           'status_code', NULL, 'error', $3::text))
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.tenant_id, d.subscription_id, d.webhook_id, d.payload, d.attempts
     )
     SELECT c.*, s.url, s.secret, s.enabled FROM claimed c
     LEFT JOIN webhook_subscriptions s ON s.id = c.subscription_id`,
    [limit, new Date().toISOString(), UNRECORDED],
  );
}

/** SQL: whether the log's last entry is the attempt numbered $2 (entered by claim). */
const LAST_IS_THIS = "(attempt_log -> -1 ->> 'attempt')::int = $2";

/** POSTs one delivery, signed, to the address checked; never throws. */
async function post(delivery: Claimed, allowLocalhost: boolean): Promise<Outcome> {
  const started = new Date();
  const done = (status_code: number | null, error: string | null): Outcome => ({
    status_code,
    error,
    started_at: started.toISOString(),
    duration_ms: Date.now() - started.getTime(),
  });
  try {
    // One deadline for everything: the lookup, the connection, the answer and its body.
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    const receiver = await beforeDeadline(receiverOf(delivery.url as string, allowLocalhost), signal);
    if ("problem" in receiver) return done(null, `Refused: the URL ${receiver.problem}`);
    const body = JSON.stringify(delivery.payload);
    const signature = new Webhook(delivery.secret as string).sign(delivery.webhook_id, started, body);
    const answer = await send(receiver, body, signal, {
      "content-type": "application/json",
      "user-agent": "pms-webhooks/1",
      "webhook-id": delivery.webhook_id,
      "webhook-timestamp": String(Math.floor(started.getTime() / 1000)),
      "webhook-signature": signature,
    });
    if (answer.status >= 200 && answer.status < 300) return done(answer.status, null);
    return done(
      answer.status,
      `HTTP ${answer.status}${answer.text ? `: ${answer.text.slice(0, ERROR_CHARS)}` : ""}`,
    );
  } catch (error) {
    return done(null, (error as Error).message.slice(0, ERROR_CHARS));
  }
}

/** The work's answer, or the signal's reason once it aborts (a lookup takes no signal). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * One POST to the checked address: the socket's lookup answers it, so no second resolution can
 * lead elsewhere; TLS still verifies the certificate for the URL's host name (SNI too). A
 * redirect could lead anywhere (SSRF): it is an answer, not followed. At most ERROR_CHARS of the
 * body are kept.
 */
function send(
  receiver: Extract<Receiver, { address: string }>,
  body: string,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const { url, address, family } = receiver;
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, lookup, signal },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (text.length < ERROR_CHARS) text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
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
       attempt_log = CASE WHEN ${LAST_IS_THIS} THEN jsonb_set(attempt_log, '{-1}', $6::jsonb)
         ELSE attempt_log || jsonb_build_array($6::jsonb) END,
       claimed_until = NULL,
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
       attempts = attempts - 1, last_error = 'The subscription is disabled or deleted',
       attempt_log = CASE WHEN ${LAST_IS_THIS} THEN attempt_log - (-1) ELSE attempt_log END
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

/**
 * One pass; how many deliveries it started or created. Deliveries run on their own: the pass does
 * not wait for them, so one receiver that hangs (up to TIMEOUT_MS) holds back no other delivery,
 * and the next pass claims what fell due meanwhile; at most BATCH are under way per process.
 * `settled()` waits for those under way (close, tests).
 */
export function webhookDeliverer(deps: DelivererDeps): (() => Promise<number>) & {
  settled(): Promise<void>;
} {
  let lastScan = 0;
  const underWay = new Set<Promise<void>>();
  const pass = async () => {
    await expireStale(deps.sql);
    let done = 0;
    if (Date.now() - lastScan >= deps.config.PMS_WEBHOOK_OVERDUE_SCAN_SECONDS * 1000) {
      lastScan = Date.now();
      done += await queueOverdue(deps.sql);
    }
    const room = BATCH - underWay.size;
    const claimed = room > 0 ? await claim(deps.sql, room) : [];
    for (const delivery of claimed) {
      const running = deliverOne(deps, delivery)
        // A failure to record leaves the row SENDING: its claim expires and it is tried again.
        .catch((error: unknown) => deps.log?.error(error, "webhook delivery failed to record"))
        .finally(() => underWay.delete(running));
      underWay.add(running);
    }
    return done + claimed.length;
  };
  return Object.assign(pass, {
    settled: async () => {
      await Promise.allSettled([...underWay]);
    },
  });
}

export const webhookLoop: WorkerLoop = {
  name: "webhooks",
  open: ({ sql, store, config, log }) => {
    const run = webhookDeliverer({ sql, store, config, log });
    return { run, close: run.settled };
  },
};
