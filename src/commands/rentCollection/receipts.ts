import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  type CollectionState,
  type ReceiptCounterEvent,
  type ReceiptIssuedData,
  receiptCounterStream,
  receiptEventId,
  receiptNumber,
} from "../../events/rentCollection.ts";
import { leaseAccountStream } from "../../events/rentCycle.ts";
import { legalToday } from "../../law/calendar.ts";
import { type ReceiptKind, receiptVerdict } from "../../law/receipts.ts";
import type { Sql } from "../../platform/db.ts";
import { conflict, notFound } from "../../platform/errors.ts";
import {
  type NewEvent,
  type RecordedEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { commandContext } from "../../platform/http/handleCommand.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type CommandContext, loadStream, toNewEvents } from "../../platform/runCommand.ts";
import { contentDisposition } from "../../queries/media.ts";
import { receiptAnswers, receiptParams } from "../../queries/rentCollection.ts";
import {
  callView,
  documentMarkup,
  documentView,
  readLetterFacts,
  renderDocument,
} from "../../queries/rentDocuments.ts";
import { readConfiguration, readTemplate } from "../../queries/settings.ts";
import { callFigures, collectionDecider, findCall, receiptOf } from "./decider.ts";

/**
 * Receipts (loi n° 89-462 art. 21; docs/rent-cycle.md, "Receipts"): `GET .../receipt` hands the
 * document the call is owed, free of charge. A call paid in full gets a quittance, numbered the
 * first time it is asked for (`ReceiptIssued` on the account stream, the number from the tenant's
 * counter of the year) and the same number ever after; a call paid in part gets a reçu (paid and
 * still due, dated, not numbered); an unpaid call is a 409.
 */

const ATTEMPTS = 20;

export interface ReceiptOutcome {
  kind: ReceiptKind;
  state: CollectionState;
  call_id: string;
  /** The quittance's record (null for a reçu). */
  receipt: ReceiptIssuedData | null;
}

/** The next number of the tenant's year, or the one an interrupted issue took for this call. */
function nextNumber(counter: RecordedEvent[], callId: string, prefix: string, year: number) {
  const taken = counter.find((e) => e.type === "ReceiptNumberTaken" && e.data.call_id === callId);
  if (taken)
    return { number: String(taken.data.number), year, sequence: Number(taken.data.sequence), taken: true };
  const sequence = counter.length + 1;
  return { number: receiptNumber(prefix, year, sequence), year, sequence, taken: false };
}

/**
 * Issues (or finds) the receipt of a call. The quittance's number and its `ReceiptIssued` are
 * written in one commit where the engine can (PostgreSQL, embedded): counter at the revision read
 * and account at the revision read, so a concurrent issue (another call, same tenant and year)
 * fails the counter's revision and takes the next number on its retry. Elsewhere (EventStoreDB) the
 * number goes first; an issue cut off in between finds its number again in the counter.
 */
export async function issueReceipt(
  context: CommandContext & { sql: Sql },
  leaseId: string,
  callId: string,
  today = legalToday(),
): Promise<ReceiptOutcome> {
  const { store, tenant_id, metadata } = context;
  const stream = leaseAccountStream(leaseId);
  const prefix = (await readConfiguration(context.sql, tenant_id)).receipt_numbering.prefix;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const loaded = await loadStream(store, stream, tenant_id, collectionDecider);
    if (loaded.foreign || loaded.events.length === 0) {
      if (!(await readLetterFacts(context.sql, tenant_id, leaseId))) throw notFound("Lease", leaseId);
      throw notFound("Rent call", callId);
    }
    const state = loaded.state;
    const call = findCall(state, callId);
    const verdict = receiptVerdict(callFigures(call));
    if (verdict.status === "FAIL") throw conflict(verdict.message, verdict.details.errors);
    if (verdict.details.kind === "RECU") return { kind: "RECU", state, call_id: call.call_id, receipt: null };
    const existing = receiptOf(state, call.call_id);
    if (existing) return { kind: "QUITTANCE", state, call_id: call.call_id, receipt: existing };

    const year = Number(today.slice(0, 4));
    const counterStream = receiptCounterStream(tenant_id, year);
    const counter = await store.readStream(counterStream);
    const taken = nextNumber(counter, call.call_id, prefix, year);
    const events = collectionDecider.decide(
      {
        type: "IssueQuittance",
        lease_id: leaseId,
        call_id: call.call_id,
        number: { number: taken.number, year, sequence: taken.sequence },
        issued_on: today,
      },
      state,
    );
    const account: StreamWrite = {
      stream_name: stream,
      events: toNewEvents(metadata, events, () => receiptEventId(call.call_id)),
      expected_revision: loaded.revision ?? "no_stream",
    };
    const numberEvent: ReceiptCounterEvent = {
      type: "ReceiptNumberTaken",
      data: {
        year,
        sequence: taken.sequence,
        number: taken.number,
        lease_id: leaseId,
        call_id: call.call_id,
      },
    };
    const counterWrite: StreamWrite | null = taken.taken
      ? null
      : {
          stream_name: counterStream,
          events: [
            {
              ...(toNewEvents(metadata, [numberEvent])[0] as NewEvent),
              event_id: deterministicUuid("ReceiptNumberTaken", call.call_id),
            },
          ],
          expected_revision: counter.length > 0 ? counter[counter.length - 1].stream_revision : "no_stream",
        };
    try {
      const writes = counterWrite ? [counterWrite, account] : [account];
      if (store.appendToStreams) await store.appendToStreams(writes);
      else
        for (const w of writes)
          await store.appendToStream(w.stream_name, w.events, { expected_revision: w.expected_revision });
      return {
        kind: "QUITTANCE",
        state,
        call_id: call.call_id,
        receipt: events[0].data as ReceiptIssuedData,
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Another issue took the number, or the account moved: read both again.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5 * attempt)));
    }
  }
  throw conflict("The receipt could not be numbered under concurrent issues; retry");
}

