import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type CollectionEvent, sepaCollectionsStream } from "../../events/bank/collections.ts";
import { type BankLineData, bankAccountResource, type LedgerEvent } from "../../events/bank/index.ts";
import { sepaMandateStream } from "../../events/bank/mandates.ts";
import { leaseAccountStream } from "../../events/rentCycle.ts";
import { legalToday } from "../../law/calendar.ts";
import { cents } from "../../law/money.ts";
import { readOneFile } from "../../platform/blobs/readOneFile.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { honourIdempotencyKey } from "../../platform/http/idempotency.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { readResource } from "../../platform/resource/read.ts";
import {
  collectedDebits,
  collectionBody,
  collectionCandidates,
  collectionOf,
  readCollection,
} from "../../queries/bank/collections.ts";
import { date } from "../../queries/leasesSchemas.ts";
import { decideInBulk } from "./bulkSettle.ts";
import { collectionDecider } from "./collectionDecider.ts";
import { mandateDecider } from "./mandates.ts";
import { parseStatusReport } from "./parsers/pain002.ts";
import { bankPaymentDecider, collectionSettlementOf } from "./payments.ts";
import { queueRejectNotices } from "./rejectNotices.ts";

/**
 * SEPA collections (docs/design.md §7.7, docs/bank.md "SEPA collections"): a batch per creditor
 * account and due date, decided on the account's collections stream, then settled: a debit payment
 * per call on its lease account, the mandates it used marked used (FRST then RCUR). A pain.002
 * status report's rejects cancel those payments with their reason. FinanceWrite.
 */

const tags = ["Bank"];

/** The batch's payments and mandate uses (or a report's cancellations), idempotent by their ids. */
async function settle(request: FastifyRequest, events: readonly CollectionEvent[]) {
  // Told before the payments are cancelled: a stop between the two leaves a cancellation for the
  // settlement loop, which queues the same notices again (no-ops) before it cancels.
  const { sql, store } = request.server.platform;
  await queueRejectNotices(
    { sql, store },
    events.flatMap((e) =>
      e.type === "SepaCollectionRejected"
        ? e.data.rejections.map((r) => ({
            tenant_id: tenantOf(request),
            collection_id: e.data.collection_id,
            end_to_end_id: r.end_to_end_id,
            lease_id: r.lease_id,
            reason_code: r.reason_code,
          }))
        : [],
    ),
  );
  const payments = await decideInBulk(
    request,
    bankPaymentDecider,
    collectionSettlementOf(events).map((command) => ({
      stream: leaseAccountStream(command.lease_id),
      command,
    })),
  );
  const uses = events.flatMap((e) => {
    if (e.type !== "SepaCollectionCreated") return [];
    const mandates = new Map(e.data.transactions.map((t) => [t.mandate_id, t.lease_id]));
    return [...mandates].map(([mandate_id, lease_id]) => ({
      stream: sepaMandateStream(mandate_id),
      command: {
        type: "UseMandate" as const,
        mandate_id,
        lease_id,
        collection_id: e.data.collection_id,
        used_on: e.data.due_on,
      },
    }));
  });
  const used = await decideInBulk(request, mandateDecider, uses);
  const { platform } = request.server;
  for (const p of [payments, used])
    if (p) await platform.projections.waitFor(p, platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS);
}

const newCollection = z.strictObject({ due_on: date() }).meta({ id: "NewSepaCollection" });

/** The lessor's name for the file (Cdtr/Nm): the account's owner, else the account's label. */
async function creditorName(request: FastifyRequest, tenant: string, label: string, ownerId: unknown) {
  if (typeof ownerId !== "string") return label;
  const [row] = await request.server.platform.sql.asTenant(tenant, (tx) =>
    tx.query<{ name: string | null }>(
      `SELECT nullif(concat_ws(' ', first_name, last_name, legal_name), '') AS name FROM owners
       WHERE tenant_id = $1 AND id = $2`,
      [tenant, ownerId],
    ),
  );
  return row?.name ?? label;
}

/**
 * R-transactions of a statement that return a direct debit of this account (a refund MD06 within 8
 * weeks, 13 months when unauthorised, a return after settlement): found by their end-to-end id and
 * amount among the account's batches, the collection's payment is cancelled with the reason, as a
 * pain.002 reject's is. Returns the lines the ledger then accounts for (src/commands/bank/statements.ts).
 */
