/**
 * The event store port. One revision convention for every engine: a new stream has no
 * revision, its first event is revision 0. Positions order the whole log.
 */

export type ExpectedRevision = "no_stream" | "stream_exists" | "any" | bigint;

export interface EventMetadata {
  tenant_id: string;
  actor_key_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  occurred_at: string;
}

export interface NewEvent<Type extends string = string, Data = unknown> {
  /** Deterministic ids make a retried append idempotent, within the limits of EventStore.appendToStream. */
  event_id: string;
  type: Type;
  schema_version?: number;
  data: Data;
  metadata: EventMetadata;
}

/** commit: the committing transaction (PostgreSQL) or commit position (EventStoreDB); prepare breaks ties. */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

/**
 * Fields of every recorded event. `position` is the event's place in the log; events of readStream
 * on EventStoreDB servers before 22.6 carry START instead: those servers do not say
 * (docs/eventstoredb.md).
 */
interface RecordedFields {
  event_id: string;
  schema_version: number;
  metadata: EventMetadata;
  stream_name: string;
  stream_revision: bigint;
  position: Position;
  created_at: string;
  /**
   * The stream's hash chain (docs/audit.md): this event's hash and its predecessor's (null for
   * revision 0). Absent where unknown: events the store has not chained yet, events a caller made up.
   */
  hash?: string | null;
  previous_hash?: string | null;
  /**
   * The event as stored, when a layer of the read path changed `schema_version` or `data` (an
   * upcaster, docs/audit.md "Upcasting"): the chain is over this. Any other layer that changes
   * data at read keeps the stored form here too.
   */
  as_stored?: { schema_version: number; data: unknown };
}

/**
 * An event as the log holds it. `E` is an area's event union, so a switch on `type` narrows
 * `data` (docs/conventions.md, "Typed projections"); untyped readers get `data: any`.
 */
export type RecordedEvent<E extends { type: string; data: unknown } = { type: string; data: any }> =
  E extends unknown ? E & RecordedFields : never;

export interface AppendResult {
  /** The revision of the stream's last event after the write. */
  next_revision: bigint;
  /** The position of the write's last event (of an idempotent replay: that or a later one). */
  position: Position;
}

export interface StreamWrite {
  stream_name: string;
  events: NewEvent[];
  expected_revision: ExpectedRevision;
  /**
   * New data keys of the subjects these events are sealed for (docs/personal-data.md), stored in
   * the append's own transaction. PostgreSQL only (`keepsSubjectKeys`); others refuse them.
   */
  subject_keys?: NewSubjectKey[];
}

