import type { FastifyRequest } from "fastify";
import type { Decider, DomainEvent } from "../../platform/decider.ts";
import { conflict } from "../../platform/errors.ts";
import {
  type Position,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { metadataOf } from "../../platform/http/handleCommand.ts";
import { mapLimit } from "../../platform/mapLimit.ts";
import { loadStreams, toNewEvents } from "../../platform/runCommand.ts";

/**
 * Commands on many streams of the caller's tenant decided in one read and written in a few
 * all-or-nothing commits (CHUNK streams each) where the engine has multi-stream appends, else one
 * append per stream: a batch of 5,000 debits is not 5,000 round trips. The deciders used here are
 * idempotent (a payment or a use already there decides nothing), so a retry after a concurrent
 * write, or after a commit that went through, writes nothing twice.
 */
const CHUNK = 1000;
const ATTEMPTS = 3;

const later = (a: Position | null, b: Position): Position =>
  !a || b.commit > a.commit || (b.commit === a.commit && b.prepare > a.prepare) ? b : a;

export async function decideInBulk<State, Command, Event extends DomainEvent>(
  request: FastifyRequest,
  decider: Decider<State, Command, Event>,
  items: readonly { stream: string; command: Command }[],
): Promise<Position | null> {
  if (items.length === 0) return null;
  const { store } = request.server.platform;
  const tenantId = tenantOf(request);
  const byStream = new Map<string, Command[]>();
  for (const { stream, command } of items) byStream.set(stream, [...(byStream.get(stream) ?? []), command]);
  const streams = [...byStream.keys()];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const loaded = await loadStreams(store, streams, tenantId, decider);
    const metadata = metadataOf(request);
    const writes: StreamWrite[] = [];
    streams.forEach((stream, i) => {
      const l = loaded[i];
      // Another tenant's stream of that name is not this tenant's to write.
      if (l.foreign) return;
      let state = l.state;
      const events: Event[] = [];
      for (const command of byStream.get(stream) as Command[]) {
        const decided = decider.decide(command, state);
        for (const e of decided) state = decider.evolve(state, e);
        events.push(...decided);
      }
      if (events.length > 0)
        writes.push({
          stream_name: stream,
          events: toNewEvents(metadata, events),
          expected_revision: l.revision ?? "no_stream",
        });
    });
    try {
      let position: Position | null = null;
      for (let from = 0; from < writes.length; from += CHUNK) {
        const chunk = writes.slice(from, from + CHUNK);
        const results = store.appendToStreams
          ? await store.appendToStreams(chunk)
          : await mapLimit(chunk, 16, (w) => store.appendToStream(w.stream_name, w.events, w));
        for (const r of results) position = later(position, r.position);
      }
      return position;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  throw conflict("Lease accounts or mandates were changed concurrently; retry");
}
