import { setTimeout as sleep } from "node:timers/promises";
import {
  BACKWARDS,
  END,
  type EventStoreDBClient,
  jsonEvent,
  NotLeaderError,
  type ResolvedEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from "@eventstore/db-client";
import { chainHashes } from "../chain.ts";
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  START,
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from "../eventStore.ts";
import { currentSchemaVersion } from "../upcast.ts";
import {
  decodeStreamEvent,
  knownPosition,
  toClientExpectedRevision,
  toPortActualRevision,
  toPortError,
  toPortReadError,
} from "./mapping.ts";
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
  let result: Awaited<ReturnType<EventStoreDBClient["appendToStream"]>>;
  for (let attempt = 1; ; attempt++) {
    // The hash chain (docs/audit.md) continues from the event the write lands after: read it, and
    // for "any" or "stream_exists" append at its exact revision, so that a concurrent write cannot
    // land in between (the server refuses; we read again).
    // A read that fails wrote nothing: the port's read errors (a tombstone, no server).
    let head: Awaited<ReturnType<typeof chainHead>>;
    try {
      head = await chainHead(client, stream_name, expected);
    } catch (error) {
      if (error instanceof NotLeaderError && attempt < LEADER_ATTEMPTS) continue;
      throw toPortReadError(error, stream_name);
    }
    const revisionOf = head ? head.revision : "no_stream";
    const links = chainHashes(
      stream_name,
      head ? head.revision + 1n : 0n,
      head?.hash ?? null,
      events.map((e) => ({ ...e, schema_version: e.schema_version ?? currentSchemaVersion(e.type) })),
    );
    const proposed = events.map((e, i) =>
      jsonEvent({
        id: e.event_id,
        type: e.type,
        data: e.data as Record<string, unknown>,
        metadata: {
          ...e.metadata,
          schema_version: e.schema_version ?? currentSchemaVersion(e.type),
          previous_hash: links[i].previous_hash,
          hash: links[i].hash,
        },
      }),
    );
    const loose = expected === "any" || (expected === "stream_exists" && head !== null);
    try {
      result = await client.appendToStream(stream_name, proposed, {
        expectedRevision: toClientExpectedRevision(loose ? revisionOf : expected),
        // A follower would forward the write; refused instead, the client moves to the leader
        // (Client/index.js shouldReconnect) and the loop reads the head again there.
        requiresLeader: true,
      });
      break;
    } catch (error) {
      if (error instanceof NotLeaderError && attempt < LEADER_ATTEMPTS) continue;
      if (error instanceof WrongExpectedVersionError) {
        if (loose && attempt < LOOSE_ATTEMPTS) {
          // Spread the racers out, or they meet again at the next head.
          await sleep(Math.random() * 5 * attempt);
          continue;
        }
        throw new WrongExpectedRevisionError(
          stream_name,
          expected,
          toPortActualRevision(error.actualVersion),
        );
      }
      throw toPortError(error, stream_name);
    }
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

/** Tries of an "any" or "stream_exists" append that meets a concurrent write. */
const LOOSE_ATTEMPTS = 20;
/** Tries of an append refused by a follower (NotLeaderError): the client has moved to the leader. */
const LEADER_ATTEMPTS = 3;

/**
 * The event a write with this expected revision lands after, with its chain hash (null for an
 * event written before the chain): the one at an exact revision, else the stream's last; null for
 * none ("no_stream", or "stream_exists"/"any" on a missing stream: the server judges those). Read
 * on the leader: a lagging follower would miss the head and restart the chain at null. An exact
 * revision whose event is not there is a refusal, never an append without its link: a
 * WrongExpectedRevisionError when the stream is elsewhere, else StoreUnavailableError.
 */
async function chainHead(
  client: EventStoreDBClient,
  stream_name: string,
  expected: ExpectedRevision,
): Promise<{ revision: bigint; hash: string | null } | null> {
  if (expected === "no_stream") return null;
  const [last] = await lastEvents(client, stream_name, typeof expected === "bigint" ? expected : END);
  const event = last?.event;
  if (typeof expected === "bigint" && event?.revision !== expected) {
    const actual = await currentRevision(client, stream_name);
    if (actual !== expected) throw new WrongExpectedRevisionError(stream_name, expected, actual);
    throw new StoreUnavailableError(
      `EventStoreDB did not return revision ${expected} of ${stream_name}, the event the append must chain after; nothing written`,
    );
  }
  if (!event) return null;
  // A head that does not decode cannot be chained after: UndecodableEventError, nothing written.
  const recorded = decodeStreamEvent(last, stream_name);
  return { revision: event.revision, hash: recorded?.hash ?? null };
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

/** At most one event, read backwards from `from` on the leader; [] for a missing stream. */
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
      requiresLeader: true,
    }))
      events.push(resolved);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return events;
}