export async function returnCollectedDebits(
  request: FastifyRequest,
  accountId: string,
  lines: readonly BankLineData[],
  events: readonly LedgerEvent[],
) {
  const returned = new Set(events.flatMap((e) => (e.type === "BankLineReturned" ? [e.data.line_id] : [])));
  const waiting = lines.filter(
    (l) => l.return_reason && l.reference && cents(l.amount) < 0 && !returned.has(l.line_id),
  );
  if (waiting.length === 0) return [];
  const debits = await collectedDebits(
    request.server.platform.sql,
    tenantOf(request),
    accountId,
    waiting.map((l) => (l.reference as string).trim()),
  );
  const used = new Set<string>();
  const found: { line_id: string; collection_id: string; end_to_end_id: string }[] = [];
  for (const l of waiting) {
    const d = debits.find(
      (x) =>
        x.end_to_end_id === (l.reference as string).trim() &&
        cents(x.amount) === -cents(l.amount) &&
        !used.has(`${x.collection_id} ${x.end_to_end_id}`),
    );
    if (!d) continue;
    used.add(`${d.collection_id} ${d.end_to_end_id}`);
    const result = await handleCommand(request, sepaCollectionsStream(accountId), collectionDecider, {
      type: "ReturnDebit",
      collection_id: d.collection_id,
      bank_account_id: accountId,
      end_to_end_id: d.end_to_end_id,
      reason_code: l.return_reason as string,
      line_id: l.line_id,
    });
    await settle(request, result.events);
    found.push({ line_id: l.line_id, collection_id: d.collection_id, end_to_end_id: d.end_to_end_id });
  }
  return found;
}

export async function collectionRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/bank-accounts/:bank_account_id/sepa-collections",
    {
      schema: {
        tags,
        summary:
          "Collect by SEPA direct debit every open call due on or before due_on of a lease paid by an active mandate",
        params: z.strictObject({ bank_account_id: uuid() }),
        body: newCollection,
        response: createdAnswers(collectionBody),
      },
      config: { access: "FinanceWrite" as const, invalidBodyMessage: "Invalid collection" },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { bank_account_id } = request.params;
      const account = await readResource(sql, bankAccountResource, tenant, bank_account_id);
      if (!account) throw notFound(bankAccountResource.label, bank_account_id);
      const today = legalToday();
      const { due_on } = request.body;
      const body = account.body as Record<string, unknown>;
      const collection_id = newResourceId(request);
      const result = await handleCommand(request, sepaCollectionsStream(bank_account_id), collectionDecider, {
        type: "CreateCollection",
        collection_id,
        bank_account_id,
        due_on,
        today,
        now: new Date().toISOString(),
        creditor: {
          name: await creditorName(request, tenant, String(body.label), body.owner_id),
          iban: String(body.iban),
          bic: (body.bic as string | null) ?? null,
          creditor_id: (body.creditor_id as string | null) ?? null,
        },
        candidates: await collectionCandidates(sql, tenant, due_on, today),
      });
      await settle(request, result.events);
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id: collection_id,
        location: `/api/sepa-collections/${collection_id}`,
        read: async () => {
          const c = await readCollection(sql, tenant, collection_id);
          return c && collectionOf(c.batch, c.rejected);
        },
      });
    },
  );

  api.post(
    "/api/sepa-collections/:collection_id/status-reports",
    {
      schema: {
        tags,
        summary:
          "Read the bank's pain.002 status report: each rejected debit's payment is cancelled with its reason, the call is due again",
        params: z.strictObject({ collection_id: uuid() }),
        ...uploadBody(),
        response: updatedAnswers(collectionBody),
      },
      config: { access: "FinanceWrite" as const },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { collection_id } = request.params;
      const found = await readCollection(sql, tenant, collection_id);
      if (!found) throw notFound("SEPA collection", collection_id);
      const upload = await readOneFile(request, []);
      const sha256 = createHash("sha256").update(upload.bytes).digest("hex");
      if (await honourIdempotencyKey(request, reply, sha256)) return reply;
      const report = parseStatusReport(upload.bytes);
      const { bank_account_id } = found.batch;
      const result = await handleCommand(request, sepaCollectionsStream(bank_account_id), collectionDecider, {
        type: "ReportStatus",
        collection_id,
        bank_account_id,
        report,
      });
      await settle(request, result.events);
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: collection_id,
        read: async () => {
          const c = await readCollection(sql, tenant, collection_id);
          return c && collectionOf(c.batch, c.rejected);
        },
      });
    },
  );
}
