import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { MESSAGE_STATUSES } from "../events/messages.ts";
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
 * The outbox's delivery status (docs/messages.md): GET /api/messages and one message, from the
 * `messages` read model. Settings permissions (docs/design.md §7.0: outbound communication is Settings).
 */

const tags = ["Messages"];
const read = { access: "SettingsRead" as const };

export const messageParams = z.strictObject({ message_id: uuid() });

const recipient = z
  .strictObject({ email: z.string(), name: z.string().nullable() })
  .meta({ id: "MessageRecipient" });

export const messageBody = z
  .strictObject({
    id: uuid(),
    topic: z.string().describe("What kind of message: rent-reminder, amendment-notice, ..."),
    channel: z.enum(["email"]),
    to: z
      .array(recipient)
      .nullable()
      .describe("null once a recipient's personal data was erased (docs/personal-data.md)"),
    subject: z.string().nullable().describe("null once a recipient's personal data was erased"),
    related: z
      .strictObject({ kind: z.string(), id: z.string() })
      .nullable()
      .describe("What the message is about (e.g. kind lease_amendment and its id)"),
    status: z
      .enum(MESSAGE_STATUSES)
      .describe(
        "QUEUED, SENDING, DELIVERED, RETRY_SCHEDULED (a transient failure, tried again at next_attempt_at), FAILED (refused for good or out of attempts), UNCERTAIN (its sender stopped after the end of the data: it may have arrived; never resent on its own)",
      ),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    provider_message_id: z.string().nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    erased_at: timestamp
      .nullable()
      .describe("When a recipient's personal data was erased (GDPR art. 17): the message is never sent"),
  })
  .meta({ id: "Message", description: "An outbound message and its delivery status (docs/messages.md)" });

export type MessageBody = z.infer<typeof messageBody>;

const listQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(MESSAGE_STATUSES).optional(),
  topic: z.string().min(1).max(100).optional(),
  related_kind: z.string().min(1).max(100).optional(),
  related_id: z.string().min(1).max(100).optional(),
});

const COLUMNS =
  "id, topic, channel, recipients, subject, related_kind, related_id, status, attempts, last_error, next_attempt_at, provider_message_id, delivered_at, revision, created_at, updated_at, erased_at";

export const toMessage = (r: Row): MessageBody => ({
  id: String(r.id),
  topic: String(r.topic),
  channel: "email",
  to: (r.recipients as MessageBody["to"]) ?? null,
  subject: (r.subject as string | null) ?? null,
  related: r.related_kind ? { kind: String(r.related_kind), id: String(r.related_id) } : null,
  status: r.status as MessageBody["status"],
  attempts: Number(r.attempts),
  last_error: (r.last_error as string | null) ?? null,
  // A retry time matters only while one is scheduled (QUEUED rows keep their queuing time).
  next_attempt_at: r.status === "RETRY_SCHEDULED" ? iso(r.next_attempt_at) : null,
  provider_message_id: (r.provider_message_id as string | null) ?? null,
  delivered_at: iso(r.delivered_at),
  created_at: iso(r.created_at) ?? "",
  updated_at: iso(r.updated_at) ?? "",
  erased_at: iso(r.erased_at),
});

/** One message of the tenant with its stream revision, or null (another tenant's reads as absent). */
export async function readMessage(
  sql: Sql,
  tenantId: string,
  id: string,
): Promise<{ body: MessageBody; revision: number } | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: toMessage(row), revision: Number(row.revision) } : null;
}

export async function messageQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/messages",
    {
      schema: {
        tags,
        summary: "Outbound messages and their delivery status, oldest first",
        querystring: listQuery,
        response: answers(z.array(messageBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { page, limit, ...filters } = request.query;
      const where = ["tenant_id = $1"];
      const params: unknown[] = [tenantId];
      for (const [column, value] of Object.entries(filters)) {
        if (value === undefined) continue;
        params.push(value);
        where.push(`${column} = $${params.length}`);
      }
      const { rows, total } = await readPage<Row>(sql, tenantId, {
        table: "messages",
        select: COLUMNS,
        where: where.join(" AND "),
        params,
        page,
        limit,
      });
      return sendPage(request, reply, { items: rows.map(toMessage), total, page, limit });
    },
  );

  api.get(
    "/api/messages/:message_id",
    {
      schema: {
        tags,
        summary: "One outbound message and its delivery status",
        params: messageParams,
        response: answers(messageBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { message_id } = request.params;
      const found = await readMessage(sql, tenantOf(request), message_id);
      if (!found) throw notFound("Message", message_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}
