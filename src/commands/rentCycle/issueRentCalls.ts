import {
  type AccountEvent,
  leaseAccountStream,
  openingBalanceRecorded,
  rentCallId,
} from "../../events/rentCycle.ts";
import { legalToday } from "../../law/calendar.ts";
import { endsAtTerm, type LeaseType } from "../../law/leaseTypes.ts";
import {
  periodIndexOn,
  periodsStartedBy,
  type RentPeriod,
  type RentScheduleFacts,
} from "../../law/rentPeriods.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventMetadata, EventStore, StreamWrite } from "../../platform/eventstore/eventStore.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { mapLimit } from "../../platform/mapLimit.ts";
import { type CommandContext, runCommand } from "../../platform/runCommand.ts";
import {
  type RentCallCandidate,
  readRentCallCandidates,
  readRentHistories,
} from "../../queries/rentCycle.ts";
import { accountDecider } from "./decider.ts";

export const RENT_CALLS_QUEUE = "rent-calls";
export const FIRST_RENT_CALLS_QUEUE = "rent-calls-first";

/** Leases appended together in one commit (engines with multi-stream appends). */
const CHUNK = 1000;

/**
 * The lease's last day as the schedule sees it: a terminated lease ends on its end (the notice's,
 * when the keys came back before it after the lessee's notice); a lease under notice on its
 * notice's end; a lease that ends at its term (bail mobilité, étudiant) on its end date; others
 * renew tacitly and run on (the lease-expiry job moves their end date).
 */
function lastDayOf(lease: RentCallCandidate): string | null {
  if (lease.status === "TERMINATED" && lease.terminated_at) return lease.terminated_at;
  if (lease.status === "NOTICE" && lease.notice_end_date) return lease.notice_end_date;
  return endsAtTerm(lease.lease_type as LeaseType) ? lease.end_date : null;
}

type History = Awaited<ReturnType<typeof readRentHistories>> extends Map<string, infer H> ? H : never;

export function scheduleOf(lease: RentCallCandidate, history: History = []): RentScheduleFacts {
  const first = history[0];
  return {
    start_date: lease.start_date,
    end_date: lastDayOf(lease),
    rent_frequency: lease.rent_frequency,
    payment_terms: lease.payment_terms,
    payment_day: lease.payment_day,
    takeover_date: lease.takeover_date,
    // The rent at the start is the first change's previous rent; without changes, the lease's own.
    rent_amount: first ? first.previous_rent_amount : lease.rent_amount,
    charges_amount: first ? first.previous_charges_amount : lease.charges_amount,
    changes: history.map((h) => ({
      effective_date: h.effective_date,
      rent_amount: h.rent_amount,
      charges_amount: h.charges_amount,
    })),
  };
}

/** Whether a period after the last called one has started by `today` (no amounts computed). */
function mayNeedCalls(lease: RentCallCandidate, today: string): boolean {
  if (lease.last_period_start === null) return lease.takeover_date === null || lease.takeover_date <= today;
  const facts = { start_date: lease.start_date, rent_frequency: lease.rent_frequency };
  const end = lastDayOf(lease);
  if (end !== null && periodIndexOn(facts, lease.last_period_start) >= periodIndexOn(facts, end))
    return false;
  return periodIndexOn(facts, today) > periodIndexOn(facts, lease.last_period_start);
}

const metadataFor = (tenantId: string, today: string): EventMetadata => ({
  tenant_id: tenantId,
  actor_key_id: null,
  correlation_id: `${RENT_CALLS_QUEUE}-${today}`,
  causation_id: null,
  occurred_at: new Date().toISOString(),
});

const callEvent = (leaseId: string, period: RentPeriod): AccountEvent => ({
  type: "RentCallIssued",
  data: { call_id: rentCallId(leaseId, period.period_start), lease_id: leaseId, ...period },
});

interface Due {
  lease: RentCallCandidate;
  periods: RentPeriod[];
}

/** A lease taken over owes its opening balance from its takeover date: recorded with its first calls. */
const openingOf = (lease: RentCallCandidate) =>
  lease.takeover_date !== null && (lease.opening_balance ?? 0) > 0 && lease.account_revision === null
    ? { amount: lease.opening_balance as number, on: lease.takeover_date }
    : null;

