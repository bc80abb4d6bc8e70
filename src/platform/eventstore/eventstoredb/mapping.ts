import {
  type AllStreamResolvedEvent,
  ANY,
  type AppendExpectedRevision,
  CancelledError,
  DeadlineExceededError,
  START as ESDB_START,
  StreamDeletedError as EsdbStreamDeletedError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  type ReadPosition,
  type ResolvedEvent,
  STREAM_EXISTS,
  TimeoutError,
  UnavailableError,
  UnknownError,
} from "@eventstore/db-client";
import {
  AppendTooLargeError,
  type EventMetadata,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  START,
  StoreUnavailableError,
  StreamDeletedError,
  UndecodableEventError,
} from "../eventStore.ts";
import { upcast } from "../upcast.ts";

/**
 * Translations between the port and the EventStoreDB client. The revision conventions already
 * agree (a new stream has none, the first event is revision 0), so only the names differ.
 */

export function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === "no_stream") return NO_STREAM;
  if (expected === "stream_exists") return STREAM_EXISTS;
  if (expected === "any") return ANY;
  return expected;
}

/** The client reports "no_stream", or -1 on some paths (server metadata, throwOnAppendFailure=false). */
export function toPortActualRevision(actual: bigint | "no_stream"): bigint | "no_stream" {
  return actual === "no_stream" || actual < 0n ? "no_stream" : actual;
}

/** The port's START ({-1,-1}) or no position means the beginning of $all. */
export function toReadPosition(after: Position | undefined): ReadPosition {
  if (!after || after.commit < 0n) return ESDB_START;
  return { commit: after.commit, prepare: after.prepare };
}

/**
 * 2^64-1, how servers say "no position": `Position.FromInt64(-1, -1)` (server
 * `Services/Transport/Grpc/Position.cs`). Before 22.6 (server commit e5c883dd4) every event of a
 * stream read carries it; the client's getters never return undefined, so it arrives as a number.
 */
const NO_POSITION = 2n ** 64n - 1n;

/** A position the server really gave, or undefined for an absent one or the 2^64-1 marker. */
export function knownPosition(position: Position | undefined): Position | undefined {
  if (
    !position ||
    position.commit < 0n ||
    position.commit === NO_POSITION ||
    position.prepare === NO_POSITION
  )
    return undefined;
  return { commit: position.commit, prepare: position.prepare };
}

/** ESDB's own events ($statsCollected, $metadata, $> links, ...) never reach the service. */
export function isSystemType(type: string): boolean {
  return type.startsWith("$");
}

/**
 * A client event as the port's RecordedEvent, or null for an unresolved link. schema_version and
 * the chain's hashes travel in the ESDB metadata beside the port's metadata and are split off
 * again here; the event comes upcast to its type's current shape (upcast.ts).
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event) return null;
  const { schema_version, previous_hash, hash, ...metadata } = parseJson(event.metadata) as EventMetadata & {
    schema_version?: number;
    previous_hash?: string | null;
    hash?: string;
  };
  // Events of $all always carry a position. Stream reads do from server 22.6 on; before, only
  // 2^64-1 (see knownPosition): the port's START then says "unknown" (docs/eventstoredb.md).
  const position = knownPosition(event.position) ?? START;
  return upcast({
    event_id: event.id,
    type: event.type,
    schema_version: schema_version ?? 1,
    data: event.isJson ? event.data : parseJson(event.data),
    metadata: metadata as EventMetadata,
    stream_name: event.streamId,
    stream_revision: event.revision,
    position: { commit: position.commit, prepare: position.prepare },
    created_at: event.created.toISOString(),
    previous_hash: previous_hash ?? null,
    hash: hash ?? null,
  });
}

/** toRecordedEvent, its parse failure (bytes that are not JSON) an UndecodableEventError. */
export function decodeStreamEvent(resolved: ResolvedEvent, stream_name: string): RecordedEvent | null {
  try {
    return toRecordedEvent(resolved);
  } catch (error) {
    throw new UndecodableEventError(stream_name, resolved.event?.revision ?? -1n, error);
  }
}

/** The client returns bytes when a payload is not JSON-typed or failed to parse. */
function parseJson(value: unknown): any {
  if (value === undefined) return {};
  if (value instanceof Uint8Array) return JSON.parse(Buffer.from(value).toString("utf8"));
  return value;
}

/**
 * Client errors after which a write may or may not have committed (client utils/CommandError.js):
 * the call timed out or the connection failed once the request could have reached the server.
 * The port settles them by reading back (settleWrites.ts).
 */
export function isAmbiguousWriteError(error: unknown): boolean {
  return (
    error instanceof DeadlineExceededError ||
    error instanceof UnavailableError ||
    error instanceof CancelledError ||
    error instanceof TimeoutError ||
    error instanceof UnknownError
  );
}

/**
 * Client errors as the port's: a tombstoned stream (StreamDeletedError, reads and appends), an
 * append over the server's MaxAppendSize (1 MiB by default), a follower refusing a write that
 * needs the leader (NotLeaderError, nothing written). Others pass unchanged.
 */
export function toPortError(error: unknown, stream_name: string): unknown {
  if (error instanceof EsdbStreamDeletedError) return new StreamDeletedError(error.streamName ?? stream_name);
  if (error instanceof MaxAppendSizeExceededError)
    return new AppendTooLargeError(
      stream_name,
      Number.isFinite(error.maxAppendSize) ? error.maxAppendSize : null,
    );
  if (error instanceof NotLeaderError)
    return new StoreUnavailableError("The EventStoreDB node is not the leader; retry", error);
  return error;
}

/** A read that failed for want of a server (timeout, unavailable, no leader) is the port's StoreUnavailableError. */
export function toPortReadError(error: unknown, stream_name: string): unknown {
  const mapped = toPortError(error, stream_name);
  return isAmbiguousWriteError(mapped)
    ? new StoreUnavailableError(`EventStoreDB could not serve the read: ${(error as Error).message}`, error)
    : mapped;
}
