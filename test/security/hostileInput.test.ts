import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/platform/http/safeText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { expectErrorShape } from "./errorShape.ts";

/** docs/design.md §4: `{error, message, details?}` and nothing else (no framework `code`/`statusCode`). */
function expectRefusal(res: { statusCode: number; body: string }, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(JSON.parse(res.body).error).toBe(error);
  expectErrorShape(res);
}

const nest = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const lessee = (customFields: string) =>
  `{"category":"individual","email":"hostile-${crypto.randomUUID()}@example.fr","first_name":"A","last_name":"B","custom_fields":${customFields}}`;

describe.each(databaseKinds)("hostile input on %s", (kind) => {
  let t: TestApp;
  let lesseeId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const res = await t.request("POST", "/api/lessees", { rawBody: lessee("{}"), headers: json });
    lesseeId = res.json().id;
  });
  afterAll(async () => {
    await t?.close();
  });
  const json = { "content-type": "application/json" };
  const send = (method: string, url: string, rawBody: string) =>
    t.request(method, url, { rawBody, headers: json });
  const writes = (body: string): [string, string, string][] => [
    ["POST", "/api/lessees", body],
    ["PUT", `/api/lessees/${lesseeId}`, body.replace(/"email":"[^"]*",/, "")],
    ["POST", "/api/lessees/bulk", `[${body}]`],
  ];

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400, and accepts it within`, async () => {
    for (const depth of [MAX_JSON_DEPTH, 5000, 100_000]) {
      for (const [method, url, body] of writes(lessee(`{"x":${nest(depth, "1")}}`))) {
        const res = await send(method, url, body);
        expectRefusal(res, 400, "ValidationError");
        expect(res.json().details).toEqual([
          { field: "body", message: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` },
        ]);
      }
    }
    // The body is level 1, custom_fields 2, the arrays under "x" 3 and on: bulk adds a level.
    const within = lessee(`{"x":${nest(MAX_JSON_DEPTH - 2, "1")}}`);
    expect((await send("POST", "/api/lessees", within)).statusCode).toBe(201);
    expect((await send("POST", "/api/lessees/bulk", `[${within}]`)).statusCode).toBe(400);
    const withinBulk = lessee(`{"x":${nest(MAX_JSON_DEPTH - 3, "1")}}`);
    expect((await send("POST", "/api/lessees/bulk", `[${withinBulk}]`)).statusCode).toBe(201);
  });

  it("refuses a NUL or a lone surrogate at any depth of free-form JSON with 400 on the field", async () => {
    for (const bad of ['"\\u0000"', '"\\ud800"', '"a\\udfffb"']) {
      for (const depth of [0, 1, 10, MAX_JSON_DEPTH - 3]) {
        for (const [method, url, body] of writes(lessee(`{"x":${nest(depth, bad)}}`))) {
          const res = await send(method, url, body);
          expectRefusal(res, 400, "ValidationError");
          expect(res.json().details[0].field).toMatch(/custom_fields\.x/);
        }
      }
      // ... and in a key.
      const res = await send("POST", "/api/lessees", lessee(`{"k${bad.slice(1, -1)}":1}`));
      expectRefusal(res, 400, "ValidationError");
    }
    const [row] = await t.sql.query("SELECT count(*)::int AS n FROM lessees");
    expect(row.n).toBeGreaterThan(0);
  });

  it("answers framework errors in the error shape", async () => {
    expectRefusal(await t.request("GET", "/api/lessees/%ff"), 400, "ValidationError");
    expectRefusal(await t.request("GET", "/%61pi/lessees/%ff", { as: null }), 400, "ValidationError");
    expectRefusal(await t.request("GET", `/api/lessees/${"a".repeat(600)}`), 414, "PayloadTooLarge");
    expectRefusal(await send("POST", "/api/lessees", "{bad"), 400, "ValidationError");
    expectRefusal(await send("POST", "/api/lessees", '{"__proto__":{"x":1}}'), 400, "ValidationError");
    expectRefusal(
      await send("POST", "/api/lessees", '{"constructor":{"prototype":{"x":1}}}'),
      400,
      "ValidationError",
    );
    expectRefusal(await send("POST", "/api/lessees", ""), 400, "ValidationError");
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded", "image/png"]) {
      const res = await t.request("POST", "/api/lessees", {
        rawBody: "{}",
        headers: { "content-type": type },
      });
      expectRefusal(res, 415, "UnsupportedMediaType");
    }
    expectRefusal(await t.request("POST", "/api/lessees", { rawBody: "{}" }), 415, "UnsupportedMediaType");
  });

  it("answers a 20 kB query string over HTTP with 431 in the error shape", async () => {
    const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const res: LightMyRequestResponse | Response = await fetch(
      `${address}/api/lessees?q=${"a".repeat(20_000)}`,
      { headers: { authorization: `Bearer ${t.tenant.key}` } },
    );
    expectRefusal({ statusCode: res.status, body: await res.text() }, 431, "PayloadTooLarge");
    const ok = await fetch(`${address}/api/lessees/%ff`, {
      headers: { authorization: `Bearer ${t.tenant.key}` },
    });
    expectRefusal({ statusCode: ok.status, body: await ok.text() }, 400, "ValidationError");
  });
});
