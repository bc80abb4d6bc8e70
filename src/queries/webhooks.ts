import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { pageQuery, readPage, sendPage } from "../platform/http/pagination.ts";
import { answers, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";

/**
 * Outbound webhooks (docs/webhooks.md): subscriptions and their delivery log, from the `webhooks`
 * read model. Settings permissions (docs/design.md §7.0). The secret is never read here.
 */

export const WEBHOOKS_PATH = "/api/webhook-subscriptions";
const tags = ["Webhooks"];
const read = { access: "SettingsRead" as const };

export const subscriptionParams = z.strictObject({ subscription_id: uuid() });

export const subscriptionBody = z
  .strictObject({
    id: uuid(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(["ENABLED", "DISABLED"]),
    disabled_reason: z.string().nullable().describe("Why it was disabled (repeated failures, a user)"),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: "WebhookSubscription",
    description: "A tenant's outbound webhook subscription (docs/webhooks.md)",
  });
export type SubscriptionBody = z.infer<typeof subscriptionBody>;

const COLUMNS = "id, url, events, description, enabled, disabled_reason, revision, created_at, updated_at";

const toSubscription = (r: Row): SubscriptionBody => ({
  id: String(r.id),
  url: String(r.url),
  events: r.events as string[],
  description: (r.description as string | null) ?? null,
  status: r.enabled ? "ENABLED" : "DISABLED",
  disabled_reason: r.enabled ? null : ((r.disabled_reason as string | null) ?? null),
  created_at: iso(r.created_at) ?? "",
  updated_at: iso(r.updated_at) ?? "",
});

export async function readSubscription(
  sql: Sql,
  tenantId: string,
  id: string,
): Promise<{ body: SubscriptionBody; revision: number } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]),
  );
  return row ? { body: toSubscription(row), revision: Number(row.revision) } : null;
}

const attempt = z
  .strictObject({
    attempt: z.number().int(),
    started_at: timestamp,
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when none answered"),
    error: z.string().nullable(),
  })
  .meta({ id: "WebhookAttempt" });

const deliveryBody = z
  .strictObject({
    id: uuid(),
    webhook_id: z
      .string()
      .describe("The `webhook-id` header: the same on every attempt (receivers dedupe on it)"),
    event_type: z.string(),
    status: z
      .enum(["PENDING", "SENDING", "RETRY_SCHEDULED", "DELIVERED", "FAILED", "CANCELLED", "EXPIRED"])
      .describe(
        "PENDING, SENDING, RETRY_SCHEDULED (tried again at next_attempt_at), DELIVERED (a 2xx), FAILED (every attempt failed), CANCELLED (subscription disabled or deleted first), EXPIRED (not tried within 24 h of its event)",
      ),
    attempts: z.number().int(),
    next_attempt_at: timestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
    attempt_log: z.array(attempt),
    payload: z.record(z.string(), z.unknown()).describe("The body sent: {type, timestamp, data}"),
  })
  .meta({ id: "WebhookDelivery", description: "One event to one subscription, with every attempt" });
type DeliveryBody = z.infer<typeof deliveryBody>;

const DELIVERY_COLUMNS =
  "id, webhook_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error, delivered_at, created_at, attempt_log, payload";

const toDelivery = (r: Row): DeliveryBody => ({
  id: String(r.id),
  webhook_id: String(r.webhook_id),
  event_type: String(r.event_type),
  status: r.status as DeliveryBody["status"],
  attempts: Number(r.attempts),
  next_attempt_at: r.status === "RETRY_SCHEDULED" ? iso(r.next_attempt_at) : null,
  last_status_code: (r.last_status_code as number | null) ?? null,
  last_error: (r.last_error as string | null) ?? null,
  delivered_at: iso(r.delivered_at),
  created_at: iso(r.created_at) ?? "",
  attempt_log: r.attempt_log as DeliveryBody["attempt_log"],
  payload: r.payload as DeliveryBody["payload"],
});

/** Unpaid rent calls due before `today`, per subscription asking for them, not yet announced. */
export async function newlyOverdueCalls(sql: Sql, today: string, limit: number) {
  return sql.query<{
    tenant_id: string;
    subscription_id: string;
    call_id: string;
    lease_id: string;
    period_start: string;
    period_end: string;
    due_date: string;
    total_amount: number;
    paid_amount: number;
  }>(
    `SELECT s.tenant_id, s.id AS subscription_id, c.id AS call_id, c.lease_id,
       to_char(c.period_start, 'YYYY-MM-DD') AS period_start, to_char(c.period_end, 'YYYY-MM-DD') AS period_end,
       to_char(c.due_date, 'YYYY-MM-DD') AS due_date, c.total_amount::float8 AS total_amount,
       c.paid_amount::float8 AS paid_amount
     FROM webhook_subscriptions s
     JOIN rent_calls c ON c.tenant_id = s.tenant_id AND c.status <> 'PAID' AND c.due_date < $1::date
     WHERE s.enabled AND 'rent_call.overdue' = ANY(s.events)
       -- Calls known before the subscription and already overdue then are not history to replay.
       AND (c.due_date >= (s.created_at AT TIME ZONE 'Europe/Paris')::date OR c.created_at >= s.created_at)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                       WHERE d.subscription_id = s.id AND d.webhook_id = 'rent_call_overdue_' || c.id)
     LIMIT $2`,
    [today, limit],
  );
}

export async function webhookQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    WEBHOOKS_PATH,
    {
      schema: {
        tags,
        summary: "The tenant's webhook subscriptions (never their secret), oldest first",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(subscriptionBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { page, limit } = request.query;
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "webhook_subscriptions",
        select: COLUMNS,
        where: "tenant_id = $1",
        params: [tenantId],
        page,
        limit,
      });
      return sendPage(request, reply, { items: rows.map(toSubscription), total, page, limit });
    },
  );

  api.get(
    `${WEBHOOKS_PATH}/:subscription_id`,
    {
      schema: {
        tags,
        summary: "One webhook subscription (never its secret)",
        params: subscriptionParams,
        response: answers(subscriptionBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { subscription_id } = request.params;
      const found = await readSubscription(sql, tenantOf(request), subscription_id);
      if (!found) throw notFound("Webhook subscription", subscription_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    `${WEBHOOKS_PATH}/:subscription_id/deliveries`,
    {
      schema: {
        tags,
        summary: "The delivery log of a subscription: each event, its status and every attempt, oldest first",
        params: subscriptionParams,
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(deliveryBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { subscription_id } = request.params;
      if (!(await readSubscription(sql, tenantId, subscription_id)))
        throw notFound("Webhook subscription", subscription_id);
      const { page, limit } = request.query;
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "webhook_deliveries",
        select: DELIVERY_COLUMNS,
        where: "tenant_id = $1 AND subscription_id = $2",
        params: [tenantId, subscription_id],
        page,
        limit,
      });
      return sendPage(request, reply, { items: rows.map(toDelivery), total, page, limit });
    },
  );
}
