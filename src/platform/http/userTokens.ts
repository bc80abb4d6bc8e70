import { createRemoteJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from "jose";
import type { Sql } from "../db.ts";
import { ApiError } from "../errors.ts";
import { type IdentityProvider, providerOfIssuer } from "../tenants/identityProviders.ts";

/**
 * User tokens (docs/security.md, "User tokens"; docs/design.md §7.0): JWTs from the tenant's own
 * OpenID Connect provider, verified with `jose`. The tenant is the one whose registered issuer
 * is the token's verified `iss`, never anything the client says.
 */

export const USER_ROLES = ["owner", "manager", "auditor", "lessee"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Scopes of the lessee's own space (docs/specification.md); a route declares one as its `access`. */
export const LESSEE_SCOPES = [
  "lessee:leases:read",
  "lessee:leases:sign",
  "lessee:leases:download",
  // The lessee's own acts on their lease: giving notice (docs/portal.md).
  "lessee:leases:write",
] as const;
export type LesseeScope = (typeof LESSEE_SCOPES)[number];

export const isLesseeScope = (access: unknown): access is LesseeScope =>
  (LESSEE_SCOPES as readonly unknown[]).includes(access);

/** Who a verified token speaks for. */
export interface UserIdentity {
  issuer: string;
  subject: string;
  roles: UserRole[];
  scopes: string[];
}

/**
 * Asymmetric algorithms only: never `none`, never HS* (a provider's public key must not become
 * an HMAC secret).
 */
export const TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Clock skew allowed on exp and nbf, in seconds. */
const CLOCK_TOLERANCE_S = 5;
/**
 * A provider removed or changed, or a key withdrawn from its JWKS, takes effect within this long
 * (as a revoked API key does): providers and verified tokens are cached this long at most.
 */
const CACHE_MS = 1000;

/** Three base64url parts: a JWS compact serialisation (an API key is `pms_…`, never dotted). */
export const isUserToken = (credential: string) =>
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential);

/**
 * What a staff role may do on the routes that declare a tenant permission (deny by default):
 * an owner everything its tenant's keys could be given; a manager every Read and Write, no
 * Delete; an auditor every Read and nothing else (the audit console, docs/portal.md); a lessee
 * none (it reaches only the routes declaring a lessee scope).
 */
export function roleGrants(role: UserRole, permission: string): boolean {
  switch (role) {
    case "owner":
      return true;
    case "manager":
      return !permission.endsWith("Delete");
    case "auditor":
      return permission.endsWith("Read");
    case "lessee":
      return false;
  }
}

export interface UserTokenOptions {
  /** Least time between two fetches of a provider's keys (jose's cooldown; a new kid waits for it). */
  jwksCooldownMs: number;
}

export interface UserTokens {
  /** The token's identity and tenant, or a 401 (a 503 when the provider's keys cannot be fetched). */
  verify(token: string): Promise<UserIdentity & { tenant_id: string }>;
  /** `verify`, then what `access` (a tenant permission or a lessee scope) asks of it: 403 otherwise. */
  authorize(token: string, access: string): Promise<TokenAuth>;
}

export interface TokenAuth {
  tenant_id: string;
  key_id: string;
  permissions: string[];
  user: UserIdentity;
}

export function userTokens(sql: Sql, options: UserTokenOptions): UserTokens {
  type Cached<T> = { value: T; expires: number };
  const providers = new Map<string, Cached<IdentityProvider | null>>();
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  // The same token on the next requests skips the signature check, until its exp or for
  // CACHE_MS at most: an exact string match, so nothing but the verified token hits it.
  const verified = new Map<string, Cached<UserIdentity & { tenant_id: string }>>();

  const providerOf = async (issuer: string): Promise<Cached<IdentityProvider | null>> => {
    const hit = providers.get(issuer);
    if (hit && hit.expires > Date.now()) return hit;
    const entry = { value: await providerOfIssuer(sql, issuer), expires: Date.now() + CACHE_MS };
    if (providers.size > 10_000) providers.clear();
    providers.set(issuer, entry);
    return entry;
  };

  // One key set per JWKS URI, kept across requests: keys are fetched once and on an unknown kid.
  const keySetOf = (uri: string) => {
    let set = keySets.get(uri);
    if (!set) {
      if (keySets.size > 1000) keySets.clear();
      set = createRemoteJWKSet(new URL(uri), { cooldownDuration: options.jwksCooldownMs });
      keySets.set(uri, set);
    }
    return set;
  };

  const verify = async (token: string) => {
    const hit = verified.get(token);
    if (hit && hit.expires > Date.now()) return hit.value;
    let claimed: JWTPayload;
    try {
      claimed = decodeJwt(token);
    } catch {
      throw new ApiError("Unauthorized", "Malformed token");
    }
    if (typeof claimed.iss !== "string") throw new ApiError("Unauthorized", "The token names no issuer");
    const { value: provider, expires } = await providerOf(claimed.iss);
    if (!provider)
      throw new ApiError("Unauthorized", "No identity provider is registered for this token's issuer");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySetOf(provider.jwks_uri), {
        issuer: provider.issuer,
        audience: provider.audience,
        algorithms: TOKEN_ALGORITHMS,
        requiredClaims: ["exp", "sub"],
        clockTolerance: CLOCK_TOLERANCE_S,
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    if (typeof payload.sub !== "string" || payload.sub === "")
      throw new ApiError("Unauthorized", "The token's sub claim is not valid here");
    const identity = {
      tenant_id: provider.tenant_id,
      issuer: provider.issuer,
      subject: payload.sub,
      roles: rolesOf(claimAt(payload, provider.roles_claim)),
      scopes: scopesOf(claimAt(payload, provider.scope_claim)),
    };
    // Never past the provider entry it was checked against, nor past the token's exp.
    if (verified.size > 10_000) verified.clear();
    verified.set(token, { value: identity, expires: Math.min(expires, (payload.exp as number) * 1000) });
    return identity;
  };

  return {
    verify,
    async authorize(token, access) {
      const { tenant_id, ...user } = await verify(token);
      const roles = user.roles.join(", ") || "none";
      if (access === "owner") {
        // Owner-only routes (buying credits, docs/design.md §7.0): no other role, whatever it grants.
        if (!user.roles.includes("owner"))
          throw new ApiError("Forbidden", `This route needs an owner's token; the token's roles: ${roles}`);
      } else if (isLesseeScope(access)) {
        if (!user.roles.includes("lessee"))
          throw new ApiError("Forbidden", `This route needs a lessee token; the token's roles: ${roles}`);
        if (!user.scopes.includes(access))
          throw new ApiError("Forbidden", `This token lacks the ${access} scope`);
      } else if (!user.roles.some((role) => roleGrants(role, access))) {
        throw new ApiError(
          "Forbidden",
          `This token's roles (${roles}) do not grant the ${access} permission`,
        );
      }
      return { tenant_id, key_id: `user:${user.subject}`, permissions: [access], user };
    },
  };
}

/** A claim by its exact name, else by a dotted path (`realm_access.roles`). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  return name
    .split(".")
    .reduce<unknown>(
      (value, part) =>
        value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined,
      payload,
    );
}

/** Known roles only; anything else in the claim grants nothing. */
const rolesOf = (claim: unknown): UserRole[] =>
  Array.isArray(claim) ? USER_ROLES.filter((role) => claim.includes(role)) : [];

/** OAuth's space-separated string, or an array as some providers issue (`scp`). */
const scopesOf = (claim: unknown): string[] =>
  typeof claim === "string"
    ? claim.split(" ").filter(Boolean)
    : Array.isArray(claim)
      ? claim.filter((s): s is string => typeof s === "string")
      : [];

/** The verification's failure as an answer: the token's fault 401, the provider's 503. */
function refusalOf(error: unknown): ApiError {
  if (error instanceof errors.JWTExpired) return new ApiError("Unauthorized", "The token has expired");
  if (error instanceof errors.JWTClaimValidationFailed)
    return new ApiError("Unauthorized", `The token's ${error.claim} claim is not valid here`);
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.code === "ERR_JOSE_GENERIC"
  )
    return new ApiError(
      "ServiceUnavailable",
      "The identity provider's keys could not be fetched; retry later",
    );
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new ApiError("Unauthorized", "The token's algorithm is not allowed");
  if (error instanceof errors.JWKSNoMatchingKey)
    return new ApiError("Unauthorized", "No key of the identity provider matches the token");
  return new ApiError("Unauthorized", "Invalid token signature or format");
}
