import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  type EventStoreDBClient,
  FORWARDS,
  type ReadPosition,
} from "@eventstore/db-client";
import { metrics } from "../../collectMetrics.ts";
import { comparePositions, type Position, type ReadAllOptions, type RecordedEvent } from "../eventStore.ts";
import { isSystemType, toReadPosition, toRecordedEvent } from "./mapping.ts";

/** Events fetched per request to the server; system events are among them and dropped here. */
const PAGE = 500;
/** As the PostgreSQL adapter: a call without max_count returns one bounded batch, not the whole log. */
const DEFAULT_MAX_COUNT = 1000;
/** Read starts remembered (a few per projector); past it the memory starts over. */
const REMEMBERED = 256;

/**
 * What earlier reads of this store scanned of $all: `skip` maps a read's exclusive start to the
 * position up to which nothing after it is ours; `head` the last headPosition answer and the
 * newest position it had seen. $all only grows at its end (a later commit has a greater commit
 * position), so what was scanned never changes: foreign events are fetched once, not at every poll.
 */
export interface ScanMemory {
  skip: Map<string, Position>;
  head?: { seen: Position; ours: Position | null };
}

export const scanMemory = (): ScanMemory => ({ skip: new Map() });

const keyOf = (after: Position | undefined) => (after ? `${after.commit}/${after.prepare}` : "start");

/**
 * Committed events of $all strictly after `options.after`, in log order. Client v6 sends no filter
 * on reads (streams/readAll.js sets "no filter"; only subscriptions take one), so system and
 * foreign events are dropped here and a page may yield fewer than max_count: keep paging until
 * max_count user events or the end of the log. ESDB's fromPosition is inclusive, hence the strict
 * comparison with the lower bound. `memory` lets the next read from the same start begin where
 * this one stopped.
 */
export async function readAll(
  client: EventStoreDBClient,
  options: ReadAllOptions = {},
  ours: OurStreams = allStreams,
  memory: ScanMemory = scanMemory(),
): Promise<RecordedEvent[]> {
  const limit = options.max_count ?? DEFAULT_MAX_COUNT;
  const events: RecordedEvent[] = [];
  const start = options.after && options.after.commit >= 0n ? options.after : undefined;
  let after = memory.skip.get(keyOf(start)) ?? start;
  scan: while (events.length < limit) {
    const page = await readPage(client, toReadPosition(after), FORWARDS);
    for (const resolved of page) {
      const position = resolved.event?.position;
      if (!position || (after && comparePositions(position, after) <= 0)) continue;
      const event = userEvent(resolved, ours);
      if (event) {
        if (events.length >= limit) break scan;
        events.push(event);
      }
      after = position;
    }
    if (page.length < PAGE) break;
  }
  // The next read starts after our last event (or where this one started): from there, all up to
  // `after` was not ours.
  const from = events.length > 0 ? events[events.length - 1].position : start;
  if (after && (!from || comparePositions(after, from) > 0)) {
    if (memory.skip.size >= REMEMBERED) memory.skip.clear();
    memory.skip.set(keyOf(from), after);
  }
  return events;
}

/**
 * The newest user event's position: read $all backwards from the end past any system or foreign
 * events, down to what the last call had seen (its answer still holds below that).
 */
export async function headPosition(
  client: EventStoreDBClient,
  ours: OurStreams = allStreams,
  memory: ScanMemory = scanMemory(),
): Promise<Position | null> {
  const known = memory.head;
  let before: Position | undefined;
  let newest: Position | undefined;
  const answer = (head: Position | null) => {
    const seen = newest ?? known?.seen;
    if (seen) memory.head = { seen, ours: head };
    return head;
  };
  // Nothing new since the last call is the common case: then one event is all it fetches.
  for (let count = known ? 1 : PAGE; ; count = PAGE) {
    const page = await readPage(client, before ?? END, BACKWARDS, count);
    for (const resolved of page) {
      const position = resolved.event?.position;
      if (!position || (before && comparePositions(position, before) >= 0)) continue;
      if (known && comparePositions(position, known.seen) <= 0) return answer(known.ours);
      before = position;
      newest ??= position;
      const event = userEvent(resolved, ours);
      if (event) return answer(event.position);
    }
    if (page.length < count) return answer(known?.ours ?? null);
  }
}

async function readPage(
  client: EventStoreDBClient,
  fromPosition: ReadPosition,
  direction: typeof FORWARDS | typeof BACKWARDS,
  maxCount = PAGE,
): Promise<AllStreamResolvedEvent[]> {
  const page: AllStreamResolvedEvent[] = [];
  for await (const resolved of client.readAll({ fromPosition, direction, maxCount })) page.push(resolved);
  return page;
}

/** Which streams are this service's: by category (the part before the first `-`). */
export type OurStreams = (stream_name: string) => boolean;
const allStreams: OurStreams = () => true;

/** Categories as an OurStreams test; none given: every stream (tests, a log of ours alone). */
export const streamsOf = (categories?: readonly string[]): OurStreams => {
  if (!categories) return allStreams;
  const set = new Set(categories);
  return (stream_name) => set.has(stream_name.slice(0, stream_name.indexOf("-")));
};

/** Skipped event ids already warned about (bounded: a foreign stream is re-read on every poll). */
const warned = new Set<string>();

/**
 * The event as the port's, or null when it is not one of ours: EventStoreDB's own (`$` types,
 * `$` streams), another application's stream on the same server (`$all` is server-wide), or one
 * that cannot be decoded (binary data or metadata, no tenant). A skip is counted
 * (`pms_events_skipped_total`) and warned once per event, and never stops a reader.
 */
export function userEvent(
  resolved: AllStreamResolvedEvent,
  ours: OurStreams = allStreams,
): RecordedEvent | null {
  const raw = resolved.event;
  if (!raw || isSystemType(raw.type) || raw.streamId.startsWith("$")) return null;
  if (!ours(raw.streamId)) return skipped("foreign", raw, "not a stream category of this service");
  try {
    const event = toRecordedEvent(resolved);
    if (event && typeof event.metadata?.tenant_id !== "string")
      throw new Error("its metadata names no tenant");
    return event;
  } catch (error) {
    return skipped("undecodable", raw, (error as Error).message);
  }
}

export function skipped(
  reason: string,
  raw: { id: string; streamId: string; type: string },
  why: string,
): null {
  metrics.skippedEvents.inc({ reason });
  if (!warned.has(raw.id)) {
    if (warned.size >= 10_000) warned.clear();
    warned.add(raw.id);
    process.emitWarning(`Skipped event ${raw.id} (${raw.type}) of stream ${raw.streamId}: ${why}`);
  }
  return null;
}