/** The receipt's PDF: the tenant's template of its kind, else the built-in one. */
export async function receiptPdf(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  outcome: ReceiptOutcome,
  today = legalToday(),
): Promise<{ bytes: Buffer; filename: string }> {
  const facts = await readLetterFacts(sql, tenantId, leaseId);
  if (!facts) throw notFound("Lease", leaseId);
  const call = findCall(outcome.state, outcome.call_id);
  const code = outcome.kind === "QUITTANCE" ? "quittance" : "recu";
  const [source, configuration] = await Promise.all([
    readTemplate(sql, tenantId, code),
    readConfiguration(sql, tenantId),
  ]);
  const view = documentView(facts, {
    call: callView(callFigures(call)),
    receipt: outcome.receipt
      ? { number: outcome.receipt.number, issued_on: outcome.receipt.issued_on }
      : { number: "", issued_on: today },
    sender: { name: configuration.sender.name, email: configuration.sender.email },
  });
  const title = outcome.receipt ? `Quittance de loyer ${outcome.receipt.number}` : "Reçu de paiement partiel";
  const bytes = await renderDocument(documentMarkup(code, source, view), title);
  const filename = outcome.receipt
    ? `quittance-${outcome.receipt.number}.pdf`
    : `recu-${call.period_start}-${outcome.call_id.slice(0, 8)}.pdf`;
  return { bytes, filename };
}

export async function receiptRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/leases/:lease_id/rent-calls/:call_id/receipt",
    {
      schema: {
        tags: ["Rent cycle"],
        summary:
          "The receipt of a rent call, free (loi n° 89-462 art. 21): a numbered quittance when paid in full, a reçu when paid in part, 409 when unpaid",
        params: receiptParams,
        response: receiptAnswers,
      },
      config: { access: "FinanceRead" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, call_id } = request.params;
      const outcome = await issueReceipt({ ...commandContext(request), sql }, lease_id, call_id);
      const { bytes, filename } = await receiptPdf(sql, tenantId, lease_id, outcome);
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", contentDisposition("attachment", filename.replace(/\//g, "-")))
        .header("x-receipt-kind", outcome.kind)
        .send(bytes);
    },
  );
}
