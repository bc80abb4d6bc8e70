import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ALL_PERMISSIONS, createApiKey } from "../../src/platform/tenants/tenants.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** Bank accounts (docs/bank.md): IBAN and BIC by ibantools, the creditor identifier's check digits, Finance permissions. */
describe.each(databaseKinds)("bank accounts on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const account = {
    label: "Compte loyers",
    iban: "fr76 3000 6000 0112 3456 7890 189",
    bic: "agrifrpp",
    creditor_id: "FR72ZZZ123456",
  };

  it("creates one with its IBAN in electronic form and its ICS checked, reads it back and lists it", async () => {
    const res = await t.request("POST", "/api/bank-accounts", { body: account });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      label: "Compte loyers",
      iban: "FR7630006000011234567890189",
      bic: "AGRIFRPP",
      creditor_id: "FR72ZZZ123456",
      owner_id: null,
      csv_mapping: null,
    });
    expect(res.headers.location).toBe(`/api/bank-accounts/${body.id}`);
    expect((await t.request("GET", `/api/bank-accounts/${body.id}`)).json()).toEqual(body);
    expect((await t.request("GET", "/api/bank-accounts")).json().map((a: { id: string }) => a.id)).toContain(
      body.id,
    );
    expect((await t.request("GET", `/api/bank-accounts/${body.id}`, { as: t.other })).statusCode).toBe(404);
  });

  it("refuses a wrong IBAN, BIC or creditor identifier with 400 and writes nothing", async () => {
    const before = await eventCount(t);
    const cases: [object, string][] = [
      [{ iban: "FR7630006000011234567890188" }, "iban"],
      [{ iban: "FR76300060000112345678901" }, "iban"],
      [{ bic: "AGRI" }, "bic"],
      [{ creditor_id: "FR73ZZZ123456" }, "creditor_id"],
      [{ creditor_id: "FR72ZZZ1234567" }, "creditor_id"],
      [{ label: "" }, "label"],
    ];
    for (const [change, field] of cases) {
      const res = await t.request("POST", "/api/bank-accounts", { body: { ...account, ...change } });
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await eventCount(t)).toBe(before);
  });

  it("needs the Finance permissions", async () => {
    const keyOf = async (permissions: string[]) => ({
      id: t.tenant.id,
      key: (await createApiKey(t.sql, t.tenant.id, "limited", permissions as typeof ALL_PERMISSIONS)).key,
    });
    const leases = await keyOf(["LeasesRead", "LeasesWrite"]);
    const financeRead = await keyOf(["FinanceRead"]);
    const denied = await t.request("GET", "/api/bank-accounts", { as: leases });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toContain("FinanceRead");
    expect((await t.request("GET", "/api/bank-accounts", { as: financeRead })).statusCode).toBe(200);
    const write = await t.request("POST", "/api/bank-accounts", { body: account, as: financeRead });
    expect(write.statusCode).toBe(403);
    expect(write.json().message).toContain("FinanceWrite");
  });
});
