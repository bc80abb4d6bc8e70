import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const individual = {
  category: "individual",
  first_name: "Claire",
  last_name: "Martin",
  email: "claire.martin@example.fr",
  phone: "+33 6 12 34 56 78",
  address_street: "3 place Bellecour",
  address_postal_code: "69002",
  address_city: "Lyon",
  address_country: "France",
  iban: "fr14 2004 1010 0505 0001 3m02 606",
  bic: "bnpafrpp",
  custom_fields: { siret: null, notes: "prefers email" },
};
const company = { category: "company", legal_name: "SCI Les Tilleuls", email: "gestion@sci-tilleuls.fr" };

describe.each(databaseKinds)("owners API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const create = async (body: object) => {
    const res = await t.request("POST", "/api/owners", { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("creates individuals and companies, normalising IBAN and BIC", async () => {
    const res = await t.request("POST", "/api/owners", { body: individual });
    expect(res.statusCode, res.body).toBe(201);
    const owner = res.json();
    expect(owner).toMatchObject({
      ...individual,
      iban: "FR1420041010050500013M02606",
      bic: "BNPAFRPP",
      legal_name: null,
    });
    expect(res.headers.location).toBe(`/api/owners/${owner.id}`);
    expect((await t.request("GET", `/api/owners/${owner.id}`)).json()).toEqual(owner);
    const c = await create(company);
    expect(c).toMatchObject({ ...company, first_name: null, iban: null });
    const list = await t.request("GET", "/api/owners?category=company");
    expect(list.json().map((o: { id: string }) => o.id)).toEqual([c.id]);
    expect((await t.request("GET", "/api/owners?q=martin")).json().map((o: { id: string }) => o.id)).toEqual([
      owner.id,
    ]);
  });

  it("lists items equal to GET one, custom_fields included (written by PostgreSQL)", async () => {
    const custom = { b: [1, 2.5, "x"], a: { nested: true, n: null }, é: "🔥" };
    const owner = await create({ ...individual, email: "json@example.fr", custom_fields: custom });
    const list = await t.request("GET", "/api/owners?email=json@example.fr");
    expect(list.headers["x-total-count"]).toBe("1");
    const one = await t.request("GET", `/api/owners/${owner.id}`);
    expect(list.json()).toEqual([one.json()]);
    expect(list.json()[0].custom_fields).toEqual(custom);
  });

  it("validates every field rule with details; nothing written", async () => {
    const before = await eventCount(t);
    const cases: [object, string, string?][] = [
      [{ ...individual, category: "trust" }, "category"],
      [{ ...individual, first_name: undefined }, "first_name"],
      [{ ...individual, last_name: "  " }, "last_name"],
      [{ ...individual, legal_name: "SCI" }, "legal_name"],
      [{ ...individual, legal_form: "FAMILY_SCI" }, "legal_form"],
      [{ ...company, legal_form: "SCI" }, "legal_form"],
      [{ ...company, legal_name: undefined }, "legal_name"],
      [{ ...company, email: undefined }, "email"],
      [{ ...company, email: "no-at-sign.fr" }, "email"],
      [{ ...company, email: "a@b@c.fr" }, "email"],
      [{ ...company, email: "a@nodot" }, "email"],
      [{ ...company, iban: "FR1420041010050500013M02607" }, "iban"],
      [{ ...company, iban: "FR14" }, "iban"],
      [{ ...company, iban: "X".repeat(40) }, "iban"],
      [{ ...company, bic: "BNPAFRP" }, "bic"],
      [{ ...company, bic: "12PAFRPP" }, "bic"],
      [{ ...company, custom_fields: [1, 2] }, "custom_fields"],
      [{ ...company, unknown: 1 }, "unknown"],
      [{ ...company, custom_fields: { note: "a\u0000" } }, "custom_fields.note"],
      [{ ...company, legal_name: "\u0000" }, "legal_name"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", "/api/owners", { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe("ValidationError");
      expect(
        res.json().details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    for (const rawBody of ["[]", "null", "{", "true"]) {
      const res = await t.request("POST", "/api/owners", {
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, rawBody).toBe(400);
    }
    expect(await eventCount(t)).toBe(before);
  });

  it("updates: omitted keeps, null removes, category rules on the merged owner", async () => {
    const owner = await create({ ...individual, email: "u@example.fr" });
    const res = await t.request("PUT", `/api/owners/${owner.id}`, {
      body: { phone: null, iban: null, last_name: "Durand" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      phone: null,
      iban: null,
      last_name: "Durand",
      first_name: "Claire",
      bic: "BNPAFRPP",
    });
    expect(res.json().updated_at > owner.updated_at).toBe(true);
    const toCompany = await t.request("PUT", `/api/owners/${owner.id}`, { body: { category: "company" } });
    expect(toCompany.statusCode).toBe(400);
    expect(toCompany.json().details.map((d: { field: string }) => d.field)).toEqual(["legal_name"]);
    expect((await t.request("PUT", `/api/owners/${owner.id}`, { body: { email: null } })).statusCode).toBe(
      400,
    );
    expect(
      (await t.request("PUT", `/api/owners/${owner.id}`, { body: { first_name: null } })).statusCode,
    ).toBe(400);
    const back = await t.request("PUT", `/api/owners/${owner.id}`, { body: res.json() });
    expect(back.statusCode).toBe(200);
  });

  it("records a company's legal form (a family SCI lets for 3 years, art. 13 a): GET, export, update", async () => {
    const sci = await create({ ...company, email: "sci@famille.example", legal_form: "FAMILY_SCI" });
    expect(sci.legal_form).toBe("FAMILY_SCI");
    expect((await t.request("GET", `/api/owners/${sci.id}`)).json()).toEqual(sci);
    const exported = await t.request("GET", `/api/owners/${sci.id}/export`);
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().owner).toEqual(sci);
    expect(exported.json().history[0].data.legal_form).toBe("FAMILY_SCI");
    const unstated = await create({ ...company, email: "sas@fonciere.example" });
    expect(unstated.legal_form).toBeNull();
    const none = await t.request("GET", `/api/owners/${unstated.id}/export`);
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json().owner.legal_form).toBeNull();
    const other = await t.request("PUT", `/api/owners/${sci.id}`, { body: { legal_form: "OTHER_COMPANY" } });
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json().legal_form).toBe("OTHER_COMPANY");
    // Back to an individual: the legal form must go with the legal name.
    const toIndividual = await t.request("PUT", `/api/owners/${sci.id}`, {
      body: { category: "individual", first_name: "Anne", last_name: "Roux", legal_name: null },
    });
    expect(toIndividual.statusCode).toBe(400);
    expect(toIndividual.json().details.map((d: { field: string }) => d.field)).toEqual(["legal_form"]);
  });

  it("deletes, refusing while the owner owns estates (409)", async () => {
    const owner = await create({ ...company, email: "d@example.fr" });
    const place = (await t.request("POST", "/api/places", { body: { name: "P" } })).json();
    const estate = await t.request("POST", `/api/places/${place.id}/estates`, {
      body: {
        name: "E",
        estate_type_id: globalTypeIds.estate.house,
        area: 90,
        fiscal_identifier: "F",
        owner_id: owner.id,
      },
    });
    expect(estate.statusCode).toBe(201);
    expect((await t.request("DELETE", `/api/owners/${owner.id}`)).statusCode).toBe(409);
    expect(
      (await t.request("PUT", `/api/estates/${estate.json().id}`, { body: { owner_id: null } })).statusCode,
    ).toBe(200);
    expect((await t.request("DELETE", `/api/owners/${owner.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/owners/${owner.id}`)).statusCode).toBe(404);
  });

  it("answers 404 on another tenant's owner on every route", async () => {
    const owner = await create({ ...company, email: "iso@example.fr" });
    const as = t.other;
    expect((await t.request("GET", `/api/owners/${owner.id}`, { as })).statusCode).toBe(404);
    expect(
      (await t.request("PUT", `/api/owners/${owner.id}`, { as, body: { phone: null } })).statusCode,
    ).toBe(404);
    expect((await t.request("DELETE", `/api/owners/${owner.id}`, { as })).statusCode).toBe(404);
    expect((await t.request("GET", "/api/owners", { as })).json()).toEqual([]);
    expect((await t.request("GET", `/api/owners/${owner.id}`)).statusCode).toBe(200);
  });
});
