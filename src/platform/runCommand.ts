import { randomUUID } from "node:crypto";
import type { Decider, DomainEvent } from "./decider.ts";
import { ApiError, conflict } from "./errors.ts";
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "./eventstore/eventStore.ts";
import { currentSchemaVersion } from "./eventstore/upcast.ts";
import { mapLimit } from "./mapLimit.ts";
import { commitReserving, type Reserving } from "./reserveUnique.ts";
import type { StreamCache } from "./streamCache.ts";

/**
 * The command handler without HTTP (docs/architecture.md, "Commands"): load a stream of the
 * caller's tenant, fold it, decide, append at the revision it was read at. The HTTP adapter
 * (src/platform/http/handleCommand.ts) only adds If-Match and the 409/412 answers.
 */
export interface CommandContext {
  store: EventStore;
  tenant_id: string;
  metadata: EventMetadata;
  /**
   * Where the command's event ids come from (else random): a request with an Idempotency-Key
   * derives them (src/platform/http/requestIds.ts), so its retry finds or replays its write.
   */
  event_ids?: EventIds;
}

/** For each command on `stream`: the id of its i-th new event. */
export type EventIds = (stream: string) => (index: number) => string;

export interface CommandResult<State, Event extends DomainEvent> {
  state: State;
  events: Event[];
  /** Revision of the stream after the append (or as found when no event was needed). */
  revision: bigint | null;
  position: Position | null;
  /**
   * The stream as the command left it: the events it was decided on, then the appended ones
   * with their revisions and metadata (an appended event's `position` is the write's). Lets a
   * route fold its answer in memory instead of reading the read model (docs/performance.md).
   */
  stream: RecordedEvent<Event>[];
}

export interface StreamState<State, Event extends DomainEvent = DomainEvent> {
  state: State;
  revision: bigint | null;
  events: RecordedEvent<Event>[];
}

export interface CommandOptions<State, Event extends DomainEvent> {
  /** The revision the client last saw (If-Match): another one fails with WrongExpectedRevisionError. */
  expected?: bigint;
  /** The error when the stream belongs to another tenant (it reads as absent). */
  notFound?: () => Error;
  /**
   * The stream is named by an id just drawn at random: the first attempt skips reading it (it
   * cannot exist yet; one statement less per create, docs/performance.md). Should it exist after
   * all, the append's "no stream" check refuses it and the retry reads it.
   */
  fresh?: boolean;
  /** Unique keys the new events take or give up, committed with them (src/platform/reserveUnique.ts). */
  reserving?: (before: State, events: Event[]) => Reserving | null;
  /**
   * Streams as this process last left them (src/platform/streamCache.ts): the first attempt
   * decides on the kept state without reading the stream. The decider's states must be immutable
   * (evolve builds new objects), as the kept one is shared by later commands.
   */
  cache?: StreamCache;
}

/** Loads a stream of the caller's tenant; another tenant's stream reads as absent. */
export async function loadStream<State, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  tenantId: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
): Promise<StreamState<State, Event> & { foreign: boolean }> {
  return foldStream((await store.readStream(stream)) as RecordedEvent<Event>[], tenantId, decider);
}

/**
 * Several streams of the caller's tenant, in one read where the engine has one (bulk commands),
 * else one by one, `parallel` at a time.
 */
export async function loadStreams<State, Event extends DomainEvent>(
  store: EventStore,
  streams: string[],
  tenantId: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  parallel = 16,
): Promise<(StreamState<State, Event> & { foreign: boolean })[]> {
  if (!store.readStreams) return mapLimit(streams, parallel, (s) => loadStream(store, s, tenantId, decider));
  const read = await store.readStreams(streams);
  return read.map((events) => foldStream(events as RecordedEvent<Event>[], tenantId, decider));
}

function foldStream<State, Event extends DomainEvent>(
  events: RecordedEvent<Event>[],
  tenantId: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
): StreamState<State, Event> & { foreign: boolean } {
  if (events.length > 0 && events[0].metadata.tenant_id !== tenantId) {
    return { state: decider.initialState(), revision: null, events: [], foreign: true };
  }
  let state = decider.initialState();
  for (const e of events) state = decider.evolve(state, e);
  return {
    state,
    revision: events.length ? events[events.length - 1].stream_revision : null,
    events,
    foreign: false,
  };
}

export const toNewEvents = (
  metadata: EventMetadata,
  events: readonly DomainEvent[],
  eventIds?: (index: number) => string,
): NewEvent[] =>
  events.map((e, i) => ({ event_id: eventIds?.(i) ?? randomUUID(), type: e.type, data: e.data, metadata }));

/** The kept stream, when it is the caller's and at the revision `If-Match` names (if any). */
function keptStream<State, Event extends DomainEvent>(
  options: CommandOptions<State, Event>,
  stream: string,
  tenantId: string,
): (StreamState<State, Event> & { foreign: false }) | null {
  const kept = options.cache?.get(stream);
  if (!kept || kept.tenant_id !== tenantId) return null;
  if (options.expected !== undefined && kept.revision !== options.expected) return null;
  return {
    state: kept.state as State,
    revision: kept.revision,
    events: kept.events as RecordedEvent<Event>[],
    foreign: false,
  };
}

