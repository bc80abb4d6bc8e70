import type { FastifyReply, FastifyRequest } from "fastify";
import * as oidc from "openid-client";
import type { Sql } from "../../platform/db.ts";
import { ApiError } from "../../platform/errors.ts";
import type { UserIdentity, UserTokens } from "../../platform/http/userTokens.ts";
import { readIdentityProvider } from "../../platform/tenants/identityProviders.ts";
import { findTenant } from "../../platform/tenants/tenants.ts";
import { cookieOptions, PageError, type Sealer } from "./web.ts";

/**
 * Sign-in with the tenant's own OpenID Connect provider (docs/portal.md, "Sign-in"): the
 * authorization code flow with PKCE (S256), state and nonce, through `openid-client`. The client
 * id is the audience the platform admin registered. The session then holds the access token the
 * provider issued, and every page calls the API with it: the API verifies it as it verifies any
 * user token (issuer, audience, signature, expiry, roles, scopes).
 */

const LOGIN_COOKIE = "pms_login";
const LOGIN_TTL_S = 600;
const DISCOVERY_MS = 5 * 60_000;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

interface LoginState {
  tenant_id: string;
  verifier: string;
  state: string;
  nonce: string;
  redirect_uri: string;
  base: string;
}

export interface SignedIn {
  tenant_id: string;
  tenant_name: string;
  credential: string;
  identity: UserIdentity;
}

const discovered = new Map<string, { config: oidc.Configuration; expires: number }>();

/** The provider's metadata, discovered from its issuer (http to this machine only, as for a JWKS). */
async function configurationOf(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const key = `${issuer} ${clientId}`;
  const hit = discovered.get(key);
  if (hit && hit.expires > Date.now()) return hit.config;
  const url = new URL(issuer);
  const insecure = url.protocol === "http:" && LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !insecure)
    throw new PageError(503, "Le fournisseur d'identité de votre gestionnaire n'est pas joignable en https.");
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      url,
      clientId,
      undefined,
      oidc.None(),
      insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  } catch {
    throw new PageError(503, "Le fournisseur d'identité de votre gestionnaire ne répond pas : réessayez.");
  }
  if (discovered.size > 1000) discovered.clear();
  discovered.set(key, { config, expires: Date.now() + DISCOVERY_MS });
  return config;
}

/** Where the provider sends the browser back: this service's own origin (normalised, as it is compared). */
const callbackUrl = (request: FastifyRequest, base: string) =>
  new URL(`${base}/callback`, `${request.protocol}://${request.host}`).href;

/** Redirects to the tenant's provider, the PKCE verifier, state and nonce sealed in a short cookie. */
export async function startSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { sql: Sql; sealer: Sealer; base: string; scope: string },
  tenantName: string,
) {
  const tenant = tenantName ? await findTenant(deps.sql, tenantName) : null;
  const provider = tenant ? await readIdentityProvider(deps.sql, tenant.id) : null;
  if (!tenant || !provider)
    throw new PageError(
      404,
      "Aucun espace de connexion ne porte ce nom : vérifiez le lien reçu de votre gestionnaire.",
    );
  const config = await configurationOf(provider.issuer, provider.audience);
  const verifier = oidc.randomPKCECodeVerifier();
  const login: LoginState = {
    tenant_id: tenant.id,
    verifier,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    redirect_uri: callbackUrl(request, deps.base),
    base: deps.base,
  };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: login.redirect_uri,
    scope: deps.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: login.state,
    nonce: login.nonce,
  });
  reply.setCookie(LOGIN_COOKIE, await deps.sealer.seal({ ...login }, LOGIN_TTL_S), {
    ...cookieOptions(deps.base, LOGIN_TTL_S),
  });
  return reply.redirect(url.href, 303);
}

/**
 * The provider's answer: the code exchanged with the verifier (state and nonce checked by
 * openid-client), then the access token verified by the service's own user-token check, which
 * must name the same tenant.
 */
export async function finishSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { sql: Sql; sealer: Sealer; base: string; tokens: UserTokens },
): Promise<SignedIn> {
  const login = await deps.sealer.open<LoginState>(request.cookies[LOGIN_COOKIE]);
  reply.clearCookie(LOGIN_COOKIE, { path: deps.base });
  if (!login || login.base !== deps.base)
    throw new PageError(400, "La connexion a expiré ou n'a pas commencé ici : recommencez.");
  const provider = await readIdentityProvider(deps.sql, login.tenant_id);
  const tenant = await findTenant(deps.sql, login.tenant_id);
  if (!provider || !tenant) throw new PageError(404, "Cet espace n'a plus de fournisseur d'identité.");
  const config = await configurationOf(provider.issuer, provider.audience);
  const current = new URL(login.redirect_uri);
  current.search = new URL(request.url, "http://x").search;
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: login.verifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
  } catch {
    throw new PageError(401, "Votre fournisseur d'identité a refusé la connexion : recommencez.");
  }
  let identity: UserIdentity & { tenant_id: string };
  try {
    identity = await deps.tokens.verify(tokens.access_token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 503)
      throw new PageError(503, "Votre fournisseur d'identité ne répond pas : réessayez.");
    throw new PageError(401, "Le jeton délivré par votre fournisseur d'identité n'est pas accepté ici.");
  }
  if (identity.tenant_id !== login.tenant_id)
    throw new PageError(401, "Le jeton délivré ne correspond pas à cet espace.");
  const { tenant_id, ...user } = identity;
  return { tenant_id, tenant_name: tenant.name, credential: tokens.access_token, identity: user };
}
