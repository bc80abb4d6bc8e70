import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

describe.each(databaseKinds)("types API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists the global catalog with fixed ids", async () => {
    const estates = await t.request("GET", "/api/types/estates");
    expect(estates.statusCode).toBe(200);
    const codes = estates.json().map((x: { code: string }) => x.code);
    for (const code of [
      "apartment",
      "house",
      "studio",
      "room",
      "parking",
      "cellar",
      "commercial_premises",
      "office",
      "land",
    ]) {
      expect(codes).toContain(code);
    }
    const apartment = estates.json().find((x: { code: string }) => x.code === "apartment");
    expect(apartment).toMatchObject({
      id: globalTypeIds.estate.apartment,
      kind: "estate",
      scope: "global",
      name: "Apartment",
    });
    const rooms = (await t.request("GET", "/api/types/rooms")).json().map((x: { code: string }) => x.code);
    for (const code of ["living_room", "bedroom", "kitchen", "bathroom", "toilet", "hallway", "attic"]) {
      expect(rooms).toContain(code);
    }
    const equipment = (await t.request("GET", "/api/types/equipment"))
      .json()
      .map((x: { code: string }) => x.code);
    for (const code of [
      "oven",
      "hob",
      "fridge",
      "dishwasher",
      "washing_machine",
      "water_heater",
      "furniture",
    ]) {
      expect(equipment).toContain(code);
    }
    const one = await t.request("GET", `/api/types/rooms/${globalTypeIds.room.kitchen}`);
    expect(one.json()).toMatchObject({ code: "kitchen", kind: "room" });
    expect((await t.request("GET", `/api/types/estates/${globalTypeIds.room.kitchen}`)).statusCode).toBe(404);
    expect((await t.request("GET", "/api/types/animals")).statusCode).toBe(404);
  });

  it("creates tenant types, visible to the tenant only, usable for estates and rooms", async () => {
    const res = await t.request("POST", "/api/types/rooms", { body: { name: "Cave à vin" } });
    expect(res.statusCode, res.body).toBe(201);
    const type = res.json();
    expect(type).toMatchObject({ kind: "room", code: "cave_a_vin", name: "Cave à vin", scope: "tenant" });
    expect(res.headers.location).toBe(`/api/types/rooms/${type.id}`);
    const mine = (await t.request("GET", "/api/types/rooms")).json();
    expect(mine.at(-1)).toMatchObject({ id: type.id, scope: "tenant" });
    expect((await t.request("GET", "/api/types/rooms?scope=tenant")).json()).toEqual([type]);
    const theirs = (await t.request("GET", "/api/types/rooms", { as: t.other })).json();
    expect(theirs.some((x: { id: string }) => x.id === type.id)).toBe(false);
    expect((await t.request("GET", `/api/types/rooms/${type.id}`, { as: t.other })).statusCode).toBe(404);

    const estateType = await t.request("POST", "/api/types/estates", {
      body: { name: "Houseboat", code: "houseboat" },
    });
    expect(estateType.statusCode).toBe(201);
    const place = (await t.request("POST", "/api/places", { body: { name: "Port" } })).json();
    const estate = await t.request("POST", `/api/places/${place.id}/estates`, {
      body: { name: "Péniche", estate_type_id: estateType.json().id, area: 60, fiscal_identifier: "P-1" },
    });
    expect(estate.statusCode).toBe(201);
    // The other tenant cannot use it.
    const otherPlace = (
      await t.request("POST", "/api/places", { body: { name: "Port" }, as: t.other })
    ).json();
    const refused = await t.request("POST", `/api/places/${otherPlace.id}/estates`, {
      as: t.other,
      body: { name: "Péniche", estate_type_id: estateType.json().id, area: 60, fiscal_identifier: "P-1" },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].field).toBe("estate_type_id");
    // The same code is free for another tenant.
    expect(
      (await t.request("POST", "/api/types/rooms", { body: { name: "Cave à vin" }, as: t.other })).statusCode,
    ).toBe(201);
  });

  it("refuses duplicates (409 on code) and bad bodies (400), writing nothing", async () => {
    expect((await t.request("POST", "/api/types/equipment", { body: { name: "Sauna" } })).statusCode).toBe(
      201,
    );
    const before = await eventCount(t);
    const again = await t.request("POST", "/api/types/equipment", { body: { name: "SAUNA" } });
    expect(again.statusCode).toBe(409);
    expect(again.json().details[0].field).toBe("code");
    const global = await t.request("POST", "/api/types/equipment", {
      body: { name: "My oven", code: "oven" },
    });
    expect(global.statusCode).toBe(409);
    for (const body of [
      {},
      { name: "" },
      { name: "x".repeat(256) },
      { name: "A", code: "Bad Code" },
      { name: "A", x: 1 },
    ]) {
      expect((await t.request("POST", "/api/types/estates", { body })).statusCode, JSON.stringify(body)).toBe(
        400,
      );
    }
    expect(
      (
        await t.request("POST", "/api/types/estates", {
          rawBody: "[1]",
          headers: { "content-type": "application/json" },
        })
      ).statusCode,
    ).toBe(400);
    expect(await eventCount(t)).toBe(before);
  });
});
