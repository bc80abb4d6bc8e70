import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../errors.ts";
import type { RouteAccess } from "../platform.ts";
import { isUserToken, LESSEE_SCOPES, userTokens } from "./userTokens.ts";

export const PERMISSIONS = [
  "LesseeRead",
  "LesseeWrite",
  "LesseeDelete",
  "LeasesRead",
  "LeasesWrite",
  "LeasesDelete",
  "PropertiesRead",
  "PropertiesWrite",
  "PropertiesDelete",
  "FinanceRead",
  "FinanceWrite",
  "FinanceDelete",
  // docs/design.md §7.0: configurations, templates, outbound webhooks, contacts (no Delete: Write deletes).
  "SettingsRead",
  "SettingsWrite",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

/** One registered route and what it declared; the router's own table (docs/security.md). */
export interface RouteEntry {
  method: string;
  url: string;
  access: RouteAccess | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route as registered (onRoute), with its declared access. */
    routeTable: RouteEntry[];
  }
}

interface CachedKey {
  auth: { tenant_id: string; key_id: string; permissions: string[] } | null;
  expires: number;
}

/** Revocation takes effect within this long: the cache of key lookups. */
const KEY_CACHE_MS = 1000;

const ACCESS_KINDS: readonly string[] = [
  "public",
  "admin",
  "worker",
  "owner",
  ...PERMISSIONS,
  ...LESSEE_SCOPES,
];

/**
 * Records every route with what it declares and refuses to start when one declares nothing
 * (deny by default, docs/security.md). Registered first so that it sees every route; the check
 * runs at ready time so that a plugin's own onRoute hook (the docs) may still set `access`.
 */
export const routeAccess = fp(async (app: FastifyInstance) => {
  const routes: RouteOptions[] = [];
  app.decorate("routeTable", [] as RouteEntry[]);
  app.addHook("onRoute", (route) => {
    routes.push(route);
  });
  app.addHook("onReady", async () => {
    for (const route of routes) {
      const access = route.config?.access;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (typeof access !== "string" || !ACCESS_KINDS.includes(access)) {
        throw new Error(
          `Route ${methods.join(",")} ${route.url} declares no valid config.access; every route must say who may call it (docs/security.md)`,
        );
      }
      for (const method of methods) app.routeTable.push({ method, url: route.url, access });
    }
  });
});

/** Authorization from the matched route's declared access only, never from the raw URL. */
export const auth = fp(async (app: FastifyInstance) => {
  const cache = new Map<string, CachedKey>();
  const tokens = userTokens(app.platform.sql, { jwksCooldownMs: app.platform.config.PMS_JWKS_COOLDOWN_MS });
  app.decorateRequest("auth", null);

  /** A live key's owner: tenant keys in api_keys, worker keys in worker_keys (never each other). */
  const lookup = async (table: "api_keys" | "worker_keys", hash: string) => {
    const cacheKey = `${table}:${hash}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expires > Date.now()) return hit.auth;
    const [row] = await app.platform.sql.query(
      table === "api_keys"
        ? "SELECT id, tenant_id, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL"
        : "SELECT id, tenant_id, ARRAY[]::text[] AS permissions FROM worker_keys WHERE key_hash = $1 AND revoked_at IS NULL",
      [hash],
    );
    const found = row ? { tenant_id: row.tenant_id, key_id: row.id, permissions: row.permissions } : null;
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { auth: found, expires: Date.now() + KEY_CACHE_MS });
    return found;
  };

  app.addHook("onRequest", async (request) => {
    // No route matched: the not-found handler answers 404 in the error shape.
    if (request.is404) return;
    const access = request.routeOptions.config?.access;
    switch (access) {
      case "public":
        return;
      case "admin":
        return checkAdmin(app, request);
      case "worker": {
        const given = request.headers["x-api-key"];
        // A live tenant key, wherever sent, is a known caller at the wrong door: 403, not 401.
        const tenantKey = typeof given === "string" && TENANT_KEY.test(given) ? given : bearerOrNull(request);
        if (tenantKey && TENANT_KEY.test(tenantKey) && (await lookup("api_keys", hashKey(tenantKey)))) {
          throw new ApiError(
            "Forbidden",
            "A tenant key does not open Workers routes: send a worker key in X-API-Key",
          );
        }
        request.auth = await lookup("worker_keys", hashKey(workerKey(request)));
        if (!request.auth) throw new ApiError("Unauthorized", "Unknown or revoked worker key");
        return;
      }
      case undefined:
        // Unreachable: start-up refuses such routes. Deny anyway.
        throw new ApiError("Forbidden", "This route declares no access");
    }
    const key = bearer(request) ?? (request.headers["x-api-key"] as string | undefined);
    if (!key) throw new ApiError("Unauthorized", "Missing API key: send Authorization: Bearer <key>");
    // A user token (a JWT from the tenant's OpenID Connect provider, src/platform/http/userTokens.ts),
    // in Authorization only: in X-API-Key it is a malformed key.
    if (isUserToken(key) && key === bearerOrNull(request)) {
      request.auth = await tokens.authorize(key, access);
      return;
    }
    if (WORKER_KEY.test(key) && (await lookup("worker_keys", hashKey(key)))) {
      throw new ApiError("Forbidden", "A worker key opens only the Workers routes (/api/workers/*)");
    }
    if (!TENANT_KEY.test(key)) throw new ApiError("Unauthorized", "Malformed API key");
    const found = await lookup("api_keys", hashKey(key));
    if (!found) throw new ApiError("Unauthorized", "Unknown or revoked API key");
    if (access === "owner")
      throw new ApiError("Forbidden", "Only an owner's user token may do this; an API key never does");
    if (!found.permissions.includes(access)) {
      throw new ApiError("Forbidden", `This API key lacks the ${access} permission`);
    }
    request.auth = found;
  });
});

const TENANT_KEY = /^pms_[A-Za-z0-9_-]{20,100}$/;
const WORKER_KEY = /^pmw_[A-Za-z0-9_-]{20,100}$/;

/** The Bearer key if the header is well formed, else null (the worker door's 403 check). */
function bearerOrNull(request: FastifyRequest): string | null {
  try {
    return bearer(request) ?? null;
  } catch {
    return null;
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("Unauthorized", "Malformed Authorization header: expected Bearer <key>");
  return match[1];
}

function checkAdmin(app: FastifyInstance, request: FastifyRequest): void {
  const expected = app.platform.config.PMS_ADMIN_API_KEY;
  if (!expected)
    throw new ApiError("Unauthorized", "Administration is disabled: PMS_ADMIN_API_KEY is not set");
  const given = bearer(request);
  if (!given)
    throw new ApiError("Unauthorized", "Missing admin key: send Authorization: Bearer <PMS_ADMIN_API_KEY>");
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  if (!timingSafeEqual(a, b)) throw new ApiError("Unauthorized", "Invalid admin key");
}

/** Worker routes take a worker key (`pmw_…`) in X-API-Key only (docs/specification.md, Workers area). */
function workerKey(request: FastifyRequest): string {
  const given = request.headers["x-api-key"];
  if (!given) throw new ApiError("Unauthorized", "Missing worker key: send X-API-Key: <worker key>");
  if (typeof given !== "string" || !WORKER_KEY.test(given))
    throw new ApiError("Unauthorized", "Malformed worker key");
  return given;
}

/** The caller's tenant; routes behind auth always have one. */
export function tenantOf(request: FastifyRequest): string {
  if (!request.auth) throw new ApiError("Unauthorized", "Missing API key");
  return request.auth.tenant_id;
}
