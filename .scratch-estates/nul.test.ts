import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";
let t: TestApp;
beforeAll(async () => { t = await createTestApp("postgres"); });
afterAll(async () => { await t?.close(); });
it("nul", async () => {
  const res = await t.request("POST", "/api/places", { body: { name: "a\u0000b" } });
  console.log(res.statusCode, res.body);
  const res2 = await t.request("POST", "/api/places", { body: { name: "ok", description: "\ud800" } });
  console.log(res2.statusCode, res2.body);
  const res3 = await t.request("POST", "/api/owners", { body: { category: "company", legal_name: "x", email: "a@b.fr", custom_fields: { "k\u0000": "a" } } });
  console.log(res3.statusCode, res3.body);
  const res4 = await t.request("GET", "/api/places?q=%00");
  console.log(res4.statusCode, res4.body);
});
it("nul2", async () => {
  const e = await t.request("GET", "/api/estates?q=%00");
  console.log(e.statusCode);
  const r = await t.request("POST", "/api/owners", { body: { category: "company", legal_name: "x", email: "a\u0000@b.fr" } });
  console.log(r.statusCode, r.body);
});
