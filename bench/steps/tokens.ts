import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from "jose";
import { atMost, type Context } from "../lib/context.ts";
import { round, summarize } from "../lib/stats.ts";

const WARMUP = 300;
const PAIRS = 3000;
const TARGET_MS = 0.2;

/**
 * User-token verification against an API key (docs/security.md, "User tokens"): the same GET,
 * sent one at a time, alternately with the tenant's API key and an owner's token from an
 * OpenID Connect provider the bench serves (JWKS over HTTP, RS256). Keys of both kinds are
 * cached by the service, so the difference is the verification itself. The figure is the
 * median of the paired differences (key then token, token then key, in turn).
 */
export async function tokensStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const tenant = await service.newTenant("tokens");
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  const jwks = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  try {
    const issuer = `https://idp.bench.test/${ctx.runId}`;
    const audience = "pms-bench";
    const put = await fetch(`${service.child.url}/api/admin/tenants/${tenant.id}/identity-provider`, {
      method: "PUT",
      headers: { authorization: `Bearer ${service.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        issuer,
        audience,
        jwks_uri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      }),
    });
    if (put.status !== 200) throw new Error(`PUT identity-provider: ${put.status} ${await put.text()}`);
    const token = await new SignJWT({ roles: ["owner"] })
      .setProtectedHeader({ alg: "RS256", kid: "bench" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject("bench-owner")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);

    const url = `${service.child.url}/api/lessees?limit=1`;
    const timed = async (credential: string) => {
      const start = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${credential}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /api/lessees: ${res.status}`);
      return performance.now() - start;
    };
    for (let i = 0; i < WARMUP; i++) {
      await timed(tenant.key);
      await timed(token);
    }
    const keyMs: number[] = [];
    const tokenMs: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const [k, t] =
        i % 2 === 0
          ? [await timed(tenant.key), await timed(token)]
          : (([t2, k2]) => [k2, t2])([await timed(token), await timed(tenant.key)]);
      keyMs.push(k);
      tokenMs.push(t);
      differences.push(t - k);
    }

    // The verification alone, in this process: what the service adds per request at best.
    const verifyMs: number[] = [];
    const local = createLocalJWKSet({ keys: [jwk] });
    for (let i = 0; i < 2000; i++) {
      const start = performance.now();
      await jwtVerify(token, local, { issuer, audience, algorithms: ["RS256"] });
      verifyMs.push(performance.now() - start);
    }

    const key = summarize(keyMs);
    const user = summarize(tokenMs);
    const diff = summarize(differences);
    const verify = summarize(verifyMs);
    ctx.raw.tokens = { pairs: PAIRS, key, token: user, difference: diff, verify_in_process: verify };
    const step = "tokens";
    ctx.figures.push(
      { step, metric: "GET p50, API key", value: key.p50, unit: "ms", target: "", pass: null },
      { step, metric: "GET p50, owner token", value: user.p50, unit: "ms", target: "", pass: null },
      {
        step,
        metric: "token overhead p50 (paired)",
        value: round(diff.p50, 3),
        unit: "ms",
        target: `≤ ${TARGET_MS} ms`,
        pass: atMost(diff.p50, TARGET_MS),
        note: `${PAIRS} pairs, one request at a time, RS256`,
      },
      {
        step,
        metric: "jwtVerify p50 in process",
        value: round(verify.p50, 3),
        unit: "ms",
        target: "",
        pass: null,
      },
    );
  } finally {
    jwks.closeAllConnections();
    await new Promise<void>((resolve) => jwks.close(() => resolve()));
  }
}
