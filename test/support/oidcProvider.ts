import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

/**
 * A minimal real OpenID Connect provider in the test process (jose): discovery, JWKS, an
 * authorization endpoint that signs in `user` at once (no login form: the person is chosen by the
 * test) and a token endpoint that checks the code, the client, the redirect URI and the PKCE
 * verifier (S256) before issuing an access token (the API's user token) and an ID token.
 */
export interface OidcUser {
  sub: string;
  roles: string[];
  scope?: string;
}

export interface TestOidcProvider {
  issuer: string;
  audience: string;
  jwks_uri: string;
  /** Who the next authorization signs in; null: the provider refuses (access_denied). */
  user: OidcUser | null;
  /** Token requests refused, with why (a wrong verifier, a reused code). */
  refusals: string[];
  /** An access token for `user`, as the token endpoint issues it (for API calls by the test). */
  token(user: OidcUser): Promise<string>;
  close(): Promise<void>;
}

interface Grant {
  user: OidcUser;
  client_id: string;
  redirect_uri: string;
  challenge: string;
  nonce: string | null;
  scope: string;
}

export async function startOidcProvider(audience = `pms-${randomUUID()}`): Promise<TestOidcProvider> {
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const grants = new Map<string, Grant>();
  let issuer = "";
  const sign = (claims: JWTPayload, aud: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer(issuer)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
  const provider: TestOidcProvider = {
    issuer: "",
    audience,
    jwks_uri: "",
    user: null,
    refusals: [],
    token: ({ sub, roles, scope }) => sign({ sub, roles, scope: scope ?? "" }, audience),
    close: async () => {},
  };
  const json = (res: import("node:http").ServerResponse, status: number, body: unknown) =>
    res
      .writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify(body));

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname === "/.well-known/openid-configuration")
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    if (url.pathname === "/jwks") return json(res, 200, { keys: [jwk] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const redirect = q.get("redirect_uri");
      if (!redirect || q.get("response_type") !== "code" || q.get("client_id") !== audience)
        return json(res, 400, { error: "invalid_request" });
      const back = new URL(redirect);
      if (q.get("state")) back.searchParams.set("state", q.get("state") as string);
      if (!provider.user || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
        back.searchParams.set("error", provider.user ? "invalid_request" : "access_denied");
        return res.writeHead(302, { location: back.href }).end();
      }
      const code = randomBytes(16).toString("base64url");
      grants.set(code, {
        user: provider.user,
        client_id: audience,
        redirect_uri: redirect,
        challenge: q.get("code_challenge") as string,
        nonce: q.get("nonce"),
        scope: q.get("scope") ?? "",
      });
      back.searchParams.set("code", code);
      back.searchParams.set("iss", issuer);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", async () => {
        const form = new URLSearchParams(body);
        const code = form.get("code") ?? "";
        const grant = grants.get(code);
        grants.delete(code);
        const verifier = form.get("code_verifier") ?? "";
        const refuse = (why: string) => {
          provider.refusals.push(why);
          json(res, 400, { error: "invalid_grant", error_description: why });
        };
        if (!grant) return refuse("unknown or used code");
        if (form.get("client_id") !== grant.client_id) return refuse("wrong client");
        if (form.get("redirect_uri") !== grant.redirect_uri) return refuse("wrong redirect_uri");
        if (createHash("sha256").update(verifier).digest("base64url") !== grant.challenge)
          return refuse("PKCE verifier does not match the challenge");
        const { sub, roles, scope } = grant.user;
        json(res, 200, {
          token_type: "Bearer",
          expires_in: 3600,
          access_token: await sign({ sub, roles, scope: scope ?? "" }, audience),
          id_token: await sign({ sub, ...(grant.nonce ? { nonce: grant.nonce } : {}) }, grant.client_id),
          scope: grant.scope,
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.issuer = issuer;
  provider.jwks_uri = `${issuer}/jwks`;
  provider.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return provider;
}
