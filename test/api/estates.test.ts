import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { syncRentalState } from "../../src/projections/estates.ts";
import { DPE_SAMPLE } from "../support/energyDiagnosisSample.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const apartment = globalTypeIds.estate.apartment;
const unknownId = "00000000-0000-4000-8000-000000000000";
const minimal = { name: "Apt 3B", estate_type_id: apartment, area: 52.5, fiscal_identifier: "FR-69003-0042" };
const full = {
  ...minimal,
  number_of_room: 3,
  orientation: "South-West",
  building: "B",
  floor: 3,
  lot_number: "42",
  housing_tax: 0,
  property_tax: 950.5,
  acquisition_price: 210000,
  rent_amount: 850,
  construction_date: "1975-06-01",
  renovation_date: "2019-03-15T10:00:00Z",
  address: "12 rue des Lilas, 69003 Lyon",
  other_detail: "Cave n°12",
};
const fields = (res: { json(): any }) => res.json().details?.map((d: { field: string }) => d.field) ?? [];

describe.each(databaseKinds)("estates API on %s", (kind) => {
  let t: TestApp;
  let placeA: string;
  let placeB: string;
  let ownerA: string;
  let ownerB: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    placeA = (await t.request("POST", "/api/places", { body: { name: "A" } })).json().id;
    placeB = (await t.request("POST", "/api/places", { body: { name: "B" } })).json().id;
    const owner = (email: string) =>
      t.request("POST", "/api/owners", { body: { category: "company", legal_name: email, email } });
    ownerA = (await owner("a@sci.fr")).json().id;
    ownerB = (await owner("b@sci.fr")).json().id;
  });
  afterAll(async () => {
    await t?.close();
  });
  const create = async (body: object = minimal, place = placeA) => {
    const res = await t.request("POST", `/api/places/${place}/estates`, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it("creates an estate with every field and reads it nested and flat", async () => {
    const res = await t.request("POST", `/api/places/${placeA}/estates`, {
      body: { ...full, owner_id: ownerA },
    });
    expect(res.statusCode, res.body).toBe(201);
    const estate = res.json();
    expect(estate).toMatchObject({
      ...full,
      place_id: placeA,
      owner_id: ownerA,
      previous_owner_id: null,
      rental_status: "VACANT",
      rent_amount: 850,
      construction_date: "1975-06-01T00:00:00.000Z",
      renovation_date: "2019-03-15T10:00:00.000Z",
      current_dpe_id: null,
      current_dpe_energy_label: null,
    });
    expect(estate.created_at).toBe(estate.updated_at);
    expect(res.headers.location).toBe(`/api/places/${placeA}/estates/${estate.id}`);
    expect(res.headers.etag).toMatch(/^W\/"0-[A-Za-z0-9_-]{16}"$/);
    const nested = await t.request("GET", `/api/places/${placeA}/estates/${estate.id}`);
    expect(nested.statusCode).toBe(200);
    expect(nested.json()).toEqual(estate);
    expect((await t.request("GET", `/api/estates/${estate.id}`)).json()).toEqual(estate);
    // Ids are case-insensitive, as UUIDs are.
    const upper = `/api/places/${placeA.toUpperCase()}/estates/${estate.id.toUpperCase()}`;
    expect((await t.request("GET", upper)).statusCode).toBe(200);
    expect((await t.request("PUT", upper, { body: { place_id: placeA.toUpperCase() } })).statusCode).toBe(
      200,
    );
    const list = await t.request("GET", `/api/places/${placeA}/estates`);
    expect(list.json().map((e: { id: string }) => e.id)).toContain(estate.id);
    expect((await t.request("GET", `/api/places/${placeB}/estates`)).json()).toEqual([]);
    expect(
      (await t.request("GET", `/api/estates?owner_id=${ownerA}`)).json().map((e: { id: string }) => e.id),
    ).toEqual([estate.id]);
  });

  it("validates creation (400 with details) and writes nothing", async () => {
    const before = await eventCount(t);
    const cases: [object, string][] = [
      [{ ...minimal, name: undefined }, "name"],
      [{ ...minimal, name: "" }, "name"],
      [{ ...minimal, name: "x".repeat(256) }, "name"],
      [{ ...minimal, estate_type_id: undefined }, "estate_type_id"],
      [{ ...minimal, estate_type_id: "apartment" }, "estate_type_id"],
      [{ ...minimal, estate_type_id: unknownId }, "estate_type_id"],
      [{ ...minimal, estate_type_id: globalTypeIds.room.kitchen }, "estate_type_id"],
      [{ ...minimal, area: undefined }, "area"],
      [{ ...minimal, area: 0 }, "area"],
      [{ ...minimal, area: -3 }, "area"],
      [{ ...minimal, area: "52" }, "area"],
      [{ ...minimal, fiscal_identifier: undefined }, "fiscal_identifier"],
      [{ ...minimal, fiscal_identifier: "" }, "fiscal_identifier"],
      [{ ...minimal, fiscal_identifier: "x".repeat(51) }, "fiscal_identifier"],
      [{ ...minimal, owner_id: unknownId }, "owner_id"],
      [{ ...minimal, rental_status: "VACANT" }, "rental_status"],
      [{ ...minimal, previous_owner_id: ownerA }, "previous_owner_id"],
      [{ ...minimal, place_id: placeB }, "place_id"],
      [{ ...minimal, floor: 1.5 }, "floor"],
      [{ ...minimal, number_of_room: -1 }, "number_of_room"],
      [{ ...minimal, rent_amount: -1 }, "rent_amount"],
      [{ ...minimal, construction_date: "yesterday" }, "construction_date"],
      [{ ...minimal, construction_date: "2023-02-30" }, "construction_date"],
      [{ ...minimal, name: { a: 1 } }, "name"],
      [{ ...minimal, surface: 3 }, "surface"],
      [{ ...minimal, other_detail: "\u0000" }, "other_detail"],
      [{ ...minimal, area: 1e300 }, "area"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", `/api/places/${placeA}/estates`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe("ValidationError");
      expect(fields(res), JSON.stringify(body)).toContain(field);
    }
    for (const rawBody of ["[]", "null", '"x"', "{", "1e999", '{"name":'] as const) {
      const res = await t.request("POST", `/api/places/${placeA}/estates`, {
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, rawBody).toBe(400);
    }
    // Another tenant's owner does not exist for this tenant.
    const theirs = await t.request("POST", "/api/owners", {
      as: t.other,
      body: { category: "company", legal_name: "X", email: "x@x.fr" },
    });
    const foreignOwner = await t.request("POST", `/api/places/${placeA}/estates`, {
      body: { ...minimal, owner_id: theirs.json().id },
    });
    expect(fields(foreignOwner)).toEqual(["owner_id"]);
    const unknownPlace = await t.request("POST", `/api/places/${unknownId}/estates`, { body: minimal });
    expect(unknownPlace.statusCode).toBe(404);
    expect(unknownPlace.json().message).toBe(`Place ${unknownId} not found`);
    expect(await eventCount(t)).toBe(before + 1); // the other tenant's owner only
    expect(
      (await t.request("POST", `/api/places/${placeA}/estates`, { body: { ...minimal, place_id: placeA } }))
        .statusCode,
    ).toBe(201);
  });

  it("checks the place of the path on every nested route", async () => {
    const estate = await create();
    const message = `Estate ${estate.id} does not belong to place ${placeB}`;
    const routes: [string, object?][] = [["GET"], ["PUT", { name: "x" }], ["DELETE"]];
    for (const [method, body] of routes) {
      const res = await t.request(method, `/api/places/${placeB}/estates/${estate.id}`, { body });
      expect(res.statusCode, method).toBe(400);
      expect(res.json()).toEqual({
        error: "ValidationError",
        message,
        details: [{ field: "place_id", message }],
      });
      const unknownPlace = await t.request(method, `/api/places/${unknownId}/estates/${estate.id}`, { body });
      expect(unknownPlace.statusCode, method).toBe(404);
      expect(unknownPlace.json().message).toBe(`Place ${unknownId} not found`);
      const unknownEstate = await t.request(method, `/api/places/${placeA}/estates/${unknownId}`, { body });
      expect(unknownEstate.statusCode, method).toBe(404);
      expect(unknownEstate.json().message).toBe(`Estate ${unknownId} not found`);
    }
    expect((await t.request("GET", `/api/places/${unknownId}/estates`)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/places/${placeA}/estates/${estate.id}`)).json().name).toBe("Apt 3B");
  });

  it("updates: omitted keeps, null removes, null on required 400, read-only 400, updated_at moves", async () => {
    const estate = await create(full);
    await new Promise((r) => setTimeout(r, 5));
    const url = `/api/places/${placeA}/estates/${estate.id}`;
    const res = await t.request("PUT", url, { body: { building: null, area: 60, name: "Apt 3B bis" } });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({
      ...full,
      construction_date: estate.construction_date,
      renovation_date: estate.renovation_date,
      building: null,
      area: 60,
      name: "Apt 3B bis",
      place_id: placeA,
    });
    expect(updated.updated_at > estate.updated_at).toBe(true);
    expect(updated.created_at).toBe(estate.created_at);
    expect(res.headers.etag).toMatch(/^W\/"1-[A-Za-z0-9_-]{16}"$/);
    await new Promise((r) => setTimeout(r, 5));
    const empty = await t.request("PUT", url, { body: {} });
    expect(empty.json().updated_at > updated.updated_at).toBe(true);

    const before = await eventCount(t);
    for (const field of ["name", "estate_type_id", "area", "fiscal_identifier", "place_id"]) {
      const bad = await t.request("PUT", url, { body: { [field]: null } });
      expect(bad.statusCode, field).toBe(400);
      expect(fields(bad)).toEqual([field]);
    }
    for (const body of [
      { rental_status: "RENTED" },
      { previous_owner_id: null },
      { current_dpe_energy_label: "A" },
      { place_id: placeB },
      { estate_type_id: unknownId },
      { owner_id: unknownId },
      { area: 0 },
      { name: "" },
      { fiscal_identifier: "x".repeat(51) },
      { nope: 1 },
    ]) {
      const bad = await t.request("PUT", url, { body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(bad)).toContain(Object.keys(body)[0]);
    }
    for (const rawBody of ["[]", "null", "{"]) {
      const bad = await t.request("PUT", url, { rawBody, headers: { "content-type": "application/json" } });
      expect(bad.statusCode, rawBody).toBe(400);
    }
    expect(await eventCount(t)).toBe(before);
    // The same place in the body is accepted; a GET can be PUT back apart from the read-only fields.
    const {
      rental_status,
      previous_owner_id,
      current_dpe_id,
      current_dpe_energy_label,
      current_dpe_ges_label,
      current_dpe_diagnosis_date,
      current_dpe_valid_until,
      ...writable
    } = empty.json();
    const back = await t.request("PUT", url, { body: writable });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().updated_at >= empty.json().updated_at).toBe(true);
    const stale = await t.request("PUT", url, { body: { name: "x" }, headers: { "if-match": 'W/"0"' } });
    expect(stale.statusCode).toBe(412);
    const fresh = await t.request("PUT", url, {
      body: { name: "x" },
      headers: { "if-match": back.headers.etag as string },
    });
    expect(fresh.statusCode).toBe(200);
  });

  it("changes the ETag when the answer does, without an estate event (current DPE)", async () => {
    const estate = await create();
    const url = `/api/estates/${estate.id}`;
    const first = await t.request("GET", url);
    expect(first.headers.etag).toMatch(/^W\/"0-/);
    // Same answer, same ETag.
    expect((await t.request("GET", url)).headers.etag).toBe(first.headers.etag);
    const before = await eventCount(t);
    const dpe = await t.request("POST", "/api/energy-diagnoses", {
      body: { ...DPE_SAMPLE, estate_id: estate.id },
    });
    expect(dpe.statusCode, dpe.body).toBe(201);
    expect(await eventCount(t)).toBe(before + 1);
    const after = await t.request("GET", url);
    expect(after.json().current_dpe_energy_label).toBe("D");
    // The estate's stream did not move (still revision 0), its answer did: so did the ETag.
    expect(after.headers.etag).toMatch(/^W\/"0-/);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    expect((await t.request("GET", `/api/places/${placeA}/estates/${estate.id}`)).headers.etag).toBe(
      after.headers.etag,
    );
    // If-Match: the revision decides (the digest covers what no estate write changes).
    const put = (ifMatch: string) =>
      t.request("PUT", url, { body: { name: "Apt 3B" }, headers: { "if-match": ifMatch } });
    expect((await put(first.headers.etag as string)).statusCode).toBe(200);
    expect((await put(after.headers.etag as string)).statusCode).toBe(412);
    expect((await put('W/"0"')).statusCode).toBe(412);
    const current = (await t.request("GET", url)).headers.etag as string;
    expect(current).toMatch(/^W\/"1-/);
    expect((await put(current)).statusCode).toBe(200);
    expect((await put('W/"2"')).statusCode).toBe(200);
    expect((await t.request("DELETE", url, { headers: { "if-match": 'W/"2"' } })).statusCode).toBe(412);
    const last = (await t.request("GET", url)).headers.etag as string;
    expect((await t.request("DELETE", url, { headers: { "if-match": last } })).statusCode).toBe(204);
  });

  it("moves an estate only through PUT /api/estates/{id}", async () => {
    const estate = await create();
    const bad = await t.request("PUT", `/api/estates/${estate.id}`, { body: { place_id: unknownId } });
    expect(bad.statusCode).toBe(400);
    expect(fields(bad)).toEqual(["place_id"]);
    const theirPlace = (await t.request("POST", "/api/places", { as: t.other, body: { name: "T" } })).json()
      .id;
    expect(
      fields(await t.request("PUT", `/api/estates/${estate.id}`, { body: { place_id: theirPlace } })),
    ).toEqual(["place_id"]);
    const moved = await t.request("PUT", `/api/estates/${estate.id}`, {
      body: { place_id: placeB, floor: 2 },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ place_id: placeB, floor: 2 });
    expect((await t.request("GET", `/api/places/${placeB}/estates/${estate.id}`)).statusCode).toBe(200);
    expect((await t.request("GET", `/api/places/${placeA}/estates/${estate.id}`)).statusCode).toBe(400);
    expect(
      (await t.request("GET", `/api/places/${placeB}/estates`)).json().map((e: { id: string }) => e.id),
    ).toContain(estate.id);
    const history = (await t.request("GET", `/api/estates/${estate.id}/history`)).json();
    expect(history.map((e: { type: string }) => e.type)).toEqual([
      "EstateCreated",
      "EstateMoved",
      "EstateUpdated",
    ]);
  });

  it("transfers ownership: previous_owner_id and ownership history", async () => {
    const estate = await create({ ...minimal, owner_id: ownerA });
    const res = await t.request("PUT", `/api/estates/${estate.id}`, { body: { owner_id: ownerB } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ owner_id: ownerB, previous_owner_id: ownerA });
    const unknownOwner = await t.request("PUT", `/api/estates/${estate.id}`, {
      body: { owner_id: unknownId },
    });
    expect(fields(unknownOwner)).toEqual(["owner_id"]);
    const history = await t.request("GET", `/api/estates/${estate.id}/ownership-history`);
    expect(history.statusCode).toBe(200);
    expect(history.json()).toEqual([
      {
        estate_id: estate.id,
        previous_owner_id: ownerA,
        new_owner_id: ownerB,
        transferred_at: expect.stringMatching(/Z$/),
        revision: 1,
      },
    ]);
    // Same owner again: no transfer.
    await t.request("PUT", `/api/estates/${estate.id}`, { body: { owner_id: ownerB } });
    expect((await t.request("GET", `/api/estates/${estate.id}/ownership-history`)).json()).toHaveLength(1);
    expect((await t.request("GET", `/api/estates/${unknownId}/ownership-history`)).statusCode).toBe(404);
  });

  it("rent_amount is the landlord's while VACANT; a lease in force sets status and rent", async () => {
    const estate = await create();
    const set = await t.request("PUT", `/api/estates/${estate.id}`, { body: { rent_amount: 700 } });
    expect(set.json()).toMatchObject({ rent_amount: 700, rental_status: "VACANT" });
    // What the leases area will feed: an ACTIVE lease of the estate.
    await t.sql.transaction(async (tx) => {
      await tx.query(
        "INSERT INTO estate_lease_status (tenant_id, id, estate_id, lease_id, status, rent_amount) VALUES ($1, $2, $3, $2, 'ACTIVE', 910)",
        [t.tenant.id, randomUUID(), estate.id],
      );
      await syncRentalState(tx, [estate.id]);
    });
    const rented = (await t.request("GET", `/api/estates/${estate.id}`)).json();
    expect(rented).toMatchObject({ rental_status: "RENTED", rent_amount: 910 });
    const refused = await t.request("PUT", `/api/estates/${estate.id}`, { body: { rent_amount: 800 } });
    expect(refused.statusCode).toBe(409);
    expect(fields(refused)).toEqual(["rent_amount"]);
    const same = await t.request("PUT", `/api/estates/${estate.id}`, {
      body: { rent_amount: 910, name: "Loué" },
    });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ rental_status: "RENTED", rent_amount: 910, name: "Loué" });
    // A lease not terminated blocks deletion.
    const del = await t.request("DELETE", `/api/places/${placeA}/estates/${estate.id}`);
    expect(del.statusCode).toBe(409);
    await t.sql.query("UPDATE estate_lease_status SET status = 'TERMINATED' WHERE estate_id = $1", [
      estate.id,
    ]);
    expect((await t.request("DELETE", `/api/places/${placeA}/estates/${estate.id}`)).statusCode).toBe(204);
  });

  it("refuses deleting an estate with rooms (409), deletes it flat or nested (204)", async () => {
    const estate = await create();
    const room = await t.request("POST", `/api/places/${placeA}/estates/${estate.id}/rooms`, {
      body: { name: "Cuisine", room_type_id: globalTypeIds.room.kitchen },
    });
    expect(room.statusCode).toBe(201);
    const refused = await t.request("DELETE", `/api/places/${placeA}/estates/${estate.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe("Conflict");
    expect((await t.request("DELETE", `/api/estates/${estate.id}`)).statusCode).toBe(409);
    expect(
      (await t.request("DELETE", `/api/places/${placeA}/estates/${estate.id}/rooms/${room.json().id}`))
        .statusCode,
    ).toBe(204);
    expect((await t.request("DELETE", `/api/places/${placeA}/estates/${estate.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/places/${placeA}/estates/${estate.id}`)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/estates/${estate.id}`)).statusCode).toBe(404);
    expect((await t.request("PUT", `/api/estates/${estate.id}`, { body: { name: "x" } })).statusCode).toBe(
      404,
    );
    expect((await t.request("DELETE", `/api/estates/${estate.id}`)).statusCode).toBe(404);
    const flat = await create();
    expect((await t.request("DELETE", `/api/estates/${flat.id}`)).statusCode).toBe(204);
  });

  it("keeps the history from the event log", async () => {
    const estate = await create({ ...minimal, owner_id: ownerA });
    await t.request("PUT", `/api/estates/${estate.id}`, {
      body: { owner_id: ownerB, area: 70 },
      headers: { "x-request-id": "req-42" },
    });
    const res = await t.request("GET", `/api/estates/${estate.id}/history`);
    expect(res.statusCode).toBe(200);
    const history = res.json();
    expect(history.map((e: { type: string; revision: number }) => [e.type, e.revision])).toEqual([
      ["EstateCreated", 0],
      ["EstateOwnershipTransferred", 1],
      ["EstateUpdated", 2],
    ]);
    const page = await t.request("GET", `/api/estates/${estate.id}/history?limit=2&page=2`);
    expect(page.headers["x-total-count"]).toBe("3");
    expect(page.json().map((e: { revision: number }) => e.revision)).toEqual([2]);
    expect((await t.request("GET", `/api/estates/${estate.id}/history?limit=0`)).statusCode).toBe(400);
    expect(history[2]).toMatchObject({
      correlation_id: "req-42",
      data: { estate_id: estate.id, changes: { area: 70 } },
      actor_key_id: expect.any(String),
      occurred_at: expect.stringMatching(/Z$/),
    });
    expect((await t.request("GET", `/api/estates/${unknownId}/history`)).statusCode).toBe(404);
  });

  it("answers 404 to another tenant on every route", async () => {
    const estate = await create();
    const as = t.other;
    const nested = `/api/places/${placeA}/estates`;
    const checks: [string, string, object?][] = [
      ["GET", nested],
      ["POST", nested, minimal],
      ["GET", `${nested}/${estate.id}`],
      ["PUT", `${nested}/${estate.id}`, { name: "x" }],
      ["DELETE", `${nested}/${estate.id}`],
      ["GET", `/api/estates/${estate.id}`],
      ["PUT", `/api/estates/${estate.id}`, { name: "x" }],
      ["DELETE", `/api/estates/${estate.id}`],
      ["GET", `/api/estates/${estate.id}/history`],
      ["GET", `/api/estates/${estate.id}/ownership-history`],
    ];
    const before = await eventCount(t);
    for (const [method, url, body] of checks) {
      const res = await t.request(method, url, { as, body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    // Even under a place of their own, our estate is unknown to them.
    const theirPlace = (await t.request("POST", "/api/places", { as, body: { name: "T" } })).json().id;
    expect(
      (await t.request("GET", `/api/places/${theirPlace}/estates/${estate.id}`, { as })).statusCode,
    ).toBe(404);
    expect(
      (await t.request("PUT", `/api/places/${theirPlace}/estates/${estate.id}`, { as, body: {} })).statusCode,
    ).toBe(404);
    expect((await t.request("GET", "/api/estates", { as })).json()).toEqual([]);
    expect(await eventCount(t)).toBe(before + 1);
    expect((await t.request("GET", `/api/estates/${estate.id}`)).json().name).toBe("Apt 3B");
  });
});
