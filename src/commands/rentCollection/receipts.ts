import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
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
  type EventStore,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { commandContext } from "../../platform/http/handleCommand.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { oneAtATime } from "../../platform/oneAtATime.ts";
import { type CommandContext, loadStream, toNewEvents } from "../../platform/runCommand.ts";
import { ensureOwnLease, lesseeOf } from "../../queries/lesseeSpace.ts";
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

/** What a counter stream holds: its revision (numbers taken - 1) and, where numbers may be left behind, by which calls. */
interface Counter {
  revision: bigint | null;
  taken: Map<string, { number: string; sequence: number }>;
}

/**
 * Counters as this process last read them, per store: a read then fetches only the numbers taken
 * since (one event per number; a year's counter may hold tens of thousands). A stale entry costs a
 * failed append and a retry, never a wrong number: the append's expected revision decides.
 */
const counters = new WeakMap<EventStore, Map<string, Counter>>();

async function readCounter(store: EventStore, stream: string): Promise<Counter> {
  let kept = counters.get(store);
  if (!kept) {
    kept = new Map();
    counters.set(store, kept);
  }
  const known = kept.get(stream) ?? { revision: null, taken: new Map() };
  const from = known.revision === null ? 0n : known.revision + 1n;
  const events = await store.readStream(stream, { from_revision: from });
  if (events.length === 0) return known;
  const counter: Counter = {
    revision: events[events.length - 1].stream_revision,
    taken: new Map(known.taken),
  };
  // Where numbers commit with their receipt (appendToStreams) none is ever left behind: no need to
  // remember which call took which.
  if (!store.appendToStreams)
    for (const e of events)
      if (e.type === "ReceiptNumberTaken")
        counter.taken.set(String(e.data.call_id), {
          number: String(e.data.number),
          sequence: Number(e.data.sequence),
        });
  if (kept.size > 1000) kept.clear();
  kept.set(stream, counter);
  return counter;
}

/** The receipt a call is owed as its stream reads now; `null`: a quittance still to number. */
async function judged(context: CommandContext & { sql: Sql }, leaseId: string, callId: string) {
  const { store, tenant_id } = context;
  const loaded = await loadStream(store, leaseAccountStream(leaseId), tenant_id, collectionDecider);
  if (loaded.foreign || loaded.events.length === 0) {
    if (!(await readLetterFacts(context.sql, tenant_id, leaseId))) throw notFound("Lease", leaseId);
    throw notFound("Rent call", callId);
  }
  const state = loaded.state;
  const call = findCall(state, callId);
  const verdict = receiptVerdict(callFigures(call));
  if (verdict.status === "FAIL") throw conflict(verdict.message, verdict.details.errors);
  const done: ReceiptOutcome | null =
    verdict.details.kind === "RECU"
      ? { kind: "RECU", state, call_id: call.call_id, receipt: null }
      : receiptOf(state, call.call_id)
        ? { kind: "QUITTANCE", state, call_id: call.call_id, receipt: receiptOf(state, call.call_id) }
        : null;
  return { loaded, call, done };
}

/**
 * One attempt at numbering: the account and the counter as read now, both appended at those
 * revisions, in one commit where the engine can (PostgreSQL, embedded); elsewhere (EventStoreDB) the
 * number first, and an issue cut off before its `ReceiptIssued` finds its number again in the
 * counter. null when another write came first (read again and retry).
 */
