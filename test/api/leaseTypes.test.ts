import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** GET /api/lease-types (docs/design.md §7.0b): the law's regime of each lease type, read-only. */
describe.each(databaseKinds)("lease types on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists the seven types with their regime, the same for every tenant", async () => {
    const list = await t.request("GET", "/api/lease-types");
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().map((r: { code: string }) => r.code)).toEqual([
      "UNFURNISHED",
      "FURNISHED",
      "MOBILITY",
      "STUDENT",
      "COMMERCIAL",
      "PROFESSIONAL",
      "PARKING",
    ]);
    const other = await t.request("GET", "/api/lease-types", { as: t.other });
    expect(other.json()).toEqual(list.json());
    const unfurnished = list.json()[0];
    expect(unfurnished).toMatchObject({
      under_loi_89_462: true,
      duration: { minimum_months: 36, renewal: "TACIT", legal_reference: expect.stringContaining("art. 10") },
      deposit: { cap_months: 1, legal_reference: expect.stringContaining("art. 22") },
      notice: { lessee: { months: 3 }, lessor: { months: 6 } },
      index_revision: { index: "IRL", at_most_once_a_year: true },
    });
    expect(unfurnished.mandatory_annexes.join(" ")).toContain("art. 3-3");
  });

  it("reads one type by its code; an unknown code is a 404 in the error shape", async () => {
    const mobility = await t.request("GET", "/api/lease-types/MOBILITY");
    expect(mobility.json()).toMatchObject({
      code: "MOBILITY",
      duration: { minimum_months: 1, maximum_months: 10, renewal: "NONE" },
      deposit: { cap_months: 0 },
      notice: { lessor: { months: null } },
      index_revision: { index: "NONE" },
    });
    expect((await t.request("GET", "/api/lease-types/professional")).json()).toMatchObject({
      under_loi_89_462: false,
      law: expect.stringContaining("86-1290 du 23 décembre 1986, art. 57 A"),
      deposit: { cap_months: "UNKNOWN" },
    });
    const missing = await t.request("GET", "/api/lease-types/CASTLE");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: "NotFound" });
  });

  it("needs LeasesRead", async () => {
    const noLeases = await t.newTenant(undefined, ["PropertiesRead"]);
    expect((await t.request("GET", "/api/lease-types", { as: noLeases })).statusCode).toBe(403);
    const reader = await t.newTenant(undefined, ["LeasesRead"]);
    expect((await t.request("GET", "/api/lease-types/UNFURNISHED", { as: reader })).statusCode).toBe(200);
    expect((await t.request("GET", "/api/lease-types", { as: null })).statusCode).toBe(401);
  });
});
