import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

// A rebuild must give the same rows as the live projector for every kind of column: nulls,
// numbers, dates, jsonb, quotes and braces in text (docs/performance.md).
describe.each(databaseKinds)("lessees rebuild on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("rebuilding the lessees projection from the log gives the same rows, nulls, numbers, dates and jsonb alike", async () => {
    const create = async (body: Record<string, unknown>) => {
      const res = await t.request("POST", "/api/lessees", { body });
      expect(res.statusCode).toBe(201);
      return res.json();
    };
    const full = await create({
      category: "individual",
      title: "Mme",
      first_name: "Marie",
      last_name: 'D\'Curie "la" {savante}, \\ né',
      email: "marie.rebuild@example.fr",
      birth_date: "1967-11-07",
      monthly_income: 3200.5,
      other_income: 0,
      iban: "FR76 3000 6000 0112 3456 7890 189",
      identity_documents: { passport: { number: "12AB34567", expiry: "2031-04-30", issuing_country: "FR" } },
      additional_contacts: {
        references: [{ name: "Ancien bailleur", phone: "+33100000000", type: "landlord" }],
      },
      custom_fields: { note: 'bon, "dossier" {x}', empty: "" },
    });
    const bare = await create({
      category: "company/other",
      legal_name: "SCI Les Tilleuls",
      email: "sci.rebuild@example.fr",
    });
    const gone = await create({
      category: "guarantor",
      legal_name: "Garantme SAS",
      email: "g.rebuild@example.fr",
    });
    const put = await t.request("PUT", `/api/lessees/${bare.id}`, {
      body: {
        category: "company/other",
        legal_name: "SCI Les Tilleuls 2",
        email: "sci.rebuild@example.fr",
        monthly_income: 12.34,
      },
    });
    expect(put.statusCode).toBe(200);
    expect((await t.request("DELETE", `/api/lessees/${gone.id}`)).statusCode).toBe(204);
    const snapshot = () => t.sql.query("SELECT * FROM lessees ORDER BY id");
    const before = await snapshot();
    expect(before.map((r: { id: string }) => r.id).sort()).toEqual([full.id, bare.id].sort());
    await rebuildProjection(t.sql, t.service.platform.store, lesseesProjection);
    expect(await snapshot()).toEqual(before);
  });
});