/**
 * The write of a lease's new calls at the revision the read model last saw. Event ids come from the
 * stream and the period, so a retried or concurrent run appending the same calls at the same
 * revision writes nothing (the store's idempotent append) and one at another revision is refused.
 */
function writeOf(due: Due, today: string): StreamWrite {
  const stream = leaseAccountStream(due.lease.id);
  const metadata = metadataFor(due.lease.tenant_id, today);
  return {
    stream_name: stream,
    expected_revision: due.lease.account_revision === null ? "no_stream" : BigInt(due.lease.account_revision),
    events: [
      ...openingEvents(due.lease, stream, metadata),
      ...due.periods.map((p) => {
        const e = callEvent(due.lease.id, p);
        return {
          event_id: deterministicUuid("rent_call_issued", stream, p.period_start),
          type: e.type,
          data: e.data,
          metadata,
        };
      }),
    ],
  };
}

function openingEvents(lease: RentCallCandidate, stream: string, metadata: EventMetadata) {
  const opening = openingOf(lease);
  if (!opening) return [];
  const event = openingBalanceRecorded(lease.id, opening);
  return [{ event_id: deterministicUuid("opening_balance_recorded", stream), ...event, metadata }];
}

/** The slow path: read the stream, let the decider skip called periods, append at its revision. */
async function issueOne(store: EventStore, due: Due, today: string): Promise<number> {
  const context: CommandContext = {
    store,
    tenant_id: due.lease.tenant_id,
    metadata: metadataFor(due.lease.tenant_id, today),
  };
  const result = await runCommand(context, leaseAccountStream(due.lease.id), accountDecider, {
    type: "IssueRentCalls",
    lease_id: due.lease.id,
    periods: due.periods,
    opening_balance: openingOf(due.lease),
  });
  return result.events.length;
}

/**
 * One lease's calls at the read model's revision (idempotent with the same ids: another run that
 * wrote them first leaves nothing to write), else, the stream having moved, through the decider.
 */
async function issueAtRevision(store: EventStore, due: Due, today: string): Promise<number> {
  const write = writeOf(due, today);
  try {
    await store.appendToStream(write.stream_name, write.events, {
      expected_revision: write.expected_revision,
    });
    return write.events.length;
  } catch {
    return issueOne(store, due, today);
  }
}

async function issueChunk(store: EventStore, chunk: Due[], today: string): Promise<number> {
  const calls = chunk.reduce((s, d) => s + d.periods.length, 0);
  if (store.appendToStreams) {
    try {
      await store.appendToStreams(chunk.map((d) => writeOf(d, today)));
      return calls;
    } catch {
      // A lease moved since the read model saw it (a payment, another run): one by one.
    }
  }
  const issued = await mapLimit(chunk, 16, (d) => issueAtRevision(store, d, today));
  return issued.reduce((s, n) => s + n, 0);
}

export interface RentCallsRun {
  leases: number;
  /** Calls written by this run, or found written with the same ids by a concurrent one. */
  calls: number;
  date: string;
}

/**
 * The `rent-calls` job (docs/rent-cycle.md): for every ACTIVE or NOTICE lease, a call for every
 * period that has started by `today` and has none. Leases whose periods are all called (the
 * read model's last called period) are skipped without reading their stream: a second run the same
 * day writes nothing. Exactly one call per (lease, period): the call id is the period's, the decider
 * skips a called period, every append is at the stream's expected revision.
 */
export async function issueRentCalls(
  deps: { sql: Sql; store: EventStore },
  options: { today?: string; uncalledOnly?: boolean; tenantId?: string | null } = {},
): Promise<RentCallsRun> {
  const today = options.today ?? legalToday();
  const candidates = await readRentCallCandidates(deps.sql, { ...options, today });
  const pending = candidates.filter((l) => mayNeedCalls(l, today));
  const histories = await readRentHistories(
    deps.sql,
    pending.map((l) => l.id),
  );
  const due: Due[] = [];
  for (const lease of pending) {
    const periods = periodsStartedBy(
      scheduleOf(lease, histories.get(lease.id)),
      today,
      lease.last_period_start,
    );
    if (periods.length > 0) due.push({ lease, periods });
  }
  let calls = 0;
  for (let i = 0; i < due.length; i += CHUNK)
    calls += await issueChunk(deps.store, due.slice(i, i + CHUNK), today);
  return { leases: due.length, calls, date: today };
}
