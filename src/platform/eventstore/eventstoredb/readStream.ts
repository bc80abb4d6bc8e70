import { type EventStoreDBClient, FORWARDS, START, StreamNotFoundError } from "@eventstore/db-client";
import type { RecordedEvent } from "../eventStore.ts";
import { toPortReadError, toRecordedEvent } from "./mapping.ts";

/** Events of one stream in revision order; ESDB signals an unknown stream by an error, the port by []. */
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
      const event = toRecordedEvent(resolved);
      if (event) events.push(event);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw toPortReadError(error, stream_name);
  }
  return events;
}
