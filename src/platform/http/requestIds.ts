import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { deterministicUuid } from "../ids.ts";
import type { EventIds } from "../runCommand.ts";

/**
 * Ids a request draws, stable across its retries (docs/architecture.md, "Unknown outcomes").
 * A request that carries an Idempotency-Key (claimed by idempotency.ts) derives its new
 * resources' ids and its events' ids from the tenant, the key and the URL: a client that
 * retries after a timeout or a 5xx, whose first write may have committed, names the same
 * resource and the same events, so the store replays or finds them instead of writing a second
 * place, lessee or lease. Without a key, ids are random (a retry is a new request).
 */

const keyOf = (request: FastifyRequest): string | undefined =>
  (request as unknown as { idempotencyKey?: string }).idempotencyKey;

/** The URL itself, not the route's pattern: one key on two leases' amendments names two amendments. */
const seedOf = (request: FastifyRequest, key: string) => [
  request.auth?.tenant_id ?? "",
  key,
  request.method,
  request.url,
];

/**
 * The id of a resource the request creates, in place of `randomUUID()` in a create route. The
 * same on every retry of the request with its Idempotency-Key; `name` tells several new ids of one
 * request apart ("id", "association_id", ...). Random without a key.
 */
export function newResourceId(request: FastifyRequest, name = "id"): string {
  const key = keyOf(request);
  return key === undefined ? randomUUID() : deterministicUuid("resource", ...seedOf(request, key), name);
}

/** Commands run per stream so far in each request: the n-th command on a stream has its own ids. */
const commandsRun = new WeakMap<FastifyRequest, Map<string, number>>();

/**
 * Event ids of the request's commands (runCommand's `event_ids`), or undefined without a key:
 * the i-th event of the n-th command on a stream in this request, the same on a retry of it.
 */
export function eventIdsOf(request: FastifyRequest): EventIds | undefined {
  const key = keyOf(request);
  if (key === undefined) return undefined;
  return (stream) => {
    const counts = commandsRun.get(request) ?? new Map<string, number>();
    commandsRun.set(request, counts);
    const n = counts.get(stream) ?? 0;
    counts.set(stream, n + 1);
    return (index) => deterministicUuid("event", ...seedOf(request, key), stream, String(n), String(index));
  };
}
