import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Decider, DomainEvent } from "../decider.ts";
import { ApiError, conflict, preconditionFailed } from "../errors.ts";
import {
  type EventMetadata,
  type EventStore,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "../eventstore/eventStore.ts";
import { tenantOf } from "./auth.ts";
import { ifMatchRevision } from "./etag.ts";

export interface CommandResult<State, Event> {
  state: State;
  events: Event[];
  /** Revision of the stream after the append (or as found when no event was needed). */
  revision: bigint | null;
  position: Position | null;
}

export interface StreamState<State> {
  state: State;
  revision: bigint | null;
  events: RecordedEvent[];
}

/** Loads a stream of the caller's tenant; another tenant's stream reads as absent. */
export async function loadStream<State, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  tenantId: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
): Promise<StreamState<State> & { foreign: boolean }> {
  const events = await store.readStream(stream);
  if (events.length > 0 && events[0].metadata.tenant_id !== tenantId) {
    return { state: decider.initialState(), revision: null, events: [], foreign: true };
  }
  let state = decider.initialState();
  for (const e of events) state = decider.evolve(state, { type: e.type, data: e.data } as Event);
  return {
    state,
    revision: events.length ? events[events.length - 1].stream_revision : null,
    events,
    foreign: false,
  };
}

export function metadataOf(request: FastifyRequest, now = new Date().toISOString()): EventMetadata {
  return {
    tenant_id: tenantOf(request),
    actor_key_id: request.auth?.key_id ?? null,
    correlation_id: String(request.id),
    causation_id: null,
    occurred_at: now,
  };
}

/**
 * Load, decide, append with the expected revision. With `If-Match` a stale revision is a
 * 412; without, a concurrent write is retried on fresh state, then answered 409.
 * `eventIds` makes the append idempotent for retried requests (bulk).
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  request: FastifyRequest,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command | ((state: State) => Command),
  options: { eventIds?: (index: number) => string; notFound?: () => ApiError; metadata?: EventMetadata } = {},
): Promise<CommandResult<State, Event>> {
  const store = request.server.platform.store;
  const tenantId = tenantOf(request);
  const ifMatch = ifMatchRevision(request);
  const metadata = options.metadata ?? metadataOf(request);
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadStream(store, stream, tenantId, decider);
    if (loaded.foreign) throw options.notFound?.() ?? new ApiError("NotFound", "Resource not found");
    if (ifMatch !== undefined && loaded.revision !== ifMatch) throw preconditionFailed();
    const cmd = typeof command === "function" ? (command as (s: State) => Command)(loaded.state) : command;
    const events = decider.decide(cmd, loaded.state);
    if (events.length === 0)
      return { state: loaded.state, events, revision: loaded.revision, position: null };
    try {
      const result = await store.appendToStream(
        stream,
        events.map((e, i) => ({
          event_id: options.eventIds?.(i) ?? randomUUID(),
          type: e.type,
          data: e.data,
          metadata,
        })),
        { expected_revision: loaded.revision ?? "no_stream" },
      );
      const state = events.reduce(decider.evolve, loaded.state);
      return { state, events, revision: result.next_revision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (ifMatch !== undefined) throw preconditionFailed();
      if (attempt >= 4) throw conflict("The resource was changed concurrently; retry");
    }
  }
}

/**
 * Read-your-writes: wait until the projectors have passed the append, then answer from the
 * read model. If they lag past the bound, answer 202 with where the result will be.
 */
export async function replyAfterProjection<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    position: Position | null;
    status: number;
    read: () => Promise<T | null | undefined>;
    location?: string;
    id?: string;
    revision?: bigint | null;
  },
): Promise<FastifyReply> {
  const { platform } = request.server;
  if (options.position) {
    const ok = await platform.projections.waitFor(
      options.position,
      platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS,
    );
    if (!ok) {
      if (options.location) reply.header("location", options.location);
      return reply.status(202).send({ id: options.id, status: "accepted", location: options.location });
    }
  }
  if (options.location && options.status === 201) reply.header("location", options.location);
  if (options.status === 204) return reply.status(204).send();
  const body = await options.read();
  if (body === null || body === undefined) {
    if (options.location) reply.header("location", options.location);
    return reply.status(202).send({ id: options.id, status: "accepted", location: options.location });
  }
  if (options.revision !== undefined && options.revision !== null)
    reply.header("etag", `W/"${options.revision}"`);
  return reply.status(options.status).send(body);
}

/** An audit view of a stream: the events in order, for GET .../history. */
export async function readHistory(
  request: FastifyRequest,
  stream: string,
  notFound: () => ApiError,
): Promise<
  {
    type: string;
    revision: number;
    occurred_at: string;
    actor_key_id: string | null;
    correlation_id: string | null;
    data: unknown;
  }[]
> {
  const events = await request.server.platform.store.readStream(stream);
  if (events.length === 0 || events[0].metadata.tenant_id !== tenantOf(request)) throw notFound();
  return events.map((e) => ({
    type: e.type,
    revision: Number(e.stream_revision),
    occurred_at: e.metadata.occurred_at,
    actor_key_id: e.metadata.actor_key_id,
    correlation_id: e.metadata.correlation_id,
    data: e.data,
  }));
}
