import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";

describe("smoke", () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp("embedded"); });
  afterAll(async () => { await t?.close(); });
  it("creates", async () => {
    const res = await t.request("POST", "/api/lessees", { body: { category: "individual", first_name: "A", last_name: "B", email: "a@b.fr" } });
    console.log(res.statusCode, res.headers, res.body);
    const g = await t.request("GET", `/api/lessees/${res.json().id}`);
    console.log(g.statusCode, g.headers.etag, g.body);
    const l = await t.request("GET", `/api/lessees/type/company%2Fother`);
    console.log(l.statusCode, l.headers, l.body);
    const h = await t.request("GET", `/api/lessees/${res.json().id}/history`);
    console.log(h.statusCode, h.body);
    const d = await t.request("POST", "/api/lessees", { body: { category: "individual", first_name: "A", last_name: "B", email: "A@b.fr" } });
    console.log(d.statusCode, d.body);
  });
});
