import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";

/**
 * A real OpenID Connect provider's signing side for tests: key pairs made with jose, the public
 * keys served as a JWKS over HTTP by an in-process server, tokens signed with the private keys.
 * No bypass: the service fetches and verifies exactly as it would against a real provider.
 */
export interface TestProvider {
  issuer: string;
  audience: string;
  jwks_uri: string;
  /** Times the JWKS was fetched (key rotation makes the service fetch again). */
  fetches(): number;
  /** A token signed with the current key: `roles`, `scope`, `sub` and more in `claims`. */
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** A new key replaces the current one in the JWKS (the old kid is gone). */
  rotate(): Promise<void>;
  /** The current public key as PEM (an attacker's HS256 secret). */
  publicPem(): Promise<string>;
  kid(): string;
  close(): Promise<void>;
}

export interface SignOptions {
  expiresIn?: string | number;
  notBefore?: string | number;
  issuer?: string;
  audience?: string;
  /** Leave exp out. */
  noExpiry?: boolean;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

const newKey = async (): Promise<SigningKey> => {
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" },
  };
};

export async function startTestProvider(name: string = randomUUID()): Promise<TestProvider> {
  let key = await newKey();
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== "/jwks") {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [key.jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `https://idp.example.test/${name}`;
  const audience = `pms-${name}`;
  return {
    issuer,
    audience,
    jwks_uri: `http://127.0.0.1:${port}/jwks`,
    fetches: () => fetches,
    kid: () => key.kid,
    async sign(claims, options = {}) {
      const jwt = new SignJWT({ sub: randomUUID(), ...claims })
        .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? audience)
        .setIssuedAt();
      if (!options.noExpiry) jwt.setExpirationTime(options.expiresIn ?? "10m");
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(key.privateKey);
    },
    async rotate() {
      key = await newKey();
    },
    publicPem: () => exportSPKI(key.publicKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `alg: none`: a token with no signature at all. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}

/** The same token with its payload changed and the original signature kept. */
export function tamperedToken(token: string, change: (claims: JWTPayload) => JWTPayload): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  return `${header}.${Buffer.from(JSON.stringify(change(claims))).toString("base64url")}.${signature}`;
}
