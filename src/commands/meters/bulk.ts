import type { FastifyRequest } from "fastify";
import { type MeterEvent, type MeterState, meterStream } from "../../events/meters.ts";
import { conflict } from "../../platform/errors.ts";
import {
  type EventMetadata,
  type EventStore,
  type Position,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { metadataOf } from "../../platform/http/handleCommand.ts";
import { mapLimit } from "../../platform/mapLimit.ts";
import { loadStreams, toNewEvents } from "../../platform/runCommand.ts";
import {
  judgeReadings,
  meterDecider,
  type ReadingInput,
  type ReadingOutcome,
  readingEvents,
} from "./decider.ts";

/**
 * The bulk readings route's write (docs/charges.md, "Meters", "Bulk readings"): the readings are
 * grouped by meter, each meter's judged in date order on its state, and every meter's batch is one
 * event (plus one per anomaly) appended to all the meters' streams in one all-or-nothing write at
 * the revisions they were judged at. A stream another writer moved meanwhile fails that write:
 * the whole batch is judged again on fresh states (then 409).
 *
 * States are kept per process (meter id → tenant, revision, state; no events), so a feed that
 * sends a meter's readings request after request does not read its stream each time; the
 * append's expected revision catches a kept state another process made stale.
 */

interface Kept {
  tenant_id: string;
  revision: bigint;
  state: MeterState;
}

const MAX_KEPT = 200_000;
const keptByStore = new WeakMap<EventStore, Map<string, Kept>>();
function keptOf(store: EventStore): Map<string, Kept> {
  let kept = keptByStore.get(store);
  if (!kept) {
    kept = new Map();
    keptByStore.set(store, kept);
  }
  return kept;
}

export interface BulkItem extends ReadingInput {
  meter_id: string;
}

const ATTEMPTS = 3;

const later = (a: Position | null, b: Position): Position =>
  !a || b.commit > a.commit || (b.commit === a.commit && b.prepare > a.prepare) ? b : a;

export function recordReadingBatch(
  request: FastifyRequest,
  items: readonly BulkItem[],
  today: string,
): Promise<{ outcomes: ReadingOutcome[]; events: MeterEvent[]; position: Position | null }> {
  return recordReadings(
    { store: request.server.platform.store, tenantId: tenantOf(request), metadata: metadataOf(request) },
    items,
    today,
  );
}

/** The batch of one tenant's readings, for a request or a reaction (readings of condition reports). */
export async function recordReadings(
  writer: { store: EventStore; tenantId: string; metadata: EventMetadata },
  items: readonly BulkItem[],
  today: string,
): Promise<{ outcomes: ReadingOutcome[]; events: MeterEvent[]; position: Position | null }> {
  const { store, tenantId, metadata } = writer;
  const kept = keptOf(store);
  // Each meter's items in date order (a stable sort keeps the request's order within a day).
  const byMeter = new Map<string, number[]>();
  items.forEach((item, i) => {
    const list = byMeter.get(item.meter_id);
    if (list) list.push(i);
    else byMeter.set(item.meter_id, [i]);
  });
  for (const list of byMeter.values())
    list.sort((a, b) =>
      items[a].read_on < items[b].read_on ? -1 : items[a].read_on > items[b].read_on ? 1 : 0,
    );
  const meters = [...byMeter.keys()];

  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const states = new Map<string, { revision: bigint | null; state: MeterState }>();
    const missing: string[] = [];
    for (const id of meters) {
      const k = attempt === 1 ? kept.get(id) : undefined;
      if (k && k.tenant_id === tenantId) states.set(id, { revision: k.revision, state: k.state });
      else missing.push(id);
    }
    if (missing.length > 0) {
      const loaded = await loadStreams(store, missing.map(meterStream), tenantId, meterDecider);
      missing.forEach((id, i) => {
        const l = loaded[i];
        // Another tenant's meter reads as none: its readings are rejected as unknown.
        states.set(id, l.foreign ? { revision: null, state: meterDecider.initialState() } : l);
      });
    }
    const outcomes: ReadingOutcome[] = new Array(items.length);
    const writes: StreamWrite[] = [];
    const after = new Map<string, Kept>();
    const events: MeterEvent[] = [];
    for (const [id, indexes] of byMeter) {
      const { revision, state } = states.get(id) as { revision: bigint | null; state: MeterState };
      const judged = judgeReadings(
        state,
        id,
        indexes.map((i) => items[i]),
        today,
      );
      judged.outcomes.forEach((o, j) => {
        outcomes[indexes[j]] = o;
      });
      const mine = readingEvents(id, judged.outcomes);
      if (mine.length === 0) continue;
      events.push(...mine);
      writes.push({
        stream_name: meterStream(id),
        events: toNewEvents(metadata, mine),
        expected_revision: revision ?? "no_stream",
      });
      after.set(id, {
        tenant_id: tenantId,
        revision: (revision ?? -1n) + BigInt(mine.length),
        state: judged.state,
      });
    }
    try {
      let position: Position | null = null;
      if (writes.length > 0) {
        const results = store.appendToStreams
          ? await store.appendToStreams(writes)
          : await mapLimit(writes, 16, (w) => store.appendToStream(w.stream_name, w.events, w));
        for (const r of results) position = later(position, r.position);
      }
      for (const [id, k] of after) kept.set(id, k);
      while (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
      return { outcomes, events, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      for (const id of meters) kept.delete(id);
    }
  }
  throw conflict("Meters were changed concurrently; retry");
}
