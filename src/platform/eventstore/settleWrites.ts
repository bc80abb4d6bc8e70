import { setTimeout as sleep } from "node:timers/promises";
import {
  type AppendResult,
  comparePositions,
  type EventStore,
  START,
  StoreUnavailableError,
  type StreamWrite,
  WriteOutcomeUnknownError,
  WrongExpectedRevisionError,
} from "./eventStore.ts";

/** Rounds of read-back and resend before a write is given up as unknown. */
const ROUNDS = 3;
const PAUSE_MS = 50;

/**
 * An append whose outcome is unknown (`ambiguous`: a timeout, a connection cut after the write
 * went out) is settled before the caller hears of it (docs/eventstoredb.md, "Unknown outcomes"):
 * the streams are read back where the write would be (the revision after the expected one). Our
 * event ids there: it committed, answered as such. Another event there: it can never commit
 * (the revision check), a WrongExpectedRevisionError. Nothing there: the same append (same ids)
 * goes again, which either writes it or replays the first. Only when that does not settle it
 * either does the caller get a WriteOutcomeUnknownError. Writes at "any" or "stream_exists"
 * cannot be placed, so they fail with WriteOutcomeUnknownError at once.
 */
export function settleWrites(
  store: EventStore,
  ambiguous: (error: unknown) => boolean,
  /** Wakes the store's listeners (projectors) when a write is found committed by reading back. */
  appended: () => void,
): EventStore {
  const settle = async (writes: StreamWrite[], send: () => Promise<AppendResult[]>) => {
    try {
      return await send();
    } catch (first) {
      if (!ambiguous(first)) throw first;
      const results = await settleUnknown(store, writes, send, ambiguous, first);
      appended();
      return results;
    }
  };
  const appendToStreams = store.appendToStreams;
  return {
    ...store,
    async appendToStream(stream_name, events, options) {
      const write = { stream_name, events, expected_revision: options.expected_revision };
      const [result] = await settle([write], async () => [
        await store.appendToStream(stream_name, events, options),
      ]);
      return result;
    },
    appendToStreams: appendToStreams
      ? (writes) => settle(writes, () => appendToStreams.call(store, writes))
      : undefined,
  };
}

async function settleUnknown(
  store: EventStore,
  writes: StreamWrite[],
  send: () => Promise<AppendResult[]>,
  ambiguous: (error: unknown) => boolean,
  first: unknown,
): Promise<AppendResult[]> {
  let last = first;
  const placed = writes.every(
    (w) => typeof w.expected_revision === "bigint" || w.expected_revision === "no_stream",
  );
  for (let round = 1; placed && round <= ROUNDS; round++) {
    try {
      const found = await readBack(store, writes);
      if (found) return found;
      return await send();
    } catch (error) {
      // A refusal now is certain for the resend; the first may still have won: read again.
      if (error instanceof WrongExpectedRevisionError && !proven.has(error)) continue;
      // A read-back or resend the store could not serve leaves the first write as unknown as it was.
      if (!ambiguous(error) && !(error instanceof StoreUnavailableError)) throw error;
      last = error;
    }
    await sleep(PAUSE_MS * round);
  }
  throw new WriteOutcomeUnknownError(writes[0].stream_name, last);
}

/** Refusals readBack proves (another event took the place): final, not read again. */
const proven = new WeakSet<Error>();

/** The writes' results when every one is in its place, null when none is readable there yet. */
async function readBack(store: EventStore, writes: StreamWrite[]): Promise<AppendResult[] | null> {
  const results: (AppendResult | null)[] = [];
  for (const w of writes) {
    const from = typeof w.expected_revision === "bigint" ? w.expected_revision + 1n : 0n;
    const there = await store.readStream(w.stream_name, { from_revision: from, max_count: w.events.length });
    if (there.length === 0) {
      results.push(null);
      continue;
    }
    if (!w.events.every((e, i) => there[i]?.event_id === e.event_id)) {
      const error = new WrongExpectedRevisionError(
        w.stream_name,
        w.expected_revision,
        there[there.length - 1].stream_revision,
      );
      proven.add(error);
      throw error;
    }
    const last = there[there.length - 1];
    // Stream reads of EventStoreDB servers before 22.6 carry no position: the head is at or after it.
    const position =
      comparePositions(last.position, START) === 0 ? ((await store.headPosition()) ?? START) : last.position;
    results.push({ next_revision: last.stream_revision, position });
  }
  // Multi-stream appends are all or nothing: a write not in place yet means none is; the resend
  // (same ids) answers as a replay should the others be there after all.
  return results.some((r) => r === null) ? null : (results as AppendResult[]);
}
