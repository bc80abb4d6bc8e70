import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp("embedded");
});
afterAll(async () => {
  await t?.close();
});
it("openapi", async () => {
  const res = await t.request("GET", "/api/openapi.json");
  expect(res.statusCode).toBe(200);
  const paths = Object.keys(res.json().paths).filter((p) => /energy|media|diagnostics/.test(p));
  console.log(paths);
  console.log(JSON.stringify(res.json().paths["/api/energy-diagnoses"].post.requestBody).slice(0, 1500));
});
