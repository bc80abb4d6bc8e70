import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  bankAccountResource,
  bankLedgerStream,
  type CsvMapping,
  type Ledger,
  type LedgerEvent,
  STATEMENT_FORMATS,
  type StatementFormat,
} from "../../events/bank/index.ts";
import { readOneFile } from "../../platform/blobs/readOneFile.ts";
import { notFound, validationError } from "../../platform/errors.ts";
import { latestPosition } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import {
  type CommandResult,
  handleCommand,
  newResourceId,
  replyAfterProjection,
} from "../../platform/http/handleCommand.ts";
import { honourIdempotencyKey } from "../../platform/http/idempotency.ts";
import { uploadBody } from "../../platform/http/openapi.ts";
import { createdAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { text, uuid } from "../../platform/http/schemas.ts";
import { readResource } from "../../platform/resource/read.ts";
import { streamCachesPerStore } from "../../platform/streamCache.ts";
import { bankLineBody, readBankLine } from "../../queries/bank/index.ts";
import { mandateIbans } from "../../queries/bank/mandates.ts";
import { callsToMatch, leasesOfCalls } from "../../queries/rentCycle.ts";
import { returnCollectedDebits } from "./collections.ts";
import { type LedgerCommand, ledgerDecider } from "./ledger.ts";
import { withMandateIbans } from "./matching.ts";
import { parseStatement } from "./parsers/index.ts";
import { settlementOf } from "./payments.ts";
import { settleOnLeaseAccounts } from "./settlement.ts";

/**
 * Statements and the queue (docs/design.md §7.7, docs/bank.md): import, match, unmatch, ignore. Each
 * command is decided on the account's ledger, then settled on the lease accounts it names (payments
 * recorded or cancelled, idempotent by payment id). FinanceWrite.
 */

const tags = ["Bank"];
const ledgerCacheOf = streamCachesPerStore();

const runLedger = (request: FastifyRequest, accountId: string, command: LedgerCommand) =>
  handleCommand(request, bankLedgerStream(accountId), ledgerDecider, command, {
    cache: ledgerCacheOf(request.server.platform.store),
  });

/**
 * Settles the ledger's events on the lease accounts (`settlementOf`, written in bulk by
 * `settleOnLeaseAccounts`). Returns the position the answer waits for: the ledger's append or the
 * last settlement write, whichever is later (positions are ordered, so waiting for it is waiting
 * for every write of the command: read-your-writes on the calls, 202 past the bound).
 */
async function settle(request: FastifyRequest, result: CommandResult<Ledger, LedgerEvent>) {
  const settled = await settleOnLeaseAccounts(request, settlementOf(result.events, result.state));
  return latestPosition([result.position, settled]);
}

const importAnswer = z
  .strictObject({
    id: uuid(),
    format: z.enum(STATEMENT_FORMATS),
    lines: z.number().int().describe("Lines in the file"),
    new_lines: z.number().int().describe("Lines the account did not hold yet"),
    matched: z.number().int().describe("New lines matched for sure (their payments recorded)"),
    unmatched: z.number().int().describe("New lines left in the queue"),
  })
  .meta({ id: "StatementImport" });

const matchBody = z
  .strictObject({
    matches: z
      .array(z.strictObject({ rent_call_id: uuid(), amount: z.number().finite() }))
      .min(1)
      .max(100),
  })
  .meta({ id: "BankLineMatch" });

const accountParams = z.strictObject({ bank_account_id: uuid() });
const lineParams = z.strictObject({ line_id: uuid() });

export async function statementRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/bank-accounts/:bank_account_id/statements",
    {
      schema: {
        tags,
        summary:
          "Import a statement (camt.053, camt.054, OFX 1 or 2, CSV): new lines only, sure matches recorded",
        params: accountParams,
        ...uploadBody(z.strictObject({ format: z.enum(STATEMENT_FORMATS).optional() })),
        response: createdAnswers(importAnswer),
      },
      config: { access: "FinanceWrite" as const },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { bank_account_id } = request.params;
      const account = await readResource(sql, bankAccountResource, tenant, bank_account_id);
      if (!account) throw notFound(bankAccountResource.label, bank_account_id);
      const upload = await readOneFile(request, ["format"]);
      const format = upload.fields.format?.trim().toUpperCase();
      if (format !== undefined && !(STATEMENT_FORMATS as readonly string[]).includes(format))
        throw validationError("Invalid statement", [
          { field: "format", message: `Must be one of ${STATEMENT_FORMATS.join(", ")}` },
        ]);
      const sha256 = createHash("sha256").update(upload.bytes).digest("hex");
      if (await honourIdempotencyKey(request, reply, `${format ?? ""}\u0000${sha256}`)) return reply;
      const parsed = parseStatement(
        upload.bytes,
        format as StatementFormat | undefined,
        (account.body.csv_mapping as CsvMapping | null) ?? null,
      );
      const statement_id = newResourceId(request);
      const calls = withMandateIbans(await callsToMatch(sql, tenant), await mandateIbans(sql, tenant));
      const result = await runLedger(request, bank_account_id, {
        type: "ImportStatement",
        bank_account_id,
        statement_id,
        format: parsed.format,
        lines: parsed.lines,
        calls,
      });
      const settled = await settle(request, result);
      const imported = result.events.find((e) => e.type === "BankStatementImported");
      const fresh = imported?.type === "BankStatementImported" ? imported.data.lines : [];
      const new_lines = fresh.length;
      // A return of a direct debit this account collected: the collection's payment is cancelled,
      // then the line is accounted for on the ledger.
      let position = settled;
      const debitReturns = await returnCollectedDebits(request, bank_account_id, fresh, result.events);
      for (const r of debitReturns) {
        const marked = await runLedger(request, bank_account_id, {
          type: "SettleDebitReturn",
          bank_account_id,
          ...r,
        });
        position = latestPosition([position, marked.position]);
      }
      // A return that found its credit is accounted for, as a sure match is.
      const matched =
        fresh.filter((l) => l.sure).length +
        result.events.filter((e) => e.type === "BankLineReturned").length +
        debitReturns.length;
      return replyAfterProjection(request, reply, {
        position,
        status: 201,
        id: statement_id,
        location: `/api/bank-accounts/${bank_account_id}/lines`,
        read: async () => ({
          id: statement_id,
          format: parsed.format,
          lines: parsed.lines.length,
          new_lines,
          matched,
          unmatched: new_lines - matched,
        }),
      });
    },
  );

  /** A line command: decided on its account's ledger, settled, answered with the line. */
  const onLine = async (
    request: FastifyRequest,
    reply: import("fastify").FastifyReply,
    lineId: string,
    command: (accountId: string) => Promise<LedgerCommand>,
  ) => {
    const tenant = tenantOf(request);
    const found = await readBankLine(sql, tenant, lineId);
    if (!found) throw notFound("Bank line", lineId);
    const result = await runLedger(request, found.bank_account_id, await command(found.bank_account_id));
    return replyAfterProjection(request, reply, {
      position: await settle(request, result),
      status: 200,
      id: lineId,
      read: async () => (await readBankLine(sql, tenant, lineId))?.line,
    });
  };

  api.post(
    "/api/bank-lines/:line_id/match",
    {
      schema: {
        tags,
        summary:
          "Match a line to one or several rent calls (amounts summing to the line): records the payments",
        params: lineParams,
        body: matchBody,
        response: updatedAnswers(bankLineBody),
      },
      config: { access: "FinanceWrite" as const, invalidBodyMessage: "Invalid match" },
    },
    async (request, reply) => {
      const { line_id } = request.params;
      const { matches } = request.body;
      const leases = await leasesOfCalls(
        sql,
        tenantOf(request),
        matches.map((m) => m.rent_call_id),
      );
      const unknown = matches.flatMap((m, i) =>
        leases.has(m.rent_call_id)
          ? []
          : [{ field: `matches.${i}.rent_call_id`, message: `Rent call ${m.rent_call_id} not found` }],
      );
      if (unknown.length > 0) throw validationError("Invalid match", unknown);
      return onLine(request, reply, line_id, async (bank_account_id) => ({
        type: "MatchLine",
        bank_account_id,
        line_id,
        matches: matches.map((m) => ({ ...m, lease_id: leases.get(m.rent_call_id) as string })),
      }));
    },
  );

  api.post(
    "/api/bank-lines/:line_id/unmatch",
    {
      schema: {
        tags,
        summary: "Undo a line's match: its payments are cancelled, the line waits in the queue again",
        params: lineParams,
        body: z.strictObject({ reason: text(500).optional() }).optional(),
        response: updatedAnswers(bankLineBody),
      },
      config: { access: "FinanceWrite" as const },
    },
    async (request, reply) => {
      const { line_id } = request.params;
      return onLine(request, reply, line_id, async (bank_account_id) => ({
        type: "UnmatchLine",
        bank_account_id,
        line_id,
        reason: request.body?.reason ?? "Unmatched by a person",
      }));
    },
  );

  api.post(
    "/api/bank-lines/:line_id/ignore",
    {
      schema: {
        tags,
        summary: "Set a line aside: it pays no rent (bank fees, another income)",
        params: lineParams,
        response: updatedAnswers(bankLineBody),
      },
      config: { access: "FinanceWrite" as const },
    },
    async (request, reply) => {
      const { line_id } = request.params;
      return onLine(request, reply, line_id, async (bank_account_id) => ({
        type: "IgnoreLine",
        bank_account_id,
        line_id,
      }));
    },
  );
}
