import { setTimeout as sleep } from "node:timers/promises";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PlatformApp, startPlatformApp } from "../support/platformApp.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every error leaves in the docs/architecture.md §4 shape, with nothing internal in it. */
function expectError(res: LightMyRequestResponse, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const body = res.json();
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body)) expect(["error", "message", "details"]).toContain(key);
  if (body.details !== undefined) {
    expect(Array.isArray(body.details)).toBe(true);
    for (const d of body.details) {
      expect(typeof d.field).toBe("string");
      expect(typeof d.message).toBe("string");
    }
  }
  expect(res.body).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|SELECT |stack/i);
  return body;
}

describe.each(databaseKinds)("HTTP platform (service from startService) on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers an unknown route with 404 NotFound", async () => {
    const body = expectError(await t.request("GET", "/api/no-such-route"), 404, "NotFound");
    expect(body.message).toContain("/api/no-such-route");
    expectError(await t.request("POST", "/api/no-such-route", { body: { a: 1 } }), 404, "NotFound");
    expectError(await t.request("PATCH", "/api/health", { body: {} }), 404, "NotFound");
  });

  it("serves liveness and readiness without a key", async () => {
    const live = await t.request("GET", "/api/health", { as: null });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: "ok" });
    const ready = await t.request("GET", "/api/health/ready", { as: null });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe("ready");
    expect(ready.json().checks.database.ok).toBe(true);
  });

  it("serves OpenAPI 3.1 and browsable docs without a key", async () => {
    const res = await t.request("GET", "/api/openapi.json", { as: null });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.title).toBeTruthy();
    expect(Object.keys(doc.paths)).toContain("/api/admin/tenants");
    expect(Object.keys(doc.paths)).not.toContain("/api/openapi.json");

    let docs = await t.request("GET", "/api/docs", { as: null });
    for (let hops = 0; docs.statusCode >= 300 && docs.statusCode < 400 && hops < 3; hops++) {
      const location = new URL(String(docs.headers.location), "http://x/api/docs/");
      docs = await t.request("GET", location.pathname, { as: null });
    }
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toMatch(/text\/html/);
    expect(docs.body).toMatch(/<html/i);
    // Only the docs are public: a path that climbs out of them reaches no other route.
    for (const url of ["/api/docs/../lessees", "/api/docs/%2E%2E/lessees", "/api/docs/..%2Flessees"]) {
      const res = await t.request("GET", url, { as: null });
      expect([401, 404], `${url}: ${res.body}`).toContain(res.statusCode);
      expect(res.body).not.toMatch(/"email"/);
    }
  });

  it("refuses missing, malformed and unknown keys with 401", async () => {
    // An unknown route is a 404 whoever asks (docs/security.md).
    expectError(await t.request("GET", "/api/no-such-route", { as: null }), 404, "NotFound");
    for (const authorization of [
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer ",
      "Bearer not-a-key",
      "Bearer pms_short",
      `Bearer ${t.tenant.key} extra`,
      `Bearer pms_${"A".repeat(32)}`,
      `Bearer ${TEST_ADMIN_KEY}`,
    ]) {
      const res = await t.request("GET", "/api/lessees", { as: null, headers: { authorization } });
      expectError(res, 401, "Unauthorized");
    }
  });

  it("echoes x-request-id, or makes one", async () => {
    const mine = await t.request("GET", "/api/health", {
      as: null,
      headers: { "x-request-id": "req-abc-123" },
    });
    expect(mine.headers["x-request-id"]).toBe("req-abc-123");
    const made = await t.request("GET", "/api/health", { as: null });
    expect(String(made.headers["x-request-id"])).toMatch(UUID);
  });
});

