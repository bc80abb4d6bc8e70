import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/support/testApp.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(process.env.TEST_DATABASE_URL ? "postgres" : "embedded");
});
afterAll(async () => {
  await t?.close();
});
it("nul", async () => {
  const place = (await t.request("POST", "/api/places", { body: { name: "P" } })).json().id;
  const body = { place_id: place, reference_number: "R\u0000X", diagnosis_date: "2024-01-01", valid_until: "2030-01-01", energy_label: "C", ges_label: "C", construction_year: 1990, notes: "\ud800" };
  const res = await t.request("POST", "/api/energy-diagnoses", { body });
  console.log(res.statusCode, res.body);
  const res2 = await t.request("POST", "/api/energy-diagnoses", { body: { ...body, reference_number: "ok" } });
  console.log(res2.statusCode, res2.body);
});
