import type { Sql } from "../../db.ts";
import type { RecordedEvent } from "../eventStore.ts";
import { EVENT_COLUMNS, toRecordedEvent } from "./readEvents.ts";

/** Large enough that an ordinary stream is one query; a longer one is read in pages to its end. */
export const STREAM_PAGE = 10_000;

export async function readStream(
  sql: Sql,
  stream_name: string,
  options: { from_revision?: bigint; max_count?: number } = {},
): Promise<RecordedEvent[]> {
  const wanted = options.max_count ?? Number.POSITIVE_INFINITY;
  const events: RecordedEvent[] = [];
  let from = options.from_revision ?? 0n;
  while (events.length < wanted) {
    const limit = Math.min(STREAM_PAGE, wanted - events.length);
    const rows = await sql.query(
      `SELECT ${EVENT_COLUMNS} FROM events
       WHERE stream_name = $1 AND stream_revision >= $2
       ORDER BY stream_revision LIMIT $3`,
      [stream_name, from.toString(), limit],
      { prepare: true },
    );
    for (const row of rows) events.push(toRecordedEvent(row));
    if (rows.length < limit) break;
    from = events[events.length - 1].stream_revision + 1n;
  }
  return events;
}

/** Whole streams in one statement, in the order asked (docs/performance.md, bulk writes). */
export async function readStreams(sql: Sql, stream_names: string[]): Promise<RecordedEvent[][]> {
  const rows = await sql.query(
    `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_name = ANY($1::text[])
     ORDER BY stream_name, stream_revision`,
    [stream_names],
    { prepare: true },
  );
  const byStream = new Map<string, RecordedEvent[]>();
  for (const row of rows) {
    const event = toRecordedEvent(row);
    const events = byStream.get(event.stream_name) ?? [];
    byStream.set(event.stream_name, events);
    events.push(event);
  }
  return stream_names.map((name) => byStream.get(name) ?? []);
}