/** A data subject's new key, sealed with the master key (src/platform/personalData/keyring.ts). */
export interface NewSubjectKey {
  tenant_id: string;
  subject: string;
  wrapped_key: Buffer;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. */
  after?: Position;
  max_count?: number;
  /**
   * PostgreSQL: read past transactions of other databases on the same server that are still
   * open (they cannot write this log), at the cost of a look at pg_stat_activity. For a reader
   * held back by one (src/platform/eventstore/postgres/readAll.ts); other engines ignore it.
   */
  past_other_databases?: boolean;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface EventStore {
  readonly engine: "postgres" | "eventstoredb";
  /** Whether appends take `subject_keys` and commit them with the events (the PostgreSQL log). */
  readonly keepsSubjectKeys?: boolean;
  /**
   * Fails with WrongExpectedRevisionError when the stream is not at the expected revision.
   *
   * Idempotency, as every engine guarantees it (docs/eventstoredb.md): the same events (same ids,
   * same order) appended again to the same stream with the same exact revision or "no_stream",
   * once the first append has succeeded, write nothing and answer its next_revision. A partial
   * match (some of those ids, some new) fails with WrongExpectedRevisionError. Nothing beyond:
   * - a retry while the first append is still in flight may fail otherwise (EventStoreDB drops a
   *   retry of a write not yet replicated: the client sees a deadline error after 10 s);
   * - with "any" or "stream_exists" a retry may be written twice (EventStoreDB then checks only a
   *   bounded cache of recent ids);
   * - ids are checked per stream: the same id in another stream is written again (EventStoreDB) or
   *   refused with DuplicateEventIdError (PostgreSQL's unique index). Derive ids from the stream.
   */
  appendToStream(
    stream_name: string,
    events: NewEvent[],
    options: { expected_revision: ExpectedRevision; subject_keys?: NewSubjectKey[] },
  ): Promise<AppendResult>;
  /**
   * Appends to several streams (each at most once) all or nothing, in one commit. Fails with
   * WrongExpectedRevisionError naming the first stream whose expected revision did not hold, and
   * then writes nothing; the same writes retried after success answer as the first time. Absent on
   * engines without multi-stream transactions (EventStoreDB): callers fall back to one append per stream.
   */
  appendToStreams?(writes: StreamWrite[]): Promise<AppendResult[]>;
  /** Events of one stream in revision order; [] when the stream does not exist. */
  readStream(
    stream_name: string,
    options?: { from_revision?: bigint; max_count?: number },
  ): Promise<RecordedEvent[]>;
  /**
   * Several whole streams in one read, in the order of `stream_names` (each [] when absent): for
   * many short streams at once (bulk commands). Absent where the engine has no such read: callers
   * read the streams one by one.
   */
  readStreams?(stream_names: string[]): Promise<RecordedEvent[][]>;
  /** Committed events of the whole log in order; never skips an event that commits later at an earlier position. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up then live delivery, in log order, one event at a time. */
  subscribeToAll(
    options: ReadAllOptions,
    onEvent: (event: RecordedEvent) => Promise<void> | void,
  ): Subscription;
  /** Called (without data) whenever new events may be readable: the projectors' wake-up. */
  onAppended(listener: () => void): () => void;
  /**
   * Position of the last committed event readable now, or null for an empty log; with
   * `past_other_databases`, as a held-back projector reads (ReadAllOptions): the lag reports.
   */
  headPosition(options?: Pick<ReadAllOptions, "past_other_databases">): Promise<Position | null>;
  /**
   * Events a caller read past the port (the projector's and a rebuild's direct PostgreSQL reads)
   * as the port's own reads give them: personal fields decrypted (src/platform/personalData/).
   */
  decodeRead?(events: RecordedEvent[]): Promise<RecordedEvent[]>;
  /**
   * A keyed, stable name for a personal value, for stream names made of one (email reservations):
   * present where the store seals personal data and its legacy names were renamed (the PostgreSQL
   * log; src/platform/personalData/reservationNames.ts).
   */
  pseudonym?(value: string): string;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  readonly stream_name: string;
  readonly expected: ExpectedRevision;
  readonly actual: bigint | "no_stream";
  constructor(stream_name: string, expected: ExpectedRevision, actual: bigint | "no_stream") {
    super(`Stream ${stream_name} is at ${String(actual)}, expected ${String(expected)}`);
    this.stream_name = stream_name;
    this.expected = expected;
    this.actual = actual;
    this.name = "WrongExpectedRevisionError";
  }
}

/**
 * The write's outcome is unknown (a timeout, a connection cut after the write was sent): it may
 * have committed, or still commit. Thrown only once the store could not settle it by reading the
 * stream back (settleWrites.ts). Never compensate for such a write as if it had been refused.
 */
export class WriteOutcomeUnknownError extends Error {
  readonly stream_name: string;
  constructor(stream_name: string, cause: unknown) {
    super(`The outcome of the append to ${stream_name} is unknown: ${(cause as Error)?.message ?? cause}`, {
      cause,
    });
    this.stream_name = stream_name;
    this.name = "WriteOutcomeUnknownError";
  }
}

/** The store cannot serve now (unreachable, no leader): a read failed, or a write was refused unwritten. */
export class StoreUnavailableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "StoreUnavailableError";
  }
}

/** The stream was deleted for good (EventStoreDB tombstone): it can never be written again. */
export class StreamDeletedError extends Error {
  readonly stream_name: string;
  constructor(stream_name: string) {
    super(`Stream ${stream_name} is deleted`);
    this.stream_name = stream_name;
    this.name = "StreamDeletedError";
  }
}

/** The append is over the store's size limit for one write (EventStoreDB: 1 MiB by default); nothing written. */
export class AppendTooLargeError extends Error {
  readonly stream_name: string;
  readonly max_bytes: number | null;
  constructor(stream_name: string, max_bytes: number | null) {
    super(
      `The append to ${stream_name} is over the store's limit${max_bytes ? ` of ${max_bytes} bytes` : ""}`,
    );
    this.stream_name = stream_name;
    this.max_bytes = max_bytes;
    this.name = "AppendTooLargeError";
  }
}

/**
 * The event an append must chain after cannot be decoded (not JSON: another writer's bytes in one
 * of our streams): the append is refused, nothing written. Reads skip such an event, as the
 * projections do (docs/eventstoredb.md, "Events").
 */
export class UndecodableEventError extends Error {
  readonly stream_name: string;
  readonly revision: bigint;
  constructor(stream_name: string, revision: bigint, cause: unknown) {
    super(`Event ${revision} of stream ${stream_name} cannot be decoded: ${(cause as Error)?.message}`, {
      cause,
    });
    this.stream_name = stream_name;
    this.revision = revision;
    this.name = "UndecodableEventError";
  }
}

/**
 * Whether a failed write certainly wrote nothing, so what was done for it may be undone (keys
 * given back). A WriteOutcomeUnknownError or any error not known here may have committed.
 */
export const certainlyUnwritten = (error: unknown): boolean =>
  error instanceof WrongExpectedRevisionError ||
  error instanceof StreamDeletedError ||
  error instanceof AppendTooLargeError ||
  error instanceof UndecodableEventError ||
  error instanceof StoreUnavailableError;

export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

/** The latest of several positions (null when none). */
export const latestPosition = (positions: readonly (Position | null)[]): Position | null =>
  positions.reduce<Position | null>((a, b) => (b && (!a || comparePositions(b, a) > 0) ? b : a), null);