async function numberOnce(
  context: CommandContext & { sql: Sql },
  leaseId: string,
  callId: string,
  prefix: string,
  today: string,
): Promise<ReceiptOutcome | null> {
  const { store, tenant_id, metadata } = context;
  const { loaded, call, done } = await judged(context, leaseId, callId);
  if (done) return done;
  const year = Number(today.slice(0, 4));
  const counterStream = receiptCounterStream(tenant_id, year);
  const counter = await readCounter(store, counterStream);
  const earlier = counter.taken.get(call.call_id);
  const sequence = earlier?.sequence ?? (counter.revision === null ? 1 : Number(counter.revision) + 2);
  const number = earlier?.number ?? receiptNumber(prefix, year, sequence);
  const events = collectionDecider.decide(
    {
      type: "IssueQuittance",
      lease_id: leaseId,
      call_id: call.call_id,
      number: { number, year, sequence },
      issued_on: today,
    },
    loaded.state,
  );
  const writes: StreamWrite[] = [];
  if (!earlier) {
    const taken: ReceiptCounterEvent = {
      type: "ReceiptNumberTaken",
      data: { year, sequence, number, lease_id: leaseId, call_id: call.call_id },
    };
    writes.push({
      stream_name: counterStream,
      events: toNewEvents(metadata, [taken], () => deterministicUuid("ReceiptNumberTaken", call.call_id)),
      expected_revision: counter.revision ?? "no_stream",
    });
  }
  writes.push({
    stream_name: leaseAccountStream(leaseId),
    events: toNewEvents(metadata, events, () => receiptEventId(call.call_id)),
    expected_revision: loaded.revision ?? "no_stream",
  });
  try {
    if (store.appendToStreams) await store.appendToStreams(writes);
    else
      for (const w of writes)
        await store.appendToStream(w.stream_name, w.events, { expected_revision: w.expected_revision });
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return null;
    throw error;
  }
  return {
    kind: "QUITTANCE",
    state: loaded.state,
    call_id: call.call_id,
    receipt: events[0].data as ReceiptIssuedData,
  };
}

/**
 * Issues (or finds) the receipt of a call: a reçu or a quittance already numbered answer at once;
 * a quittance to number waits its turn on the tenant's counter of the year (`oneAtATime`), then
 * `numberOnce`, again on a concurrent write from another process.
 */
export async function issueReceipt(
  context: CommandContext & { sql: Sql },
  leaseId: string,
  callId: string,
  today = legalToday(),
): Promise<ReceiptOutcome> {
  const first = await judged(context, leaseId, callId);
  if (first.done) return first.done;
  const prefix = (await readConfiguration(context.sql, context.tenant_id)).receipt_numbering.prefix;
  const key = receiptCounterStream(context.tenant_id, Number(today.slice(0, 4)));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const outcome = await oneAtATime(key, () => numberOnce(context, leaseId, callId, prefix, today));
    if (outcome) return outcome;
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * attempt)));
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

/**
 * Answers a call's receipt as PDF (issuing it the first time): the staff's route and the lessee's
 * (art. 21: handed free to the tenant who asks) both end here once they know the lease may be read.
 */
async function sendReceipt(request: FastifyRequest, reply: FastifyReply, leaseId: string, callId: string) {
  const { sql } = request.server.platform;
  const tenantId = tenantOf(request);
  const outcome = await issueReceipt({ ...commandContext(request), sql }, leaseId, callId);
  const { bytes, filename } = await receiptPdf(sql, tenantId, leaseId, outcome);
  return reply
    .header("content-type", "application/pdf")
    .header("content-disposition", contentDisposition("attachment", filename.replace(/\//g, "-")))
    .header("x-receipt-kind", outcome.kind)
    .send(bytes);
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
    async (request, reply) => sendReceipt(request, reply, request.params.lease_id, request.params.call_id),
  );

  api.get(
    "/api/lessee/leases/:lease_id/rent-calls/:call_id/receipt",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "The receipt of a rent call of one of the signed-in lessee's leases, free (loi n° 89-462 art. 21): a quittance when paid in full, a reçu when paid in part, 409 when unpaid",
        params: receiptParams,
        response: receiptAnswers,
      },
      config: { access: "lessee:leases:read" },
    },
    async (request, reply) => {
      const { lease_id, call_id } = request.params;
      // Checked before anything is issued: another lessee's lease is a 404 and writes nothing.
      await ensureOwnLease(sql, lesseeOf(request), lease_id);
      return sendReceipt(request, reply, lease_id, call_id);
    },
  );
}
