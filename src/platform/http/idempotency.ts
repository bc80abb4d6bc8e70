import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../errors.ts";

/**
 * Claims the request's `Idempotency-Key` for this request (`fingerprint`: what makes two
 * requests the same), or replays the first answer; true when it answered. For routes whose
 * body is streamed (uploads), the route calls it once it has read the body.
 */
export async function honourIdempotencyKey(
  request: FastifyRequest,
  reply: FastifyReply,
  fingerprint: string,
): Promise<boolean> {
  const key = request.headers["idempotency-key"];
  if (request.method !== "POST" || key === undefined || !request.auth) return false;
  if (typeof key !== "string" || key.length < 1 || key.length > 255) {
    throw new ApiError("ValidationError", "Idempotency-Key must be 1 to 255 characters", [
      { field: "Idempotency-Key", message: "1 to 255 characters" },
    ]);
  }
  const hash = createHash("sha256").update(`${request.url}\u0000${fingerprint}`).digest("hex");
  const { sql } = request.server.platform;
  const tenant = request.auth.tenant_id;
  const owner = await ownerOf(request.server);
  const inserted = await sql.query(
    `INSERT INTO idempotency_keys (tenant_id, key, request_hash, owner) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, key) DO NOTHING RETURNING key`,
    [tenant, key, hash, owner],
  );
  if (inserted.length === 0) {
    // The same request again after a 5xx (released: created_at -infinity), after a first attempt
    // whose process is gone (its owner lock no longer held: a crash), or after one that died
    // mid-request in a live process (no answer within a minute), runs again. Only the same
    // request: the key's ids (requestIds.ts) are its resources' and events', written or not.
    const takenOver = await sql.query(
      `UPDATE idempotency_keys SET created_at = now(), owner = $4
       WHERE tenant_id = $1 AND key = $2 AND status_code IS NULL AND request_hash = $3
         AND (created_at < now() - interval '60 seconds' OR (owner IS NOT NULL AND NOT ${ownerAlive}))
       RETURNING key`,
      [tenant, key, hash, owner],
    );
    if (takenOver.length > 0) {
      (request as unknown as { idempotencyKey: string }).idempotencyKey = key;
      return false;
    }
    const [row] = await sql.query(
      "SELECT request_hash, status_code, headers, body FROM idempotency_keys WHERE tenant_id = $1 AND key = $2",
      [tenant, key],
    );
    if (!row || row.request_hash !== hash) {
      throw new ApiError("Conflict", "This Idempotency-Key was used with another request", [
        { field: "Idempotency-Key", message: "already used with a different body" },
      ]);
    }
    if (row.status_code === null) {
      throw new ApiError("Conflict", "A request with this Idempotency-Key is still in progress");
    }
    reply.header("idempotent-replayed", "true");
    for (const [name, value] of Object.entries(row.headers ?? {})) reply.header(name, value as string);
    reply.status(row.status_code);
    if (row.body === null) reply.send();
    else reply.header("content-type", "application/json; charset=utf-8").send(row.body);
    return true;
  }
  (request as unknown as { idempotencyKey: string }).idempotencyKey = key;
  return false;
}

/**
 * Whether the session advisory lock named by the row's `owner` is held (dbConnection.ts takes
 * `pg_try_advisory_lock(hashtext(name))`, which pg_locks shows as its high and low 32 bits). A
 * lock of another name with the same hash reads as alive: the minute's rule then applies.
 */
const ownerAlive = `EXISTS (SELECT 1 FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = ((hashtext(idempotency_keys.owner)::bigint >> 32) & 4294967295)::oid
    AND l.objid = (hashtext(idempotency_keys.owner)::bigint & 4294967295)::oid)`;

/**
 * This process's owner name for the keys it runs: a session advisory lock it takes once and holds
 * until it ends (released by PostgreSQL when the process dies with its connection). Null when
 * the lock cannot be taken: the keys then fall back to the minute's rule.
 */
const owners = new WeakMap<object, Promise<string | null>>();
function ownerOf(app: FastifyInstance): Promise<string | null> {
  // Per service (one lock), not per plugin context.
  let owner = owners.get(app.platform);
  if (!owner) {
    const name = `idempotency-owner:${randomUUID()}`;
    owner = app.platform.sql
      .tryLock(name)
      .then((release) => (release ? name : null))
      .catch(() => null);
    owners.set(app.platform, owner);
  }
  return owner;
}

/**
 * POST with an `Idempotency-Key` header: the same key and body replay the first response;
 * the same key with another body is a 409. A 5xx answer is not replayed, so the client may retry,
 * but the key stays bound to its request: after a 5xx the write's outcome may be unknown (a
 * timeout after the commit), and the retry must derive the same ids to find or finish it
 * (requestIds.ts), never another body's.
 */
export const idempotency = fp(async (app: FastifyInstance) => {
  app.addHook("preHandler", async (request, reply) => {
    // Uploads are streamed to the route, which applies the key once it has read the file.
    if (request.method !== "POST" || request.isMultipart()) return;
    if (await honourIdempotencyKey(request, reply, JSON.stringify(request.body ?? null))) return reply;
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const key = (request as unknown as { idempotencyKey?: string }).idempotencyKey;
    if (!key || !request.auth) return payload;
    const { sql } = app.platform;
    if (reply.statusCode >= 500) {
      await sql.query(
        "UPDATE idempotency_keys SET created_at = '-infinity' WHERE tenant_id = $1 AND key = $2 AND status_code IS NULL",
        [request.auth.tenant_id, key],
      );
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of ["location", "etag"]) {
      const v = reply.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    await sql.query(
      "UPDATE idempotency_keys SET status_code = $3, headers = $4, body = $5 WHERE tenant_id = $1 AND key = $2",
      [
        request.auth.tenant_id,
        key,
        reply.statusCode,
        JSON.stringify(headers),
        typeof payload === "string" ? payload : null,
      ],
    );
    return payload;
  });
});