describe.each(databaseKinds)("HTTP conventions through a test area on %s", (kind) => {
  let w: PlatformApp;
  beforeAll(async () => {
    w = await startPlatformApp(kind);
  });
  afterAll(async () => {
    await w?.close();
  });

  const create = async (name: string, headers: Record<string, string> = {}, as = w?.tenant) =>
    w.request("POST", "/api/widgets", { body: { name }, headers, as });

  it("creates with 201, Location and ETag, and the read model answers at once (read-your-writes)", async () => {
    const res = await create("alpha");
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.id).toMatch(UUID);
    expect(body.name).toBe("alpha");
    expect(res.headers.location).toBe(`/api/widgets/${body.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    const got = await w.request("GET", `/api/widgets/${body.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
    expect(got.headers.etag).toBe('W/"0"');
    // Another tenant's id is a 404, not a 403.
    expectError(await w.request("GET", `/api/widgets/${body.id}`, { as: w.other }), 404, "NotFound");
    expectError(
      await w.request("PUT", `/api/widgets/${body.id}`, { as: w.other, body: { name: "x" } }),
      404,
      "NotFound",
    );
  });

  it("answers malformed JSON with 400 ValidationError", async () => {
    for (const raw of ['{"name": ', "{name: 'x'}", "[1,2", "nul", '{"name":"a"}}', "\u0000"]) {
      const res = await w.request("POST", "/api/widgets", {
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expectError(res, 400, "ValidationError");
    }
  });

  it("answers a wrong content type with 415 UnsupportedMediaType", async () => {
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded"]) {
      const res = await w.request("POST", "/api/widgets", {
        rawBody: "name=x",
        headers: { "content-type": type },
      });
      expectError(res, 415, "UnsupportedMediaType");
    }
  });

  it("answers a body over 1 MiB with 413 PayloadTooLarge", async () => {
    const res = await w.request("POST", "/api/widgets", { body: { name: "x".repeat(1024 * 1024 + 10) } });
    expectError(res, 413, "PayloadTooLarge");
    // Just under the limit is read (and then refused by the schema, not by the size).
    const under = await w.request("POST", "/api/widgets", { body: { name: "x".repeat(1024 * 1024 - 100) } });
    expectError(under, 400, "ValidationError");
  });

  it("answers schema failures with 400 and dotted details; unknown fields are refused, read-only ones ignored", async () => {
    const unknown = expectError(
      await w.request("POST", "/api/widgets", { body: { name: "x", colour: "red" } }),
      400,
      "ValidationError",
    );
    expect(unknown.details).toContainEqual({ field: "colour", message: expect.any(String) });
    const missing = expectError(
      await w.request("POST", "/api/widgets", { body: {} }),
      400,
      "ValidationError",
    );
    expect(missing.details.map((d: { field: string }) => d.field)).toContain("name");
    const readOnly = await w.request("POST", "/api/widgets", {
      body: { name: "ro", id: "not-even-a-uuid", created_at: "x", updated_at: 3 },
    });
    expect(readOnly.statusCode).toBe(201);
    expect(readOnly.json().id).not.toBe("not-even-a-uuid");
    expectError(await w.request("GET", "/api/widgets/not-a-uuid"), 400, "ValidationError");
    expectError(await w.request("GET", "/api/widgets?limit=0"), 400, "ValidationError");
    expectError(await w.request("GET", "/api/widgets?limit=1001"), 400, "ValidationError");
    expectError(await w.request("GET", "/api/widgets?page=0"), 400, "ValidationError");
  });

  it("never answers 500 to an odd body", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const odd: { raw?: string | Buffer; type?: string }[] = [
      { raw: "null", type: "application/json" },
      { raw: "[]", type: "application/json" },
      { raw: '"a string"', type: "application/json" },
      { raw: "12345678901234567890123456789", type: "application/json" },
      { raw: "true", type: "application/json" },
      { raw: '{"name": null}', type: "application/json" },
      { raw: '{"name": {"$gt": ""}}', type: "application/json" },
      { raw: '{"name": ["a"]}', type: "application/json" },
      { raw: '{"__proto__": {"name": "x"}}', type: "application/json" },
      { raw: '{"constructor": {"prototype": {"x": 1}}}', type: "application/json" },
      { raw: '{"name": "\\ud800"}', type: "application/json" },
      { raw: '{"name": "a\\u0000b"}', type: "application/json" },
      { raw: deep, type: "application/json" },
      { raw: Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), type: "application/json" },
      { raw: "", type: "application/json" },
      { raw: '{"name":"x"}', type: "application/json; charset=latin1" },
      { raw: '{"name":"x"}', type: "multipart/form-data; boundary=x" },
      { raw: '{"name":"x"}' },
      { type: "application/json" },
      {},
    ];
    for (const { raw, type } of odd) {
      const res = await w.request("POST", "/api/widgets", {
        rawBody: raw,
        headers: type ? { "content-type": type } : {},
      });
      expect(res.statusCode, `${type} ${String(raw).slice(0, 40)} -> ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) expectError(res, res.statusCode, res.json().error);
    }
  });

  it("answers an unexpected failure with a bare 500 InternalError (no SQL, no stack)", async () => {
    const res = await w.request("POST", `/api/widgets/${crypto.randomUUID()}/explode`);
    const body = expectError(res, 500, "InternalError");
    expect(JSON.stringify(body)).not.toMatch(/no_such_table|secret_column|relation/);
  });

  it("refuses a key without the route's permission with 403 naming it", async () => {
    const reader = await w.newTenant(undefined, ["PropertiesRead", "LesseeWrite"]);
    expect((await w.request("GET", "/api/widgets", { as: reader })).statusCode).toBe(200);
    const post = expectError(await create("nope", {}, reader), 403, "Forbidden");
    expect(post.message).toContain("PropertiesWrite");
    const del = expectError(
      await w.request("DELETE", `/api/widgets/${crypto.randomUUID()}`, { as: reader }),
      403,
      "Forbidden",
    );
    expect(del.message).toContain("PropertiesDelete");
    const none = await w.newTenant(undefined, ["LeasesRead"]);
    expect(
      expectError(await w.request("GET", "/api/widgets", { as: none }), 403, "Forbidden").message,
    ).toContain("PropertiesRead");
  });

  it("stops accepting a revoked key within 1 s", async () => {
    const victim = await w.newTenant();
    expect((await w.request("GET", "/api/widgets", { as: victim })).statusCode).toBe(200);
    const revoked = await w.app.inject({
      method: "DELETE",
      url: `/api/admin/api-keys/${victim.keyId}`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(revoked.statusCode).toBe(204);
    await sleep(1100);
    expectError(await w.request("GET", "/api/widgets", { as: victim }), 401, "Unauthorized");
    expectError(await create("after revocation", {}, victim), 401, "Unauthorized");
  });

  it("replays a POST with the same Idempotency-Key and body; another body is a 409", async () => {
    const key = `idem-${crypto.randomUUID()}`;
    const first = await create("idempotent", { "idempotency-key": key });
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const again = await create("idempotent", { "idempotency-key": key });
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.etag).toBe(first.headers.etag);
    // Only one widget was created.
    const events = await w.sql.query("SELECT count(*)::int AS n FROM events WHERE stream_name = $1", [
      `widget-${first.json().id}`,
    ]);
    expect(events[0].n).toBe(1);

    expectError(await create("something else", { "idempotency-key": key }), 409, "Conflict");
    // Keys belong to a tenant: the same key elsewhere is a new request.
    const elsewhere = await create("idempotent", { "idempotency-key": key }, w.other);
    expect(elsewhere.statusCode).toBe(201);
    expect(elsewhere.json().id).not.toBe(first.json().id);
    // A refused request (400) or a failure (5xx) does not use the key up: the client may retry.
    const retryKey = `idem-${crypto.randomUUID()}`;
    expect((await create("", { "idempotency-key": retryKey })).statusCode).toBe(400);
    expect((await create("fixed", { "idempotency-key": retryKey })).statusCode).toBe(201);
    const boomKey = { "idempotency-key": `idem-${crypto.randomUUID()}` };
    const boomUrl = `/api/widgets/${crypto.randomUUID()}/explode`;
    expect((await w.request("POST", boomUrl, { headers: boomKey })).statusCode).toBe(500);
    expect((await w.request("POST", boomUrl, { headers: boomKey })).statusCode).toBe(500);
    // A plain retry without the header creates another.
    expect((await create("idempotent")).json().id).not.toBe(first.json().id);
  });

  it("pages lists with X-Total-Count and a Link header (first, prev, next, last)", async () => {
    const pager = await w.newTenant();
    for (const name of ["p1", "p2", "p3", "p4", "p5"])
      expect((await create(name, {}, pager)).statusCode).toBe(201);
    const page2 = await w.request("GET", "/api/widgets?page=2&limit=2", { as: pager });
    expect(page2.statusCode).toBe(200);
    expect(page2.json().map((x: { name: string }) => x.name)).toEqual(["p3", "p4"]);
    expect(page2.headers["x-total-count"]).toBe("5");
    const links = parseLinks(String(page2.headers.link));
    expect(links).toEqual({
      first: "/api/widgets?page=1&limit=2",
      prev: "/api/widgets?page=1&limit=2",
      next: "/api/widgets?page=3&limit=2",
      last: "/api/widgets?page=3&limit=2",
    });
    const first = parseLinks(
      String((await w.request("GET", "/api/widgets?limit=2", { as: pager })).headers.link),
    );
    expect(first.prev).toBeUndefined();
    expect(first.next).toBe("/api/widgets?limit=2&page=2");
    const last = await w.request("GET", "/api/widgets?page=3&limit=2", { as: pager });
    expect(last.json()).toHaveLength(1);
    expect(parseLinks(String(last.headers.link)).next).toBeUndefined();
    const all = await w.request("GET", "/api/widgets", { as: pager });
    expect(all.json()).toHaveLength(5);
    expect(all.headers["x-total-count"]).toBe("5");
    const empty = await w.newTenant();
    const none = await w.request("GET", "/api/widgets", { as: empty });
    expect(none.json()).toEqual([]);
    expect(none.headers["x-total-count"]).toBe("0");
  });

  it("honours If-Match on PUT and DELETE (412 on a stale or malformed ETag)", async () => {
    const { id } = (await create("etag")).json();
    const stale = await w.request("PUT", `/api/widgets/${id}`, {
      body: { name: "etag2" },
      headers: { "if-match": 'W/"5"' },
    });
    expectError(stale, 412, "PreconditionFailed");
    expectError(
      await w.request("PUT", `/api/widgets/${id}`, {
        body: { name: "etag2" },
        headers: { "if-match": "garbage" },
      }),
      412,
      "PreconditionFailed",
    );
    const ok = await w.request("PUT", `/api/widgets/${id}`, {
      body: { name: "etag2" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().name).toBe("etag2");
    expect(ok.headers.etag).toBe('W/"1"');
    expect((await w.request("GET", `/api/widgets/${id}`)).headers.etag).toBe('W/"1"');
    expectError(
      await w.request("DELETE", `/api/widgets/${id}`, { headers: { "if-match": 'W/"0"' } }),
      412,
      "PreconditionFailed",
    );
    const del = await w.request("DELETE", `/api/widgets/${id}`, { headers: { "if-match": '"1"' } });
    expect(del.statusCode).toBe(204);
    expectError(await w.request("GET", `/api/widgets/${id}`), 404, "NotFound");
  });

  it("stores x-request-id as the events' correlation id, and the key as actor", async () => {
    const res = await create("correlated", { "x-request-id": "corr-42-xyz" });
    expect(res.statusCode).toBe(201);
    expect(res.headers["x-request-id"]).toBe("corr-42-xyz");
    const [event] = await w.sql.query("SELECT metadata FROM events WHERE stream_name = $1", [
      `widget-${res.json().id}`,
    ]);
    expect(event.metadata.correlation_id).toBe("corr-42-xyz");
    expect(event.metadata.tenant_id).toBe(w.tenant.id);
    expect(event.metadata.actor_key_id).toMatch(UUID);
    // Without the header, the generated request id is used and echoed.
    const plain = await create("uncorrelated");
    const [e2] = await w.sql.query("SELECT metadata FROM events WHERE stream_name = $1", [
      `widget-${plain.json().id}`,
    ]);
    expect(e2.metadata.correlation_id).toBe(plain.headers["x-request-id"]);
  });

  it("describes the area's routes in OpenAPI from the zod schemas", async () => {
    const doc = (await w.request("GET", "/api/openapi.json", { as: null })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/widgets", "/api/widgets/{id}"]));
    const post = doc.paths["/api/widgets"].post;
    const schema = post.requestBody.content["application/json"].schema;
    expect(JSON.stringify(schema)).toContain('"name"');
  });

  it("limits the request rate per key with 429 in the error shape", async () => {
    const limited = await w.withConfig({ PMS_RATE_LIMIT_PER_MINUTE: 3 });
    const as = (key: string) => ({
      method: "GET" as const,
      url: "/api/widgets",
      headers: { authorization: `Bearer ${key}` },
    });
    for (let i = 0; i < 3; i++) expect((await limited.inject(as(w.tenant.key))).statusCode).toBe(200);
    const over = await limited.inject(as(w.tenant.key));
    expectError(over, 429, "TooManyRequests");
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    // Per key: another key still passes.
    expect((await limited.inject(as(w.other.key))).statusCode).toBe(200);
  });
});

function parseLinks(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part.trim());
    if (m) out[m[2]] = m[1];
  }
  return out;
}
