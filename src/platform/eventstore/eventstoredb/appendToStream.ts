import {
  BACKWARDS,
  type EventStoreDBClient,
  jsonEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from "@eventstore/db-client";
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  WrongExpectedRevisionError,
} from "../eventStore.ts";
import { toClientExpectedRevision, toPortActualRevision } from "./mapping.ts";

/**
 * Appends with the port's expected revision. The port's event_id becomes the ESDB event id: with
 * an expected revision other than "any", ESDB answers a repeated append of the same ids with the
 * first append's result instead of writing them twice.
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
    throw error;
  }
  // Only reached when the connection string sets throwOnAppendFailure=false.
  if (!result.success) {
    throw new WrongExpectedRevisionError(
      stream_name,
      expected,
      toPortActualRevision(result.nextExpectedRevision),
    );
  }
  const next_revision = result.nextExpectedRevision;
  // A single-event write's position is that event's position in $all. For several events (or an
  // idempotent replay, which may carry no position) read the last event back, so a caller waiting
  // for projectors to pass `position` waits for the whole write.
  const position =
    events.length === 1 && result.position && result.position.commit >= 0n
      ? result.position
      : ((await positionOfRevision(client, stream_name, next_revision)) ?? result.position);
  return { next_revision, position: copy(position ?? { commit: -1n, prepare: -1n }) };
}

async function positionOfRevision(
  client: EventStoreDBClient,
  stream_name: string,
  revision: bigint,
): Promise<Position | undefined> {
  if (revision < 0n) return undefined;
  try {
    for await (const resolved of client.readStream(stream_name, {
      fromRevision: revision,
      direction: BACKWARDS,
      maxCount: 1,
    })) {
      return resolved.event?.position;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return undefined;
}

const copy = (p: Position): Position => ({ commit: p.commit, prepare: p.prepare });
