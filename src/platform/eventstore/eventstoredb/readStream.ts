import { type EventStoreDBClient, FORWARDS, START, StreamNotFoundError } from "@eventstore/db-client";
import { type RecordedEvent, UndecodableEventError } from "../eventStore.ts";
import { decodeStreamEvent, toPortReadError } from "./mapping.ts";
import { skipped } from "./readAll.ts";

/**
 * Events of one stream in revision order; ESDB signals an unknown stream by an error, the port by [].
 * An event that does not decode is skipped, counted and warned, as the projections skip it in $all
 * (an append right after it is refused instead: appendToStream.ts chainHead).
 */
export async function readStream(
  client: EventStoreDBClient,
  stream_name: string,
  options: { from_revision?: bigint; max_count?: number } = {},
): Promise<RecordedEvent[]> {
  if (options.max_count === 0) return [];
  const events: RecordedEvent[] = [];
  try {
    for await (const resolved of client.readStream(stream_name, {
      direction: FORWARDS,
      fromRevision: options.from_revision ?? START,
      maxCount: options.max_count ?? Number.MAX_SAFE_INTEGER,
    })) {
      try {
        const event = decodeStreamEvent(resolved, stream_name);
        if (event) events.push(event);
      } catch (error) {
        if (!(error instanceof UndecodableEventError) || !resolved.event) throw error;
        skipped("undecodable", resolved.event, (error.cause as Error).message);
      }
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw toPortReadError(error, stream_name);
  }
  return events;
}
