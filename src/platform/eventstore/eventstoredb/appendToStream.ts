import {
  BACKWARDS,
  END,
  type EventStoreDBClient,
  jsonEvent,
  type ResolvedEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from "@eventstore/db-client";
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  START,
  WrongExpectedRevisionError,
} from "../eventStore.ts";
import { knownPosition, toClientExpectedRevision, toPortActualRevision, toPortError } from "./mapping.ts";
import { headPosition } from "./readAll.ts";

/**
 * Appends with the port's expected revision; the port's event_id is the ESDB event id, so a retry
 * answers as the first append (see the idempotency rules in docs/eventstoredb.md).
 */
export async function appendToStream(
  client: EventStoreDBClient,
  stream_name: string,
  events: NewEvent[],
  options: { expected_revision: ExpectedRevision },
): Promise<AppendResult> {
  // As the PostgreSQL adapter: an empty append is a caller's bug, not a revision check.
  if (events.length === 0) throw new Error("appendToStream needs at least one event");
  const expected = options.expected_revision;
  const proposed = events.map((e) =>
    jsonEvent({
      id: e.event_id,
      type: e.type,
      data: e.data as Record<string, unknown>,
      metadata: { ...e.metadata, schema_version: e.schema_version ?? 1 },
    }),
  );
  let result: Awaited<ReturnType<EventStoreDBClient["appendToStream"]>>;
  try {
    result = await client.appendToStream(stream_name, proposed, {
      expectedRevision: toClientExpectedRevision(expected),
    });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) {
      throw new WrongExpectedRevisionError(stream_name, expected, toPortActualRevision(error.actualVersion));
    }
    throw toPortError(error, stream_name);
  }
  // Only reached when the connection string sets throwOnAppendFailure=false. The client's
  // batch-append path then reports BigInt(hasCurrentStreamRevision()), a boolean: 1n for any
  // existing stream (client streams/appendToStream/batchAppend.js), so read the revision instead.
  if (!result.success) {
    throw new WrongExpectedRevisionError(stream_name, expected, await currentRevision(client, stream_name));
  }
  const next_revision = result.nextExpectedRevision;
  // The reply carries the position of the write's last event: the CommitAck of its last prepare
  // (server StorageChaser.cs, RequestManager/Managers/WriteEvents.cs), where $all shows that event;
  // an idempotent replay answers the last retried event's position (IndexWriter.CheckCommit). Only
  // when it is absent read it back; servers before 22.6 have no positions on stream reads, so
  // then take the head of $all, which is at or after the event.
  const position =
    knownPosition(result.position) ??
    (await positionOfRevision(client, stream_name, next_revision)) ??
    (await headPosition(client)) ??
    START;
  return { next_revision, position };
}

async function positionOfRevision(
  client: EventStoreDBClient,
  stream_name: string,
  revision: bigint,
): Promise<Position | undefined> {
  // The client refuses a negative fromRevision (streams/readStream.js).
  if (revision < 0n) return undefined;
  const [last] = await lastEvents(client, stream_name, revision);
  return knownPosition(last?.event?.position);
}

/** The stream's current revision, or "no_stream". */
async function currentRevision(
  client: EventStoreDBClient,
  stream_name: string,
): Promise<bigint | "no_stream"> {
  const [last] = await lastEvents(client, stream_name, END);
  return last?.event ? last.event.revision : "no_stream";
}

/** At most one event, read backwards from `from`; [] for a missing stream. */
async function lastEvents(
  client: EventStoreDBClient,
  stream_name: string,
  from: bigint | typeof END,
): Promise<ResolvedEvent[]> {
  const events: ResolvedEvent[] = [];
  try {
    for await (const resolved of client.readStream(stream_name, {
      fromRevision: from,
      direction: BACKWARDS,
      maxCount: 1,
    }))
      events.push(resolved);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return events;
}
