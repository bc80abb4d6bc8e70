import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  type EventStoreDBClient,
  FORWARDS,
  type ReadPosition,
} from "@eventstore/db-client";
import { comparePositions, type Position, type ReadAllOptions, type RecordedEvent } from "../eventStore.ts";
import { isSystemType, toReadPosition, toRecordedEvent } from "./mapping.ts";

/** Events fetched per request to the server; system events are among them and dropped here. */
const PAGE = 500;
/** As the PostgreSQL adapter: a call without max_count returns one bounded batch, not the whole log. */
const DEFAULT_MAX_COUNT = 1000;

/**
 * Committed events of $all strictly after `options.after`, in log order. Client v6 sends no filter
 * on reads (only subscriptions take one), so system events are dropped here and a page may yield
 * fewer than max_count: keep paging until max_count user events or the end of the log.
 * ESDB's fromPosition is inclusive, hence the strict comparison with the lower bound.
 */
export async function readAll(
  client: EventStoreDBClient,
  options: ReadAllOptions = {},
): Promise<RecordedEvent[]> {
  const limit = options.max_count ?? DEFAULT_MAX_COUNT;
  const events: RecordedEvent[] = [];
  let after = options.after && options.after.commit >= 0n ? options.after : undefined;
  while (events.length < limit) {
    const page = await readPage(client, toReadPosition(after), FORWARDS);
    for (const resolved of page) {
      const position = resolved.event?.position;
      if (!position || (after && comparePositions(position, after) <= 0)) continue;
      after = position;
      const event = userEvent(resolved);
      if (event && events.length < limit) events.push(event);
    }
    if (page.length < PAGE) break;
  }
  return events;
}

/** The newest user event's position: read $all backwards from the end past any system events. */
export async function headPosition(client: EventStoreDBClient): Promise<Position | null> {
  let before: Position | undefined;
  for (;;) {
    const page = await readPage(client, before ?? END, BACKWARDS);
    for (const resolved of page) {
      const position = resolved.event?.position;
      if (!position || (before && comparePositions(position, before) >= 0)) continue;
      before = position;
      const event = userEvent(resolved);
      if (event) return event.position;
    }
    if (page.length < PAGE) return null;
  }
}

async function readPage(
  client: EventStoreDBClient,
  fromPosition: ReadPosition,
  direction: typeof FORWARDS | typeof BACKWARDS,
): Promise<AllStreamResolvedEvent[]> {
  const page: AllStreamResolvedEvent[] = [];
  for await (const resolved of client.readAll({ fromPosition, direction, maxCount: PAGE }))
    page.push(resolved);
  return page;
}

export function userEvent(resolved: AllStreamResolvedEvent): RecordedEvent | null {
  if (!resolved.event || isSystemType(resolved.event.type)) return null;
  return toRecordedEvent(resolved);
}
