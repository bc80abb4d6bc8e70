import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseCheckerOf } from "../support/checkResponse.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

interface Response {
  description: string;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
type Operations = Record<string, Record<string, { responses?: Record<string, Response> }>>;

const METHODS = ["get", "post", "put", "patch", "delete"];

/** Every operation of the document, as "METHOD /path" with its responses. */
function operationsOf(doc: { paths: Operations }) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, responses: op.responses ?? {} })),
  );
}

describe.each(databaseKinds)("OpenAPI responses on %s", (kind) => {
  let t: TestApp;
  let doc: { paths: Operations };
  beforeAll(async () => {
    t = await createTestApp(kind);
    doc = (await t.request("GET", "/api/openapi.json", { as: null })).json();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("declares a 2xx answer with its shape on every operation", () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(60);
    const missing = operations
      .filter(({ responses }) => {
        const success = Object.entries(responses).filter(([status]) => status.startsWith("2"));
        // A 204 has no content; anything else must say what it carries.
        return (
          success.length === 0 ||
          success.some(
            ([status, r]) => status !== "204" && !Object.values(r.content ?? {}).some((c) => c.schema),
          )
        );
      })
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it.each(["4XX", "5XX"])("declares the error shape for the %s of every operation", (range) => {
    const missing = operationsOf(doc)
      .filter(({ responses }) => {
        const schema = responses[range]?.content?.["application/json"]?.schema as
          | { required?: string[] }
          | undefined;
        const required = schema?.required ?? [];
        return !required.includes("error") || !required.includes("message");
      })
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it("refuses an answer the document does not describe", async () => {
    const check = await responseCheckerOf(t.app);
    const answer = (statusCode: number, body: string) => ({ statusCode, body }) as LightMyRequestResponse;
    const url = "/api/lessees/2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
    expect(() => check("GET", url, answer(200, JSON.stringify({ id: 42 })))).toThrow(/does not match/);
    expect(() => check("GET", url, answer(404, JSON.stringify({ oops: true })))).toThrow(/does not match/);
    expect(() =>
      check("GET", url, answer(404, JSON.stringify({ error: "NotFound", message: "x" }))),
    ).not.toThrow();
    expect(() => check("DELETE", url, answer(204, "{}"))).toThrow(/body where/);
  });
});
