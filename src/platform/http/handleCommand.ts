import type { FastifyReply, FastifyRequest } from "fastify";
import { metrics } from "../collectMetrics.ts";
import type { Decider, DomainEvent } from "../decider.ts";
import { type ApiError, conflict, preconditionFailed } from "../errors.ts";
import { type EventMetadata, type Position, WrongExpectedRevisionError } from "../eventstore/eventStore.ts";
import {
  type CommandContext,
  type CommandOptions,
  type CommandResult,
  loadStream,
  runCommand,
} from "../runCommand.ts";
import { tenantOf } from "./auth.ts";
import { ifMatchRevision } from "./etag.ts";
import { eventIdsOf } from "./requestIds.ts";

export type { CommandResult, StreamState } from "../runCommand.ts";
export { newResourceId } from "./requestIds.ts";
export { loadStream };

export function metadataOf(request: FastifyRequest, now = new Date().toISOString()): EventMetadata {
  return {
    tenant_id: tenantOf(request),
    actor_key_id: request.auth?.key_id ?? null,
    correlation_id: String(request.id),
    causation_id: null,
    occurred_at: now,
  };
}

/** The state of a stream of the caller's tenant (another tenant's reads as initial): for fact lookups. */
export const stateOf = async <State, Event extends DomainEvent>(
  request: FastifyRequest,
  stream: string,
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
): Promise<State> =>
  (await loadStream(request.server.platform.store, stream, tenantOf(request), decider)).state;

/** What a command needs from the request: the stores, the caller's tenant, the event metadata. */
export const commandContext = (request: FastifyRequest, metadata = metadataOf(request)): CommandContext => ({
  store: request.server.platform.store,
  tenant_id: tenantOf(request),
  metadata,
  event_ids: eventIdsOf(request),
});

/**
 * The HTTP adapter of `runCommand` (src/platform/runCommand.ts): the request gives the context
 * and `If-Match`; a stale If-Match is a 412, a write lost to concurrent ones a 409.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  request: FastifyRequest,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command | ((state: State) => Command | Promise<Command>),
  options: Omit<CommandOptions<State, Event>, "expected"> & { metadata?: EventMetadata } = {},
): Promise<CommandResult<State, Event>> {
  const expected = ifMatchRevision(request);
  try {
    return await runCommand(commandContext(request, options.metadata), stream, decider, command, {
      ...options,
      expected,
    });
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError && error.stream_name === stream) {
      throw expected !== undefined
        ? preconditionFailed()
        : conflict("The resource was changed concurrently; retry");
    }
    throw error;
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
    const waited = metrics.readYourWritesSeconds.startTimer();
    const ok = await platform.projections.waitFor(
      options.position,
      platform.config.PMS_READ_YOUR_WRITES_TIMEOUT_MS,
    );
    waited({ outcome: ok ? "seen" : "timeout" });
    if (!ok) {
      metrics.accepted.inc();
      if (options.location) reply.header("location", options.location);
      return reply.status(202).send({ id: options.id, status: "accepted", location: options.location });
    }
  }
  if (options.location && options.status === 201) reply.header("location", options.location);
  if (options.status === 204) return reply.status(204).send();
  const body = await options.read();
  if (body === null || body === undefined) {
    metrics.accepted.inc();
    if (options.location) reply.header("location", options.location);
    return reply.status(202).send({ id: options.id, status: "accepted", location: options.location });
  }
  if (options.revision !== undefined && options.revision !== null)
    reply.header("etag", `W/"${options.revision}"`);
  return reply.status(options.status).send(body);
}

/**
 * An audit view of a stream: the events in order, for GET .../history. An empty or foreign
 * stream throws `notFound`, or reads as no events without it (a tenant's settings, which exist
 * as defaults before any event).
 */
export async function readHistory(
  request: FastifyRequest,
  stream: string,
  notFound: (() => ApiError) | null,
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
  if (events.length === 0 || events[0].metadata.tenant_id !== tenantOf(request)) {
    if (notFound) throw notFound();
    return [];
  }
  return events.map((e) => ({
    type: e.type,
    revision: Number(e.stream_revision),
    occurred_at: e.metadata.occurred_at,
    actor_key_id: e.metadata.actor_key_id,
    correlation_id: e.metadata.correlation_id,
    data: e.data,
  }));
}
