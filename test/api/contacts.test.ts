import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const plumber = {
  category: "tradesperson",
  first_name: "Karim",
  last_name: "Benali",
  phone: "+33 6 98 76 54 32",
  address_city: "Villeurbanne",
  notes: "Plomberie, dépannage sous 24 h",
};
const insurer = {
  category: "insurer",
  legal_name: "Mutuelle du Rhône",
  email: "sinistres@mutuelle-rhone.fr",
};
const ids = (res: { json(): { id: string }[] }) => res.json().map((c) => c.id);

describe.each(databaseKinds)("contacts API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const create = async (body: object) => {
    const res = await t.request("POST", "/api/contacts", { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("creates (201, Location, ETag), reads back, lists with filters and paging headers", async () => {
    const res = await t.request("POST", "/api/contacts", { body: plumber });
    expect(res.statusCode, res.body).toBe(201);
    const contact = res.json();
    expect(contact).toMatchObject({ ...plumber, legal_name: null, email: null, custom_fields: null });
    expect(res.headers.location).toBe(`/api/contacts/${contact.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    const got = await t.request("GET", `/api/contacts/${contact.id}`);
    expect(got.json()).toEqual(contact);
    expect(got.headers.etag).toBe('W/"0"');
    const company = await create(insurer);
    expect(ids(await t.request("GET", "/api/contacts?category=insurer"))).toEqual([company.id]);
    expect(ids(await t.request("GET", "/api/contacts?q=karim%20ben"))).toEqual([contact.id]);
    expect(ids(await t.request("GET", "/api/contacts?q=RHÔNE"))).toEqual([company.id]);
    expect(ids(await t.request("GET", "/api/contacts?email=SINISTRES@mutuelle-rhone.fr"))).toEqual([
      company.id,
    ]);
    expect(ids(await t.request("GET", "/api/contacts?q=%25"))).toEqual([]);
    const page = await t.request("GET", "/api/contacts?limit=1&page=2");
    expect(ids(page)).toEqual([company.id]);
    expect(page.headers["x-total-count"]).toBe("2");
    expect(page.headers.link).toContain('rel="prev"');
    expect((await t.request("GET", "/api/contacts?category=plumber")).statusCode).toBe(400);
  });

  it("validates (400 with details), writes nothing", async () => {
    const before = await eventCount(t);
    const cases: [object, string][] = [
      [{ ...plumber, category: "bank" }, "category"],
      [{ category: "notary", first_name: "Anne" }, "last_name"],
      [{ ...insurer, email: "nobody" }, "email"],
      [{ ...plumber, phone: "call me" }, "phone"],
      [{ ...plumber, notes: "x".repeat(2001) }, "notes"],
      [{ ...plumber, id: undefined, unknown: 1 }, "unknown"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", "/api/contacts", { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toBe("Invalid contact data");
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await eventCount(t)).toBe(before);
  });

  it("updates: omitted keeps, null removes, the name rule on the merged contact, If-Match", async () => {
    const contact = await create({ ...insurer, email: "u@example.fr", phone: "04 72 00 00 00" });
    const res = await t.request("PUT", `/api/contacts/${contact.id}`, {
      body: { phone: null, category: "syndic" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ phone: null, category: "syndic", legal_name: insurer.legal_name });
    expect(res.headers.etag).toBe('W/"1"');
    const stale = await t.request("PUT", `/api/contacts/${contact.id}`, {
      body: { notes: "x" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(stale.statusCode).toBe(412);
    const unnamed = await t.request("PUT", `/api/contacts/${contact.id}`, { body: { legal_name: null } });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json().details).toEqual([
      { field: "last_name", message: "A last name or a legal_name is required" },
    ]);
    expect(
      (await t.request("PUT", `/api/contacts/${contact.id}`, { body: { category: null } })).statusCode,
    ).toBe(400);
    expect((await t.request("PUT", `/api/contacts/${contact.id}`, { body: res.json() })).statusCode).toBe(
      200,
    );
    const history = await t.request("GET", `/api/contacts/${contact.id}/history`);
    expect(history.json().map((e: { type: string }) => e.type)).toEqual([
      "ContactCreated",
      "ContactUpdated",
      "ContactUpdated",
    ]);
    expect(history.json()[1].data).toEqual({
      contact_id: contact.id,
      changes: { category: "syndic", phone: null },
    });
  });

  it("replays a POST with the same Idempotency-Key; another body under it is a 409", async () => {
    const headers = { "idempotency-key": `contact-${crypto.randomUUID()}` };
    const first = await t.request("POST", "/api/contacts", { body: plumber, headers });
    const again = await t.request("POST", "/api/contacts", { body: plumber, headers });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await t.request("POST", "/api/contacts", { body: insurer, headers });
    expect(other.statusCode).toBe(409);
  });

  it("deletes (204), then 404 on every route; another tenant's contact is a 404", async () => {
    const contact = await create({ category: "agency", legal_name: "Agence du Parc" });
    const as = t.other;
    expect((await t.request("GET", `/api/contacts/${contact.id}`, { as })).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/contacts/${contact.id}`, { as })).statusCode).toBe(404);
    expect((await t.request("GET", `/api/contacts/${contact.id}/history`, { as })).statusCode).toBe(404);
    expect(ids(await t.request("GET", "/api/contacts", { as }))).toEqual([]);
    expect((await t.request("DELETE", `/api/contacts/${contact.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/contacts/${contact.id}`)).statusCode).toBe(404);
    expect((await t.request("PUT", `/api/contacts/${contact.id}`, { body: { notes: "x" } })).statusCode).toBe(
      404,
    );
    expect((await t.request("DELETE", `/api/contacts/${contact.id}`)).statusCode).toBe(404);
  });

  it("needs SettingsRead to read and SettingsWrite to create, change and delete", async () => {
    const contact = await create({ category: "notary", last_name: "Lefèvre" });
    const reader = await t.newTenant(undefined, ["SettingsRead"]);
    const properties = await t.newTenant(undefined, [
      "PropertiesRead",
      "PropertiesWrite",
      "PropertiesDelete",
    ]);
    const forbidden = async (method: "GET" | "POST", url: string, as: typeof reader, permission: string) => {
      const res = await t.request(method, url, { as, body: method === "POST" ? plumber : undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toBe(`This API key lacks the ${permission} permission`);
    };
    await forbidden("GET", "/api/contacts", properties, "SettingsRead");
    await forbidden("POST", "/api/contacts", reader, "SettingsWrite");
    expect((await t.request("GET", "/api/contacts", { as: reader })).statusCode).toBe(200);
    const del = await t.request("DELETE", `/api/contacts/${contact.id}`, { as: reader });
    expect(del.statusCode).toBe(403);
  });
});