/** New events as the log now holds them, after `before` (the stream's revision before the write). */
const recordedAs = (
  events: NewEvent[],
  stream_name: string,
  before: bigint | null,
  position: Position,
): RecordedEvent[] =>
  events.map((e, i) => ({
    ...e,
    data: JSON.parse(JSON.stringify(e.data ?? null)),
    schema_version: e.schema_version ?? currentSchemaVersion(e.type),
    stream_name,
    stream_revision: (before ?? -1n) + BigInt(i + 1),
    position,
    created_at: e.metadata.occurred_at,
  }));

const ATTEMPTS = 5;

/** The events of this command already in the stream (by id), with the last one's position, or null. */
function writtenBefore<Event extends DomainEvent>(
  events: RecordedEvent<Event>[],
  eventIds: (index: number) => string,
): { events: Event[]; position: Position } | null {
  const at = events.findIndex((e) => e.event_id === eventIds(0));
  if (at < 0) return null;
  const mine = [events[at]];
  for (let i = 1; events[at + i]?.event_id === eventIds(i); i++) mine.push(events[at + i]);
  return { events: mine, position: mine[mine.length - 1].position };
}

/**
 * Load, decide, append with the expected revision. A concurrent write is retried on fresh
 * state (then a 409); with `expected` any other revision throws WrongExpectedRevisionError for
 * the caller to answer (412 over HTTP).
 */
export async function runCommand<State, Command, Event extends DomainEvent>(
  context: CommandContext,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command | ((state: State) => Command | Promise<Command>),
  options: CommandOptions<State, Event> = {},
): Promise<CommandResult<State, Event>> {
  const { store, tenant_id, metadata } = context;
  const eventIds = context.event_ids?.(stream);
  for (let attempt = 1; ; attempt++) {
    const cached = attempt === 1 ? keptStream<State, Event>(options, stream, tenant_id) : null;
    const loaded =
      cached ??
      (options.fresh && attempt === 1
        ? { state: decider.initialState(), revision: null, events: [], foreign: false }
        : await loadStream(store, stream, tenant_id, decider));
    if (loaded.foreign) throw options.notFound?.() ?? new ApiError("NotFound", "Resource not found");
    // A retry of a request whose write did commit (its answer lost): the stream holds its first
    // event id. Answer as it was written, without deciding again on the state it made.
    const done = eventIds ? writtenBefore(loaded.events, eventIds) : null;
    if (done)
      return {
        state: loaded.state,
        events: done.events,
        revision: loaded.revision,
        position: done.position,
        stream: loaded.events,
      };
    if (options.expected !== undefined && loaded.revision !== options.expected) {
      throw new WrongExpectedRevisionError(stream, options.expected, loaded.revision ?? "no_stream");
    }
    let events: Event[];
    try {
      // A command built from the loaded state may read what it needs of read models first
      // (facts the state does not hold), instead of the route reading the aggregate twice.
      const cmd =
        typeof command === "function"
          ? await (command as (s: State) => Command | Promise<Command>)(loaded.state)
          : command;
      events = decider.decide(cmd, loaded.state);
    } catch (error) {
      // Another process may have moved the stream since it was kept: judge again on it as read.
      if (!cached) throw error;
      options.cache?.delete(stream);
      continue;
    }
    if (events.length === 0 && cached) {
      options.cache?.delete(stream);
      continue;
    }
    if (events.length === 0)
      return {
        state: loaded.state,
        events,
        revision: loaded.revision,
        position: null,
        stream: loaded.events,
      };
    const write = {
      stream_name: stream,
      events: toNewEvents(metadata, events, eventIds),
      expected_revision: loaded.revision ?? ("no_stream" as const),
    };
    try {
      const reserving = options.reserving?.(loaded.state, events);
      const result: AppendResult = reserving
        ? (await commitReserving(context, reserving.uniqueness, [{ ...write, ...reserving }]))[0]
        : await store.appendToStream(stream, write.events, { expected_revision: write.expected_revision });
      const appended = recordedAs(
        write.events,
        stream,
        loaded.revision,
        result.position,
      ) as RecordedEvent<Event>[];
      // Folded from the events as the log returns them (JSON), so a kept state equals a read one.
      const state = appended.reduce(decider.evolve, loaded.state);
      const after = [...loaded.events, ...appended];
      options.cache?.set(stream, { tenant_id, revision: result.next_revision, state, events: after });
      return { state, events, revision: result.next_revision, position: result.position, stream: after };
    } catch (error) {
      options.cache?.delete(stream);
      // A refusal at the append (nothing written: a key taken) on a kept state: judged again as read.
      if (cached && error instanceof ApiError) continue;
      if (!(error instanceof WrongExpectedRevisionError) || error.stream_name !== stream) throw error;
      if (options.expected !== undefined) throw error;
      if (attempt >= ATTEMPTS) throw conflict("The resource was changed concurrently; retry");
    }
  }
}
