import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PmsClient, type Schemas, written } from "../../clients/typescript/index.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { typedClientOf } from "../support/typedClient.ts";

/** Configurations and templates through the typed client (clients/typescript), over HTTP. */

describe.each(databaseKinds)("settings through the typed client on %s", (kind) => {
  let t: TestApp;
  let pms: PmsClient;
  beforeAll(async () => {
    t = await createTestApp(kind);
    pms = (await typedClientOf(t))();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("reads the defaults, PUTs them back changed with If-Match, and a stale ETag is a 412", async () => {
    const got = await pms.GET("/api/configurations");
    const current = got.data as Schemas["Configuration"];
    expect(current.customised).toBe(false);
    const body: Schemas["SaveConfigurationInput"] = {
      ...current,
      receipt_numbering: { prefix: "QT", reset: "YEARLY" },
    };
    const saved = await pms.PUT("/api/configurations", { body });
    expect(saved.response.status, JSON.stringify(saved.error)).toBe(200);
    expect(written(saved)).toMatchObject({ receipt_numbering: { prefix: "QT" }, version: 1 });
    const etag = saved.response.headers.get("etag") ?? "";
    const stale = await pms.PUT("/api/configurations", {
      body: { ...body, reminder_levels: [] },
      headers: { "if-match": 'W/"9"' },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toMatchObject({ error: "PreconditionFailed" });
    const fresh = await pms.PUT("/api/configurations", {
      body: { ...body, reminder_levels: [] },
      headers: { "if-match": etag },
    });
    expect(written(fresh)?.version).toBe(2);
  });

  it("saves a template, gets a 422 in the error shape for a broken one, resets it", async () => {
    const path = { params: { path: { code: "reminder" as const } } };
    const saved = await pms.PUT("/api/templates/{code}", {
      ...path,
      body: { source: "Relance n° {{reminder.level}}" },
    });
    expect(written(saved)).toMatchObject({ code: "reminder", customised: true, version: 1 });
    const broken = await pms.PUT("/api/templates/{code}", {
      ...path,
      body: { source: "{{receipt.number}}" },
    });
    expect(broken.response.status).toBe(422);
    expect(broken.error).toMatchObject({ error: "UnprocessableEntity", details: [{ field: "source" }] });
    expect((await pms.DELETE("/api/templates/{code}", path)).response.status).toBe(204);
    expect((await pms.GET("/api/templates/{code}", path)).data).toMatchObject({ source: null, version: 2 });
  });
});
