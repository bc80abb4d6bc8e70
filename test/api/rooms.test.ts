import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { roomsProjection } from "../../src/projections/rooms.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";
const kitchen = globalTypeIds.room.kitchen;
const bedroom = globalTypeIds.room.bedroom;
const fields = (res: { json(): any }) => res.json().details?.map((d: { field: string }) => d.field) ?? [];

describe.each(databaseKinds)("rooms API on %s", (kind) => {
  let t: TestApp;
  let placeA: string;
  let placeB: string;
  let estate: string;
  let otherEstate: string;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    placeA = (await t.request("POST", "/api/places", { body: { name: "A" } })).json().id;
    placeB = (await t.request("POST", "/api/places", { body: { name: "B" } })).json().id;
    const newEstate = async () =>
      (
        await t.request("POST", `/api/places/${placeA}/estates`, {
          body: {
            name: "E",
            estate_type_id: globalTypeIds.estate.apartment,
            area: 40,
            fiscal_identifier: "F",
          },
        })
      ).json().id;
    estate = await newEstate();
    otherEstate = await newEstate();
    base = `/api/places/${placeA}/estates/${estate}/rooms`;
  });
  afterAll(async () => {
    await t?.close();
  });
  const create = async (body: object = { name: "Cuisine", room_type_id: kitchen }) => {
    const res = await t.request("POST", base, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("creates, reads and lists rooms", async () => {
    const res = await t.request("POST", base, {
      body: { name: "Chambre 1", room_type_id: bedroom, area: 11.5, floor: 1, description: "Parquet" },
    });
    expect(res.statusCode, res.body).toBe(201);
    const room = res.json();
    expect(room).toMatchObject({
      estate_id: estate,
      name: "Chambre 1",
      room_type_id: bedroom,
      area: 11.5,
      floor: 1,
      description: "Parquet",
    });
    expect(res.headers.location).toBe(`${base}/${room.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    expect((await t.request("GET", `${base}/${room.id}`)).json()).toEqual(room);
    const list = await t.request("GET", base);
    expect(list.json().map((r: { id: string }) => r.id)).toContain(room.id);
    expect(list.headers["x-total-count"]).toBeDefined();
    expect((await t.request("GET", `/api/places/${placeA}/estates/${otherEstate}/rooms`)).json()).toEqual([]);
  });

  it("lists (the kit's list path): items byte for byte as GET one, offset and keyset pages agree", async () => {
    // Its own estate, so the list holds only these rooms.
    const own = (
      await t.request("POST", `/api/places/${placeA}/estates`, {
        body: { name: "L", estate_type_id: globalTypeIds.estate.apartment, area: 40, fiscal_identifier: "L" },
      })
    ).json().id;
    const path = `/api/places/${placeA}/estates/${own}/rooms`;
    const made: string[] = [];
    for (const [i, area] of [0.1, 19.99, null, 1234.5678, 7].entries()) {
      const body = {
        name: `Pièce "${i}" \\ é 🔥`,
        room_type_id: i % 2 ? kitchen : bedroom,
        area,
        floor: i - 1,
      };
      const res = await t.request("POST", path, { body });
      expect(res.statusCode, res.body).toBe(201);
      made.push(res.json().id);
    }
    const list = await t.request("GET", path);
    expect(list.headers["x-total-count"]).toBe("5");
    const ones = [];
    for (const id of made) ones.push((await t.request("GET", `${path}/${id}`)).body);
    expect(list.body).toBe(`[${ones.join(",")}]`);
    // Offset pages, one from each end (the second half is read backward), and keyset pages.
    const ids = async (q: string) =>
      (await t.request("GET", `${path}?${q}`)).json().map((r: { id: string }) => r.id);
    expect(await ids("page=2&limit=2")).toEqual(made.slice(2, 4));
    expect(await ids("page=3&limit=2")).toEqual(made.slice(4));
    const walked: string[] = [];
    let next: string | null = `${path}?after=&limit=2`;
    while (next) {
      const res = await t.request("GET", next);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers["x-total-count"]).toBe("5");
      walked.push(...res.json().map((r: { id: string }) => r.id));
      next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link))?.[1] ?? null;
    }
    expect(walked).toEqual(made);
    expect((await t.request("GET", `${path}?after=nope`)).statusCode).toBe(400);
    // The total of an unfiltered list is the maintained count (rooms_counts): it follows deletes,
    // equals the rows per estate, and a rebuild gives the same counts.
    expect((await t.request("DELETE", `${path}/${made[1]}`)).statusCode).toBe(204);
    const after = await t.request("GET", path);
    expect(after.headers["x-total-count"]).toBe("4");
    expect(after.json().length).toBe(4);
    const counts = () =>
      t.sql.query(
        `SELECT c.parent_id, c.n::int AS n, (SELECT count(*)::int FROM rooms r WHERE r.estate_id = c.parent_id) AS rows
         FROM rooms_counts c ORDER BY c.parent_id`,
      );
    const before = await counts();
    expect(before.find((c) => c.parent_id === own)?.n).toBe(4);
    for (const c of before) expect(c.n).toBe(c.rows);
    await rebuildProjection(t.sql, t.service.platform.store, roomsProjection);
    expect(await counts()).toEqual(before);
  });

  it("validates (400) and writes nothing on bad input", async () => {
    const before = await eventCount(t);
    const cases: [object, string][] = [
      [{ room_type_id: kitchen }, "name"],
      [{ name: "", room_type_id: kitchen }, "name"],
      [{ name: "x".repeat(256), room_type_id: kitchen }, "name"],
      [{ name: "A" }, "room_type_id"],
      [{ name: "A", room_type_id: "kitchen" }, "room_type_id"],
      [{ name: "A", room_type_id: unknownId }, "room_type_id"],
      [{ name: "A", room_type_id: globalTypeIds.estate.apartment }, "room_type_id"],
      [{ name: "A", room_type_id: kitchen, area: 0 }, "area"],
      [{ name: "A", room_type_id: kitchen, area: -2 }, "area"],
      [{ name: "A", room_type_id: kitchen, floor: 1.5 }, "floor"],
      [{ name: "A", room_type_id: kitchen, estate_id: otherEstate }, "estate_id"],
      [{ name: "A", room_type_id: kitchen, colour: "blue" }, "colour"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", base, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(res), JSON.stringify(body)).toContain(field);
    }
    for (const rawBody of ["[]", "null", "{", "12"]) {
      const res = await t.request("POST", base, { rawBody, headers: { "content-type": "application/json" } });
      expect(res.statusCode, rawBody).toBe(400);
    }
    expect(await eventCount(t)).toBe(before);
  });

  it("updates: omitted keeps, null removes, required fields stay", async () => {
    const room = await create({ name: "Cuisine", room_type_id: kitchen, area: 9, floor: 0 });
    const url = `${base}/${room.id}`;
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.request("PUT", url, { body: { area: null, name: "Cuisine ouverte" } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      area: null,
      floor: 0,
      name: "Cuisine ouverte",
      room_type_id: kitchen,
    });
    expect(res.json().updated_at > room.updated_at).toBe(true);
    const before = await eventCount(t);
    for (const body of [
      { name: null },
      { room_type_id: null },
      { room_type_id: unknownId },
      { estate_id: otherEstate },
      { area: 0 },
    ]) {
      const bad = await t.request("PUT", url, { body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(bad)).toContain(Object.keys(body)[0]);
    }
    expect(await eventCount(t)).toBe(before);
    const back = await t.request("PUT", url, { body: res.json() });
    expect(back.statusCode).toBe(200);
    const other = await t.request("PUT", url, { body: { room_type_id: bedroom } });
    expect(other.json().room_type_id).toBe(bedroom);
  });

  it("checks place, estate and room of the path on every route", async () => {
    const room = await create();
    for (const [method, body] of [["GET"], ["PUT", { name: "x" }], ["DELETE"]] as [string, object?][]) {
      const wrongPlace = await t.request(method, `/api/places/${placeB}/estates/${estate}/rooms/${room.id}`, {
        body,
      });
      expect(wrongPlace.statusCode, method).toBe(400);
      expect(wrongPlace.json().message).toBe(`Estate ${estate} does not belong to place ${placeB}`);
      const wrongEstate = await t.request(
        method,
        `/api/places/${placeA}/estates/${otherEstate}/rooms/${room.id}`,
        {
          body,
        },
      );
      expect(wrongEstate.statusCode, method).toBe(400);
      expect(fields(wrongEstate)).toEqual(["estate_id"]);
      expect(
        (await t.request(method, `/api/places/${unknownId}/estates/${estate}/rooms/${room.id}`, { body }))
          .statusCode,
      ).toBe(404);
      expect(
        (await t.request(method, `/api/places/${placeA}/estates/${unknownId}/rooms/${room.id}`, { body }))
          .statusCode,
      ).toBe(404);
      const unknownRoom = await t.request(method, `${base}/${unknownId}`, { body });
      expect(unknownRoom.statusCode, method).toBe(404);
      expect(unknownRoom.json().message).toBe(`Room ${unknownId} not found`);
    }
    expect(
      (
        await t.request("POST", `/api/places/${placeB}/estates/${estate}/rooms`, {
          body: { name: "x", room_type_id: kitchen },
        })
      ).statusCode,
    ).toBe(400);
    expect((await t.request("GET", `/api/places/${unknownId}/estates/${estate}/rooms`)).statusCode).toBe(404);
    expect((await t.request("GET", `${base}/not-a-uuid`)).statusCode).toBe(400);
  });

  it("deletes (204), then 404", async () => {
    const room = await create();
    expect((await t.request("DELETE", `${base}/${room.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `${base}/${room.id}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `${base}/${room.id}`)).statusCode).toBe(404);
    expect((await t.request("PUT", `${base}/${room.id}`, { body: { name: "x" } })).statusCode).toBe(404);
  });

  it("rooms follow their estate when it moves", async () => {
    const room = await create();
    expect(
      (await t.request("PUT", `/api/estates/${estate}`, { body: { place_id: placeB } })).statusCode,
    ).toBe(200);
    expect(
      (await t.request("GET", `/api/places/${placeB}/estates/${estate}/rooms/${room.id}`)).statusCode,
    ).toBe(200);
    expect(
      (await t.request("GET", `/api/places/${placeA}/estates/${estate}/rooms/${room.id}`)).statusCode,
    ).toBe(400);
    expect(
      (await t.request("PUT", `/api/estates/${estate}`, { body: { place_id: placeA } })).statusCode,
    ).toBe(200);
  });

  it("answers 404 to another tenant on every route", async () => {
    const room = await create();
    const as = t.other;
    const before = await eventCount(t);
    const checks: [string, string, object?][] = [
      ["GET", base],
      ["POST", base, { name: "x", room_type_id: kitchen }],
      ["GET", `${base}/${room.id}`],
      ["PUT", `${base}/${room.id}`, { name: "x" }],
      ["DELETE", `${base}/${room.id}`],
    ];
    for (const [method, url, body] of checks) {
      expect((await t.request(method, url, { as, body })).statusCode, `${method} ${url}`).toBe(404);
    }
    expect(await eventCount(t)).toBe(before);
    expect((await t.request("GET", `${base}/${room.id}`)).json().name).toBe("Cuisine");
  });
});
