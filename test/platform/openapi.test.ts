import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIdOf } from "../../src/platform/http/openapi.ts";
import { responseCheckerOf } from "../support/checkResponse.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

interface Response {
  $ref?: string;
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Record<string, unknown>[];
  requestBody?: { content: Record<string, { schema?: Record<string, any> }> };
  responses?: Record<string, Response>;
}
type Operations = Record<string, Record<string, Operation>>;
interface Document {
  paths: Operations;
  components: { schemas: Record<string, any>; responses: Record<string, Response> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];

/** Every operation of the document, as "METHOD /path" with its responses (named ones resolved). */
function operationsOf(doc: Document) {
  const resolve = (r: Response) =>
    r.$ref ? doc.components.responses[r.$ref.replace("#/components/responses/", "")] : r;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({
        name: `${method.toUpperCase()} ${path}`,
        method,
        path,
        op,
        responses: Object.fromEntries(Object.entries(op.responses ?? {}).map(([s, r]) => [s, resolve(r)])),
      })),
  );
}

describe.each(databaseKinds)("OpenAPI responses on %s", (kind) => {
  let t: TestApp;
  let doc: Document;
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
        const schema = responses[range]?.content?.["application/json"]?.schema;
        return schema?.$ref !== "#/components/schemas/Error";
      })
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it("names the error shape once: Error, {error, message, details?}", () => {
    const error = doc.components.schemas.Error;
    expect(error.required).toEqual(["error", "message"]);
    expect(Object.keys(error.properties)).toEqual(["error", "message", "details"]);
    const named = {
      BadRequest: "ValidationError",
      Unauthorized: "Unauthorized",
      Forbidden: "Forbidden",
      NotFound: "NotFound",
      Conflict: "Conflict",
      PreconditionFailed: "PreconditionFailed",
      PayloadTooLarge: "PayloadTooLarge",
      UnsupportedMediaType: "UnsupportedMediaType",
      TooManyRequests: "TooManyRequests",
      ServiceUnavailable: "ServiceUnavailable",
    };
    for (const [name, code] of Object.entries(named)) {
      const json = doc.components.responses[name]?.content?.["application/json"] as Record<string, any>;
      expect(json?.schema, name).toEqual({ $ref: "#/components/schemas/Error" });
      expect(json?.example?.error, name).toBe(code);
    }
    const get = operationsOf(doc).find((o) => o.name === "GET /api/estates/{id}")!;
    expect(Object.keys(get.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "429", "503", "4XX", "5XX"]),
    );
    expect(get.responses["404"].content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/Error",
    });
  });

  it("gives every operation a unique camelCase operationId from its method and path, a summary and a description", () => {
    const operations = operationsOf(doc);
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const { op, name } of operations) {
      expect(op.operationId, name).toMatch(/^(get|post|put|patch|delete)[A-Z][A-Za-z0-9]*$/);
      expect(op.summary, name).toBeTruthy();
      expect(op.description, name).toBeTruthy();
    }
    // Stable: derived from method and path only, so clients' names survive a rebuild.
    expect(operationIdOf("get", "/api/estates/{id}")).toBe("getEstatesById");
    expect(operationIdOf("put", "/api/places/{place_id}/estates/{estate_id}/rent-regulation")).toBe(
      "putPlacesByPlaceIdEstatesByEstateIdRentRegulation",
    );
    expect(operations.find((o) => o.name === "GET /api/estates/{id}")?.op.operationId).toBe("getEstatesById");
  });

  it("declares the headers the answers carry and the requests may send", () => {
    const op = (name: string) => operationsOf(doc).find((o) => o.name === name)!;
    expect(op("GET /api/estates/{id}").responses["200"].headers).toHaveProperty("ETag");
    expect(op("GET /api/estates").responses["200"].headers).toEqual({
      "X-Total-Count": { $ref: "#/components/headers/XTotalCount" },
      Link: { $ref: "#/components/headers/Link" },
    });
    expect(op("POST /api/energy-diagnoses").responses["201"].headers).toHaveProperty("Location");
    expect(op("POST /api/energy-diagnoses").responses["201"].headers).toHaveProperty("ETag");
    expect(
      op("GET /api/leases/{lease_id}/documents/{document_id}/file").responses["200"].headers,
    ).toHaveProperty("Content-Disposition");
    expect(op("PUT /api/estates/{id}").op.parameters).toContainEqual({
      $ref: "#/components/parameters/IfMatch",
    });
    expect(op("POST /api/energy-diagnoses").op.parameters).toContainEqual({
      $ref: "#/components/parameters/IdempotencyKey",
    });
  });

  it("shows read-only fields as readOnly, uploads as multipart, the company/other route's parameter", () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"not":{}');
    const estateChanges = doc.components.schemas.EstateChangesInput.properties;
    expect(estateChanges.rental_status).toMatchObject({
      readOnly: true,
      enum: ["VACANT", "RENTED", "NOTICE"],
    });
    const op = (name: string) => operationsOf(doc).find((o) => o.name === name)!.op;
    const documentChanges = op("PUT /api/leases/{lease_id}/documents/{document_id}").requestBody!.content[
      "application/json"
    ].schema!.properties;
    for (const field of ["filename", "size", "sha256", "content_type"])
      expect(documentChanges[field], field).toMatchObject({ readOnly: true });
    const upload = op("POST /api/leases/{lease_id}/documents").requestBody!.content["multipart/form-data"]
      .schema!;
    expect(upload.required).toEqual(expect.arrayContaining(["document_type", "file"]));
    expect(upload.properties.file).toEqual({ type: "string", format: "binary" });
    expect(op("POST /api/media").requestBody!.content).toHaveProperty("multipart/form-data");
    const byType = op("GET /api/lessees/type/{type}");
    expect(byType.parameters).toContainEqual(
      expect.objectContaining({
        in: "path",
        name: "type",
        required: true,
        schema: expect.objectContaining({ enum: ["individual", "company/other", "guarantor"] }),
      }),
    );
    expect(Object.keys(doc.paths).filter((p) => p.includes("*"))).toEqual([]);
    const asOf = op("GET /api/leases/{lease_id}").parameters!.find((p) => p.name === "as_of");
    expect(asOf).toMatchObject({ schema: { anyOf: [{ format: "date-time" }, { format: "date" }] } });
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
