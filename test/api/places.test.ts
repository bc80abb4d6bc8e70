import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("places API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = async (body: object = { name: "Résidence Les Tilleuls" }) => {
    const res = await t.request("POST", "/api/places", { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("creates a place (201, Location, ETag) and reads it back", async () => {
    const res = await t.request("POST", "/api/places", {
      body: {
        name: "  Résidence Les Tilleuls ",
        description: "Immeuble de 1930",
        address_street: "12 rue des Lilas",
        address_postal_code: "69003",
        address_city: "Lyon",
        address_country: "France",
      },
    });
    expect(res.statusCode).toBe(201);
    const place = res.json();
    expect(place).toMatchObject({
      name: "Résidence Les Tilleuls",
      address_city: "Lyon",
      description: "Immeuble de 1930",
    });
    expect(res.headers.location).toBe(`/api/places/${place.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    expect(place.created_at).toMatch(/Z$/);
    const got = await t.request("GET", `/api/places/${place.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(place);
    expect(Object.keys(place).sort()).toEqual(
      [
        "id",
        "name",
        "description",
        "address_street",
        "address_postal_code",
        "address_city",
        "address_country",
        "created_at",
        "updated_at",
      ].sort(),
    );
  });

  it("validates: name required 1-255, unknown fields, odd bodies; nothing written", async () => {
    const before = await eventCount(t);
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: 42 }, "name"],
      [{ name: "A", colour: "red" }, "colour"],
      [{ name: "A", address_city: 3 }, "address_city"],
      [{ name: "a\u0000b" }, "name"],
      [{ name: "A", description: "\ud800" }, "description"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", "/api/places", { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe("ValidationError");
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    for (const rawBody of ["[]", "null", '"x"', "{", "42"]) {
      const res = await t.request("POST", "/api/places", {
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, rawBody).toBe(400);
    }
    expect((await t.request("POST", "/api/places", { body: { name: "x".repeat(255) } })).statusCode).toBe(
      201,
    );
    expect(await eventCount(t)).toBe(before + 1);
  });

  it("updates: omitted keeps, null removes, null name refused, updated_at moves", async () => {
    const place = await create({ name: "A", address_city: "Paris", address_street: "1 rue X" });
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.request("PUT", `/api/places/${place.id}`, {
      body: { address_street: null, name: "B" },
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({ name: "B", address_city: "Paris", address_street: null });
    expect(updated.updated_at > place.updated_at).toBe(true);
    expect(res.headers.etag).toBe('W/"1"');
    const bad = await t.request("PUT", `/api/places/${place.id}`, { body: { name: null } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toEqual({
      field: "name",
      message: "name is required and cannot be removed",
    });
    // A GET can be PUT back (read-only id and timestamps are ignored).
    const back = await t.request("PUT", `/api/places/${place.id}`, { body: updated });
    expect(back.statusCode).toBe(200);
    const stale = await t.request("PUT", `/api/places/${place.id}`, {
      body: { name: "C" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(stale.statusCode).toBe(412);
  });

  it("lists with pagination headers", async () => {
    await create({ name: "Page 1" });
    const res = await t.request("GET", "/api/places?limit=1&page=1");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
    expect(Number(res.headers["x-total-count"])).toBeGreaterThan(1);
    expect(res.headers.link).toContain('rel="next"');
    expect((await t.request("GET", "/api/places?limit=0")).statusCode).toBe(400);
    expect((await t.request("GET", "/api/places?q=%00")).statusCode).toBe(400);
    expect(
      (await t.request("GET", "/api/places?q=Page%201")).json().map((p: { name: string }) => p.name),
    ).toEqual(["Page 1"]);
  });

  it("deletes (204), refuses while it holds estates (409), 404 afterwards", async () => {
    const place = await create({ name: "With estate" });
    const estate = await t.request("POST", `/api/places/${place.id}/estates`, {
      body: {
        name: "Lot 1",
        estate_type_id: globalTypeIds.estate.apartment,
        area: 30,
        fiscal_identifier: "F1",
      },
    });
    expect(estate.statusCode).toBe(201);
    const refused = await t.request("DELETE", `/api/places/${place.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe("Conflict");
    expect(
      (await t.request("DELETE", `/api/places/${place.id}/estates/${estate.json().id}`)).statusCode,
    ).toBe(204);
    expect((await t.request("DELETE", `/api/places/${place.id}`)).statusCode).toBe(204);
    const gone = await t.request("GET", `/api/places/${place.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: "NotFound", message: `Place ${place.id} not found` });
    expect((await t.request("PUT", `/api/places/${place.id}`, { body: { name: "x" } })).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/places/${place.id}`)).statusCode).toBe(404);
  });

  it("answers 404 on another tenant's place on every route, 400 on malformed ids", async () => {
    const place = await create({ name: "Mine" });
    const as = t.other;
    expect((await t.request("GET", `/api/places/${place.id}`, { as })).statusCode).toBe(404);
    expect((await t.request("PUT", `/api/places/${place.id}`, { as, body: { name: "x" } })).statusCode).toBe(
      404,
    );
    expect((await t.request("DELETE", `/api/places/${place.id}`, { as })).statusCode).toBe(404);
    expect((await t.request("GET", "/api/places", { as })).json()).toEqual([]);
    expect((await t.request("GET", `/api/places/${unknownId}`)).statusCode).toBe(404);
    expect((await t.request("GET", "/api/places/not-a-uuid")).statusCode).toBe(400);
    expect((await t.request("GET", `/api/places/${place.id}`)).json().name).toBe("Mine");
  });

  it("needs a key with the Properties permissions", async () => {
    expect((await t.request("GET", "/api/places", { as: null })).statusCode).toBe(401);
    const reader = await t.newTenant(undefined, ["PropertiesRead"]);
    expect((await t.request("GET", "/api/places", { as: reader })).statusCode).toBe(200);
    expect((await t.request("POST", "/api/places", { as: reader, body: { name: "x" } })).statusCode).toBe(
      403,
    );
  });
});
