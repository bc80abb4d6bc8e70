import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../errors.ts";

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
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

/** The permission a request needs: the route's area by path, the level by method (DESIGN.md §5). */
export function requiredPermission(method: string, path: string): Permission {
  const area = path.startsWith("/api/lessees")
    ? "Lessee"
    : path.startsWith("/api/leases")
      ? "Leases"
      : "Properties";
  const level = method === "GET" || method === "HEAD" ? "Read" : method === "DELETE" ? "Delete" : "Write";
  return `${area}${level}` as Permission;
}

interface CachedKey {
  auth: { tenant_id: string; key_id: string; permissions: string[] } | null;
  expires: number;
}

/** Revocation takes effect within this long: the cache of key lookups. */
const KEY_CACHE_MS = 1000;

export const auth = fp(async (app: FastifyInstance) => {
  const cache = new Map<string, CachedKey>();
  app.decorateRequest("auth", null);

  const lookup = async (hash: string) => {
    const hit = cache.get(hash);
    if (hit && hit.expires > Date.now()) return hit.auth;
    const [row] = await app.platform.sql.query(
      "SELECT id, tenant_id, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
      [hash],
    );
    const found = row ? { tenant_id: row.tenant_id, key_id: row.id, permissions: row.permissions } : null;
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { auth: found, expires: Date.now() + KEY_CACHE_MS });
    return found;
  };

  app.addHook("onRequest", async (request) => {
    const path = request.url.split("?")[0];
    if (request.routeOptions.config?.public || !path.startsWith("/api/")) return;
    // The browsable docs (swagger-ui's routes) are public like /api/openapi.json: a browser sends
    // no key. Judged by the matched route, not the raw path, so `/api/docs/../x` gains nothing.
    const route = request.routeOptions.url ?? "";
    if (route === "/api/docs" || route.startsWith("/api/docs/")) return;
    if (path.startsWith("/api/admin/")) return checkAdmin(app, request);
    const key = bearer(request) ?? (request.headers["x-api-key"] as string | undefined);
    if (!key) throw new ApiError("Unauthorized", "Missing API key: send Authorization: Bearer <key>");
    if (!/^pms_[A-Za-z0-9_-]{20,100}$/.test(key)) throw new ApiError("Unauthorized", "Malformed API key");
    const found = await lookup(hashKey(key));
    if (!found) throw new ApiError("Unauthorized", "Unknown or revoked API key");
    const needed = requiredPermission(request.method, path);
    if (!found.permissions.includes(needed)) {
      throw new ApiError("Forbidden", `This API key lacks the ${needed} permission`);
    }
    request.auth = found;
  });
});

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

/** The caller's tenant; routes behind auth always have one. */
export function tenantOf(request: FastifyRequest): string {
  if (!request.auth) throw new ApiError("Unauthorized", "Missing API key");
  return request.auth.tenant_id;
}
