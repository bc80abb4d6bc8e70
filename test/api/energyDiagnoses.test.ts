import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parisDate } from "../../src/platform/formatDates.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import {
  energyDiagnosesProjection,
  estateCurrentDpeProjection,
} from "../../src/projections/energyDiagnoses.ts";
import { currentDpeJoin, readDpeOn } from "../../src/queries/energyDiagnoses.ts";
import { DPE_SAMPLE } from "../support/energyDiagnosisSample.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const APARTMENT = "5158d101-618e-5b5c-8858-2098913a1f8d";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const daysFromToday = (days: number) => {
  const d = new Date(`${parisDate()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/** A 30 m² dwelling's diagnosis made on the day the arrêté du 25 mars 2024 applies. */
const small30 = { diagnosis_date: "2024-07-01", valid_until: "2034-07-01", heated_area: 30 };

const dpe = (over: Record<string, unknown> = {}) => ({
  ...DPE_SAMPLE,
  notes: "Chaudière collective gaz",
  ...over,
});

describe.each(databaseKinds)("energy diagnoses API on %s", (kind) => {
  let t: TestApp;
  let placeId: string;
  let estateId: string;
  let otherPlaceId: string;
  let otherEstateId: string;
  let foreignPlaceId: string;
  let foreignEstateId: string;

  const createPlace = async (as?: TestTenant) => {
    const res = await t.request("POST", "/api/places", { body: { name: "Résidence du Parc" }, as });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const createEstate = async (place: string, as?: TestTenant) => {
    const res = await t.request("POST", `/api/places/${place}/estates`, {
      body: { name: "Lot 12", estate_type_id: APARTMENT, area: 64.2, fiscal_identifier: "FI-12" },
      as,
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const create = async (body: Record<string, unknown>, as?: TestTenant) => {
    const res = await t.request("POST", "/api/energy-diagnoses", { body, as });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, any>;
  };
  const count = async (as?: TestTenant) =>
    Number((await t.request("GET", "/api/energy-diagnoses?limit=1", { as })).headers["x-total-count"]);
  const currentDpe = async (estate: string) => {
    const [row] = await t.sql.query(
      "SELECT dpe_id, energy_label, ges_label, diagnosis_date, valid_until, source FROM estate_current_dpe WHERE estate_id = $1",
      [estate],
    );
    return row ?? null;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    placeId = await createPlace();
    estateId = await createEstate(placeId);
    otherPlaceId = await createPlace();
    otherEstateId = await createEstate(otherPlaceId);
    foreignPlaceId = await createPlace(t.other);
    foreignEstateId = await createEstate(foreignPlaceId, t.other);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("creates a building-level diagnosis: 201, Location, ETag, every field", async () => {
    const res = await t.request("POST", "/api/energy-diagnoses", { body: dpe({ place_id: placeId }) });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`/api/energy-diagnoses/${body.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    expect(body).toEqual({
      id: expect.any(String),
      place_id: placeId,
      estate_id: null,
      ...DPE_SAMPLE,
      notes: "Chaudière collective gaz",
      media_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const got = await t.request("GET", res.headers.location as string);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
    expect(got.headers.etag).toBe('W/"0"');
  });

  it("creates an estate-level diagnosis with only the required fields", async () => {
    const body = await create({
      estate_id: estateId,
      reference_number: "R-1",
      diagnosis_date: "2023-01-01",
      valid_until: "2033-01-01",
      energy_label: "G",
      ges_label: "G",
      construction_year: 1800,
    });
    expect(body).toMatchObject({
      estate_id: estateId,
      place_id: null,
      energy_consumption: null,
      final_energy_consumption: null,
      ges_emission: null,
      heated_area: null,
      notes: null,
      media_id: null,
    });
    await t.request("DELETE", `/api/energy-diagnoses/${body.id}`);
  });

  it("ignores read-only fields sent back in a body", async () => {
    const created = await create(dpe({ place_id: placeId }));
    const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, { body: created });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(created.id);
  });

  describe("400 on schema failures, nothing written", () => {
    const cases: [string, Record<string, unknown>][] = [
      ["reference_number", dpe({ place_id: "P", reference_number: "" })],
      ["reference_number", dpe({ place_id: "P", reference_number: "x".repeat(101) })],
      ["reference_number", dpe({ place_id: "P", reference_number: undefined })],
      ["diagnosis_date", dpe({ place_id: "P", diagnosis_date: "2024-02-30" })],
      ["diagnosis_date", dpe({ place_id: "P", diagnosis_date: "15/03/2024" })],
      ["valid_until", dpe({ place_id: "P", valid_until: null })],
      ["energy_label", dpe({ place_id: "P", energy_label: "H" })],
      ["ges_label", dpe({ place_id: "P", ges_label: 3 })],
      ["construction_year", dpe({ place_id: "P", construction_year: 1799 })],
      ["construction_year", dpe({ place_id: "P", construction_year: Number(parisDate().slice(0, 4)) + 1 })],
      ["construction_year", dpe({ place_id: "P", construction_year: 1990.5 })],
      ["energy_consumption", dpe({ place_id: "P", energy_consumption: -1 })],
      ["ges_emission", dpe({ place_id: "P", ges_emission: "12" })],
      ["heated_area", dpe({ place_id: "P", heated_area: 0 })],
      ["notes", dpe({ place_id: "P", notes: "x".repeat(1001) })],
      ["notes", dpe({ place_id: "P", notes: "NUL \u0000 inside" })],
      ["reference_number", dpe({ place_id: "P", reference_number: "lone \ud800" })],
      ["media_id", dpe({ place_id: "P", media_id: "not-a-uuid" })],
      ["place_id", dpe({ place_id: 42 })],
      ["colour", dpe({ place_id: "P", colour: "green" })],
    ];
    it.each(cases)("%s", async (field, raw) => {
      const body = JSON.parse(JSON.stringify(raw).replaceAll('"P"', JSON.stringify(placeId)));
      const before = await count();
      const res = await t.request("POST", "/api/energy-diagnoses", { body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: "ValidationError",
        details: [expect.objectContaining({ field })],
      });
      expect(await count()).toBe(before);
    });

    it("odd bodies: never a 500", async () => {
      for (const rawBody of [
        "{",
        "[]",
        "null",
        '"text"',
        "42",
        "true",
        '{"__proto__": {"x": 1}}',
        "{}".repeat(3),
      ]) {
        const res = await t.request("POST", "/api/energy-diagnoses", {
          rawBody,
          headers: { "content-type": "application/json" },
        });
        expect(res.statusCode, rawBody).toBe(400);
        expect(res.json().error).toBe("ValidationError");
      }
      const deep = JSON.parse(JSON.stringify(dpe({ place_id: placeId, notes: { a: [1, { b: null }] } })));
      expect((await t.request("POST", "/api/energy-diagnoses", { body: deep })).statusCode).toBe(400);
      const huge = dpe({ place_id: placeId, energy_consumption: 1e308, heated_area: 1e-300 });
      const res = await t.request("POST", "/api/energy-diagnoses", { body: huge });
      expect([201, 422]).toContain(res.statusCode);
      const text = await t.request("POST", "/api/energy-diagnoses", {
        rawBody: "reference_number=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(text.statusCode).toBe(415);
      const empty = await t.request("POST", "/api/energy-diagnoses", {
        headers: { "content-type": "application/json" },
      });
      expect(empty.statusCode).toBe(400);
      const badId = await t.request("GET", "/api/energy-diagnoses/not-a-uuid");
      expect(badId.statusCode).toBe(400);
      const badPut = await t.request("PUT", "/api/energy-diagnoses/123", { body: {} });
      expect(badPut.statusCode).toBe(400);
    });
  });

  describe("422 on business rules, nothing written", () => {
    const today = parisDate();
    const cases: [string, string, () => Record<string, unknown>][] = [
      ["both place and estate", "estate_id", () => dpe({ place_id: placeId, estate_id: estateId })],
      ["neither place nor estate", "place_id", () => dpe()],
      ["both null", "place_id", () => dpe({ place_id: null, estate_id: null })],
      ["unknown place", "place_id", () => dpe({ place_id: UNKNOWN })],
      ["another tenant's place", "place_id", () => dpe({ place_id: foreignPlaceId })],
      ["unknown estate", "estate_id", () => dpe({ estate_id: UNKNOWN })],
      ["another tenant's estate", "estate_id", () => dpe({ estate_id: foreignEstateId })],
      ["a place id given as estate", "estate_id", () => dpe({ estate_id: placeId })],
      ["unknown media", "media_id", () => dpe({ place_id: placeId, media_id: UNKNOWN })],
      [
        "valid_until = diagnosis_date",
        "valid_until",
        () => dpe({ place_id: placeId, valid_until: "2024-03-15" }),
      ],
      ["valid_until before", "valid_until", () => dpe({ place_id: placeId, valid_until: "2024-03-14" })],
      ["validity over 10 years", "valid_until", () => dpe({ place_id: placeId, valid_until: "2034-03-16" })],
      [
        "diagnosis_date in the future",
        "diagnosis_date",
        () => dpe({ place_id: placeId, diagnosis_date: daysFromToday(1), valid_until: daysFromToday(30) }),
      ],
      ["energy label better than value", "energy_label", () => dpe({ place_id: placeId, energy_label: "C" })],
      [
        "energy A above 70 (2021 method)",
        "energy_label",
        () => dpe({ place_id: placeId, energy_label: "A", energy_consumption: 70.5 }),
      ],
      [
        "energy A above 50 on the scale before 2021-07-01",
        "energy_label",
        () =>
          dpe({
            place_id: placeId,
            diagnosis_date: "2021-06-30",
            valid_until: "2031-06-30",
            energy_label: "A",
            energy_consumption: 51,
          }),
      ],
      [
        "energy E above 349 at 30 m² (arrêté du 25 mars 2024)",
        "energy_label",
        () => dpe({ place_id: placeId, ...small30, energy_label: "E", energy_consumption: 349.01 }),
      ],
      [
        "energy E at 349, 30 m², made the day before 2024-07-01",
        "energy_label",
        () =>
          dpe({
            place_id: placeId,
            ...small30,
            diagnosis_date: "2024-06-30",
            valid_until: "2034-06-30",
            energy_label: "E",
            energy_consumption: 349,
          }),
      ],
      ["GES label better than value", "ges_label", () => dpe({ place_id: placeId, ges_label: "B" })],
      ["GES B above 11", "ges_label", () => dpe({ place_id: placeId, ges_label: "B", ges_emission: 11.5 })],
    ];
    it.each(cases)("%s", async (_name, field, body) => {
      const before = await count();
      const res = await t.request("POST", "/api/energy-diagnoses", { body: body() });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({
        error: "UnprocessableEntity",
        message: expect.any(String),
        details: [expect.objectContaining({ field })],
      });
      expect(await count()).toBe(before);
      expect(today).toBe(parisDate());
    });

    it("accepts the edges: exactly 10 years, today, a label worse than its value, class boundaries", async () => {
      for (const body of [
        dpe({ place_id: placeId, diagnosis_date: "2020-02-29", valid_until: "2030-02-28" }),
        dpe({ place_id: placeId, diagnosis_date: today, valid_until: daysFromToday(365) }),
        dpe({
          place_id: placeId,
          energy_label: "G",
          ges_label: "G",
          energy_consumption: 10,
          ges_emission: 1,
        }),
        dpe({
          place_id: placeId,
          energy_label: "A",
          energy_consumption: 50,
          ges_label: "A",
          ges_emission: 5,
        }),
        dpe({
          place_id: placeId,
          energy_label: "F",
          energy_consumption: 420,
          ges_label: "F",
          ges_emission: 100,
        }),
        // The 2021 method's A and C, which the scale before it would refuse.
        dpe({
          place_id: placeId,
          energy_label: "A",
          energy_consumption: 65,
          ges_label: "A",
          ges_emission: 6,
        }),
        dpe({
          place_id: placeId,
          energy_label: "C",
          energy_consumption: 175,
          ges_label: "C",
          ges_emission: 30,
        }),
        // A 30 m² dwelling from 2024-07-01: E up to 349 kWh, GES E up to 72 (arrêté du 25 mars 2024).
        dpe({
          place_id: placeId,
          ...small30,
          energy_label: "E",
          energy_consumption: 349,
          ges_label: "E",
          ges_emission: 72,
        }),
        // The scale before 2021-07-01, on its last day.
        dpe({
          place_id: placeId,
          diagnosis_date: "2021-06-30",
          valid_until: "2031-06-30",
          energy_label: "A",
          energy_consumption: 50,
          ges_label: "A",
          ges_emission: 5,
        }),
      ]) {
        const created = await create(body);
        expect((await t.request("DELETE", `/api/energy-diagnoses/${created.id}`)).statusCode).toBe(204);
      }
    });
  });

  describe("update", () => {
    it("omitted keeps, null removes; updated_at moves; ETag follows the revision", async () => {
      const created = await create(dpe({ place_id: placeId }));
      const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
        body: { notes: null, heated_area: 70, reference_number: "DPE-NEW" },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe('W/"1"');
      expect(res.json()).toEqual({
        ...created,
        notes: null,
        heated_area: 70,
        reference_number: "DPE-NEW",
        updated_at: expect.any(String),
      });
      const got = await t.request("GET", `/api/energy-diagnoses/${created.id}`);
      expect(got.json()).toEqual(res.json());
    });

    it("null on a required field is a 400; schema errors are 400", async () => {
      const created = await create(dpe({ place_id: placeId }));
      for (const field of [
        "reference_number",
        "diagnosis_date",
        "valid_until",
        "energy_label",
        "ges_label",
        "construction_year",
      ]) {
        const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
          body: { [field]: null },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().details).toEqual([{ field, message: "is required and may not be null" }]);
      }
      const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, { body: { extra: 1 } });
      expect(res.statusCode).toBe(400);
      const got = await t.request("GET", `/api/energy-diagnoses/${created.id}`);
      expect(got.json()).toEqual(created);
    });

    it("re-checks the rules on the merged result (422), nothing written", async () => {
      const created = await create(dpe({ place_id: placeId }));
      const refused: [Record<string, unknown>, string][] = [
        [{ valid_until: "2034-03-16" }, "valid_until"],
        [{ diagnosis_date: "2034-03-15" }, "diagnosis_date"],
        [{ energy_label: "A" }, "energy_label"],
        [{ ges_emission: 40 }, "ges_label"],
        [{ estate_id: estateId }, "estate_id"],
        [{ place_id: null }, "place_id"],
        [{ place_id: UNKNOWN }, "place_id"],
        [{ media_id: UNKNOWN }, "media_id"],
      ];
      for (const [body, field] of refused) {
        const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, { body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const got = await t.request("GET", `/api/energy-diagnoses/${created.id}`);
      expect(got.json()).toEqual(created);
      expect(got.headers.etag).toBe('W/"0"');
      // removing the value lifts its label check
      const ok = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
        body: { energy_consumption: null, energy_label: "A" },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ energy_consumption: null, energy_label: "A" });
    });

    it("moves a diagnosis from the building to a unit", async () => {
      const created = await create(dpe({ place_id: placeId }));
      const res = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
        body: { place_id: null, estate_id: otherEstateId },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ place_id: null, estate_id: otherEstateId });
      await t.request("DELETE", `/api/energy-diagnoses/${created.id}`);
    });

    it("honours If-Match (412 on a stale ETag)", async () => {
      const created = await create(dpe({ place_id: placeId }));
      const stale = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
        body: { notes: "x" },
        headers: { "if-match": 'W/"5"' },
      });
      expect(stale.statusCode).toBe(412);
      const fresh = await t.request("PUT", `/api/energy-diagnoses/${created.id}`, {
        body: { notes: "x" },
        headers: { "if-match": 'W/"0"' },
      });
      expect(fresh.statusCode).toBe(200);
    });

    it("answers 404 for an unknown diagnosis", async () => {
      const res = await t.request("PUT", `/api/energy-diagnoses/${UNKNOWN}`, { body: { notes: "x" } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: "NotFound", message: `Energy diagnosis ${UNKNOWN} not found` });
    });
  });

  it("deletes: 204, then 404 on GET, PUT and DELETE", async () => {
    const created = await create(dpe({ place_id: placeId }));
    const res = await t.request("DELETE", `/api/energy-diagnoses/${created.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect((await t.request("GET", `/api/energy-diagnoses/${created.id}`)).statusCode).toBe(404);
    expect((await t.request("PUT", `/api/energy-diagnoses/${created.id}`, { body: {} })).statusCode).toBe(
      404,
    );
    expect((await t.request("DELETE", `/api/energy-diagnoses/${created.id}`)).statusCode).toBe(404);
  });

  describe("lists", () => {
    let tenant: TestTenant;
    let place: string;
    let unit: string;
    let unitElsewhere: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      // A fresh tenant, so totals are exact.
      tenant = await t.newTenant();
      place = await createPlace(tenant);
      unit = await createEstate(place, tenant);
      const elsewhere = await createPlace(tenant);
      unitElsewhere = await createEstate(elsewhere, tenant);
      const labels = ["A", "B", "C", "D", "E", "F", "G"];
      for (let i = 0; i < 7; i++) {
        ids[`place${i}`] = (
          await create(
            dpe({ place_id: place, energy_label: labels[i], ges_label: "G", energy_consumption: null }),
            tenant,
          )
        ).id;
      }
      ids.unit = (await create(dpe({ estate_id: unit, energy_label: "E" }), tenant)).id;
      ids.elsewhere = (await create(dpe({ estate_id: unitElsewhere, ges_label: "F" }), tenant)).id;
    });

    it("lists all with X-Total-Count and Link, in creation order", async () => {
      const res = await t.request("GET", "/api/energy-diagnoses", { as: tenant });
      expect(res.statusCode).toBe(200);
      expect(res.headers["x-total-count"]).toBe("9");
      expect(res.json().map((d: { id: string }) => d.id)).toEqual([
        ...[0, 1, 2, 3, 4, 5, 6].map((i) => ids[`place${i}`]),
        ids.unit,
        ids.elsewhere,
      ]);
    });

    it("pages", async () => {
      const res = await t.request("GET", "/api/energy-diagnoses?page=2&limit=4", { as: tenant });
      expect(res.headers["x-total-count"]).toBe("9");
      expect(res.json().map((d: { id: string }) => d.id)).toEqual(
        [4, 5, 6].map((i) => ids[`place${i}`]).concat(ids.unit),
      );
      const link = String(res.headers.link);
      expect(link).toContain('page=1&limit=4>; rel="first"');
      expect(link).toContain('page=1&limit=4>; rel="prev"');
      expect(link).toContain('page=3&limit=4>; rel="next"');
      expect(link).toContain('page=3&limit=4>; rel="last"');
      const past = await t.request("GET", "/api/energy-diagnoses?page=9&limit=4", { as: tenant });
      expect(past.json()).toEqual([]);
      for (const q of [
        "page=0",
        "limit=0",
        "limit=1001",
        "page=x",
        "energy_label=Z",
        "place_id=1",
        "foo=bar",
      ]) {
        expect((await t.request("GET", `/api/energy-diagnoses?${q}`, { as: tenant })).statusCode, q).toBe(
          400,
        );
      }
    });

    it("writes each item exactly as GET one does (the page's JSON is PostgreSQL's)", async () => {
      // Decimals, quotes, a backslash, accents and an emoji in notes, nulls: the list's JSON,
      // written by PostgreSQL, is byte for byte the items the response schema's serialiser writes.
      const odd = await create(
        dpe({
          place_id: place,
          energy_consumption: 0.1,
          ges_emission: 12.3456,
          heated_area: 19.99,
          notes: 'Chaudière "gaz" \\ 3/4 été 🔥 <b>',
        }),
        tenant,
      );
      try {
        const res = await t.request("GET", `/api/energy-diagnoses?place_id=${place}&limit=1000`, {
          as: tenant,
        });
        expect(res.statusCode).toBe(200);
        expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
        const ones = [];
        for (const item of res.json() as { id: string }[]) {
          const one = await t.request("GET", `/api/energy-diagnoses/${item.id}`, { as: tenant });
          ones.push(one.body);
        }
        expect(ones.length).toBe(8);
        expect(res.body).toBe(`[${ones.join(",")}]`);
        expect(JSON.parse(ones[7])).toMatchObject({
          id: odd.id,
          energy_consumption: 0.1,
          heated_area: 19.99,
        });
        const empty = await t.request("GET", "/api/energy-diagnoses?page=50", { as: tenant });
        expect(empty.body).toBe("[]");
        expect(empty.headers["x-total-count"]).toBe("10");
      } finally {
        expect(
          (await t.request("DELETE", `/api/energy-diagnoses/${odd.id}`, { as: tenant })).statusCode,
        ).toBe(204);
      }
    });

    it("pages by keyset cursor (after): the same rows as offset pages, X-Total-Count kept", async () => {
      const all = (await t.request("GET", "/api/energy-diagnoses?limit=1000", { as: tenant })).json();
      const walked: string[] = [];
      let path: string | null = "/api/energy-diagnoses?after=&limit=2";
      let pages = 0;
      while (path) {
        const res = await t.request("GET", path, { as: tenant });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers["x-total-count"]).toBe("9");
        const items = res.json() as { id: string }[];
        walked.push(...items.map((d) => d.id));
        const link = String(res.headers.link);
        expect(link).toContain('</api/energy-diagnoses?limit=2>; rel="first"');
        path = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? null;
        if (path) expect(items.length).toBe(2);
        pages++;
      }
      expect(pages).toBe(5);
      expect(walked).toEqual(all.map((d: { id: string }) => d.id));
      // With a filter, the cursor walks the filtered rows only.
      const g = await t.request("GET", "/api/energy-diagnoses?ges_label=G&after=&limit=4", { as: tenant });
      expect(g.headers["x-total-count"]).toBe("7");
      const next = /<([^>]+)>; rel="next"/.exec(String(g.headers.link))?.[1] ?? "";
      expect(next).toContain("ges_label=G");
      const rest = await t.request("GET", next, { as: tenant });
      expect(rest.json().map((d: { id: string }) => d.id)).toEqual([4, 5, 6].map((i) => ids[`place${i}`]));
      expect(String(rest.headers.link)).not.toContain('rel="next"');
      // Cursors from the farthest the format allows: no time out of PostgreSQL's range (a 500).
      for (const far of ["-9999999999999999", "9999999999999999"]) {
        const res = await t.request("GET", `/api/energy-diagnoses?after=${far}_${UNKNOWN}&limit=2`, {
          as: tenant,
        });
        expect(res.statusCode, far).toBe(200);
        expect(res.json().length).toBe(far.startsWith("-") ? 2 : 0);
      }
      for (const bad of [
        "x",
        "1_2",
        "12_not-a-uuid",
        `1_${UNKNOWN}x`,
        "%00",
        `99999999999999999_${UNKNOWN}`,
      ]) {
        const res = await t.request("GET", `/api/energy-diagnoses?after=${bad}`, { as: tenant });
        expect(res.statusCode, bad).toBe(400);
      }
      // A cursor past the end: an empty page, the total still right.
      const end = await t.request("GET", `/api/energy-diagnoses?after=9999999999999999_${UNKNOWN}`, {
        as: tenant,
      });
      expect(end.body).toBe("[]");
      expect(end.headers["x-total-count"]).toBe("9");
    });

    it("filters by label, place and estate", async () => {
      const idsOf = async (q: string) => {
        const res = await t.request("GET", `/api/energy-diagnoses?${q}`, { as: tenant });
        expect(res.statusCode).toBe(200);
        expect(res.headers["x-total-count"]).toBe(String(res.json().length));
        return res.json().map((d: { id: string }) => d.id);
      };
      expect(await idsOf("energy_label=E")).toEqual([ids.place4, ids.unit]);
      expect(await idsOf("ges_label=F")).toEqual([ids.elsewhere]);
      expect(await idsOf("energy_label=D&ges_label=G")).toEqual([ids.place3]);
      expect(await idsOf(`place_id=${place}`)).toHaveLength(7);
      expect(await idsOf(`estate_id=${unit}`)).toEqual([ids.unit]);
      expect(await idsOf(`estate_id=${unit}&energy_label=A`)).toEqual([]);
    });

    it("keeps label totals right through updates and deletes", async () => {
      const total = async (q: string) =>
        (await t.request("GET", `/api/energy-diagnoses?${q}`, { as: tenant })).headers["x-total-count"];
      const extra = await create(
        dpe({
          estate_id: unit,
          energy_label: "B",
          ges_label: "B",
          energy_consumption: null,
          ges_emission: null,
        }),
        tenant,
      );
      expect(await total("energy_label=B")).toBe("2");
      expect(await total("energy_label=B&ges_label=B")).toBe("1");
      await t.request("PUT", `/api/energy-diagnoses/${extra.id}`, {
        as: tenant,
        body: { energy_label: "C" },
      });
      expect(await total("energy_label=B")).toBe("1");
      expect(await total("energy_label=C")).toBe("2");
      expect(await total("ges_label=B")).toBe("1");
      await t.request("DELETE", `/api/energy-diagnoses/${extra.id}`, { as: tenant });
      expect(await total("energy_label=C")).toBe("1");
      expect(await total("ges_label=B")).toBe("0");
      expect(await total("")).toBe("9");
    });

    it("lists a place's building-level diagnoses, and its units' with include_estates=true", async () => {
      const res = await t.request("GET", `/api/places/${place}/energy-diagnoses`, { as: tenant });
      expect(res.statusCode).toBe(200);
      expect(res.headers["x-total-count"]).toBe("7");
      expect(res.json()).toHaveLength(7);
      const all = await t.request("GET", `/api/places/${place}/energy-diagnoses?include_estates=true`, {
        as: tenant,
      });
      expect(all.headers["x-total-count"]).toBe("8");
      expect(all.json().map((d: { id: string }) => d.id)).toContain(ids.unit);
      expect(all.json().map((d: { id: string }) => d.id)).not.toContain(ids.elsewhere);
      const paged = await t.request(
        "GET",
        `/api/places/${place}/energy-diagnoses?include_estates=true&limit=5&page=2`,
        {
          as: tenant,
        },
      );
      expect(paged.json()).toHaveLength(3);
      expect(
        (await t.request("GET", `/api/places/${place}/energy-diagnoses?include_estates=yes`, { as: tenant }))
          .statusCode,
      ).toBe(400);
      expect(
        (await t.request("GET", `/api/places/${UNKNOWN}/energy-diagnoses`, { as: tenant })).statusCode,
      ).toBe(404);
    });

    it("lists an estate's diagnoses, checking the estate is in the place", async () => {
      const res = await t.request("GET", `/api/places/${place}/estates/${unit}/energy-diagnoses`, {
        as: tenant,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().map((d: { id: string }) => d.id)).toEqual([ids.unit]);
      expect(res.headers["x-total-count"]).toBe("1");
      const wrong = await t.request("GET", `/api/places/${place}/estates/${unitElsewhere}/energy-diagnoses`, {
        as: tenant,
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toMatchObject({ error: "ValidationError", details: [{ field: "place_id" }] });
      const noPlace = await t.request("GET", `/api/places/${UNKNOWN}/estates/${unit}/energy-diagnoses`, {
        as: tenant,
      });
      expect(noPlace.statusCode).toBe(404);
      expect(noPlace.json().message).toBe(`Place ${UNKNOWN} not found`);
      const noEstate = await t.request("GET", `/api/places/${place}/estates/${UNKNOWN}/energy-diagnoses`, {
        as: tenant,
      });
      expect(noEstate.statusCode).toBe(404);
    });
  });

  it("another tenant's ids answer 404 on every route, and its lists stay apart", async () => {
    const mine = await create(dpe({ estate_id: estateId }));
    const routes: [string, string, unknown?][] = [
      ["GET", `/api/energy-diagnoses/${mine.id}`],
      ["PUT", `/api/energy-diagnoses/${mine.id}`, { notes: "stolen" }],
      ["DELETE", `/api/energy-diagnoses/${mine.id}`],
      ["GET", `/api/places/${placeId}/energy-diagnoses`],
      ["GET", `/api/places/${placeId}/energy-diagnoses?include_estates=true`],
      ["GET", `/api/places/${placeId}/estates/${estateId}/energy-diagnoses`],
    ];
    for (const [method, url, body] of routes) {
      const res = await t.request(method, url, { as: t.other, body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const list = await t.request("GET", `/api/energy-diagnoses?estate_id=${estateId}`, { as: t.other });
    expect(list.json()).toEqual([]);
    expect(list.headers["x-total-count"]).toBe("0");
    expect((await t.request("GET", `/api/energy-diagnoses/${mine.id}`)).json()).toEqual(mine);
    await t.request("DELETE", `/api/energy-diagnoses/${mine.id}`);
  });

  it("needs PropertiesRead / PropertiesWrite / PropertiesDelete", async () => {
    const reader = await t.newTenant(undefined, ["PropertiesRead"]);
    expect((await t.request("GET", "/api/energy-diagnoses", { as: reader })).statusCode).toBe(200);
    expect((await t.request("POST", "/api/energy-diagnoses", { as: reader, body: dpe() })).statusCode).toBe(
      403,
    );
    expect((await t.request("DELETE", `/api/energy-diagnoses/${UNKNOWN}`, { as: reader })).statusCode).toBe(
      403,
    );
    const lessees = await t.newTenant(undefined, ["LesseeRead", "LesseeWrite"]);
    expect((await t.request("GET", "/api/energy-diagnoses", { as: lessees })).statusCode).toBe(403);
    expect((await t.request("GET", "/api/energy-diagnoses", { as: null })).statusCode).toBe(401);
  });

  it("rebuilding its projections gives the same tables", async () => {
    const tables = [
      "energy_diagnoses",
      "energy_diagnosis_counts",
      "estate_current_dpe",
      "estate_dpe_diagnoses",
      "estate_dpe_estates",
    ];
    const snapshot = async () => {
      const out: Record<string, unknown> = {};
      for (const table of tables) out[table] = await t.sql.query(`SELECT * FROM ${table} ORDER BY 2`);
      return out;
    };
    const before = await snapshot();
    for (const projection of [energyDiagnosesProjection, estateCurrentDpeProjection]) {
      await rebuildProjection(t.sql, t.service.platform.store, projection);
    }
    expect(await snapshot()).toEqual(before);
  });

  describe("the estate's current DPE", () => {
    it("is the estate's own newest valid one, else its place's, following moves and deletes", async () => {
      const tenant = await t.newTenant();
      const place = await createPlace(tenant);
      const place2 = await createPlace(tenant);
      const unit = await createEstate(place, tenant);
      expect(await currentDpe(unit)).toBeNull();

      const building = await create(
        dpe({ place_id: place, diagnosis_date: "2022-05-01", valid_until: "2032-05-01" }),
        tenant,
      );
      expect(await currentDpe(unit)).toEqual({
        dpe_id: building.id,
        energy_label: "D",
        ges_label: "C",
        diagnosis_date: "2022-05-01",
        valid_until: "2032-05-01",
        source: "place",
      });
      // A newer building DPE replaces it; an expired one never counts.
      const newer = await create(
        dpe({ place_id: place, diagnosis_date: "2023-05-01", valid_until: "2033-05-01", energy_label: "E" }),
        tenant,
      );
      await create(dpe({ place_id: place, diagnosis_date: "2024-01-01", valid_until: "2024-06-01" }), tenant);
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: newer.id, energy_label: "E", source: "place" });

      // The unit's own valid DPE wins over any building one, even an older own one.
      const own = await create(
        dpe({
          estate_id: unit,
          diagnosis_date: "2021-07-01",
          valid_until: "2031-07-01",
          energy_label: "F",
          energy_consumption: 400,
        }),
        tenant,
      );
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: own.id, energy_label: "F", source: "estate" });
      // An expired own DPE does not.
      await create(dpe({ estate_id: unit, diagnosis_date: "2022-01-01", valid_until: "2023-01-01" }), tenant);
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: own.id });

      // Updates of the labels show through.
      await t.request("PUT", `/api/energy-diagnoses/${own.id}`, { as: tenant, body: { energy_label: "G" } });
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: own.id, energy_label: "G" });

      // Deleting the own one falls back to the building.
      await t.request("DELETE", `/api/energy-diagnoses/${own.id}`, { as: tenant });
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: newer.id, source: "place" });

      // Moving the estate takes the new place's DPE (or none).
      const moved = await t.request("PUT", `/api/estates/${unit}`, {
        as: tenant,
        body: { place_id: place2 },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(await currentDpe(unit)).toBeNull();
      const other = await create(
        dpe({ place_id: place2, energy_label: "B", energy_consumption: 80 }),
        tenant,
      );
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: other.id, energy_label: "B", source: "place" });

      // A building DPE moved to a unit changes both.
      await t.request("PUT", `/api/energy-diagnoses/${other.id}`, {
        as: tenant,
        body: { place_id: null, estate_id: unit },
      });
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: other.id, source: "estate" });

      // A new unit in a place with a DPE gets it at once.
      const unit2 = await createEstate(place, tenant);
      expect(await currentDpe(unit2)).toMatchObject({ dpe_id: newer.id, source: "place" });

      // The query-time join agrees with the table, and sees an expiry that no event announced.
      const viaJoin = async (estate: string) => {
        const [row] = await t.sql.query(
          `SELECT current_dpe.current_dpe_id, current_dpe.current_dpe_source FROM estates e ${currentDpeJoin("e")} WHERE e.id = $1`,
          [estate],
        );
        return row;
      };
      expect(await viaJoin(unit2)).toEqual({ current_dpe_id: newer.id, current_dpe_source: "place" });
      expect(await viaJoin(unit)).toEqual({ current_dpe_id: other.id, current_dpe_source: "estate" });
      await t.sql.query("UPDATE estate_dpe_diagnoses SET valid_until = '2001-01-01' WHERE id = $1", [
        newer.id,
      ]);
      expect(await viaJoin(unit2)).toEqual({ current_dpe_id: building.id, current_dpe_source: "place" });
    });

    it("uses the legal validity of pre-2021 certificates; the record keeps what the certificate says", async () => {
      const tenant = await t.newTenant();
      const place = await createPlace(tenant);
      const unit = await createEstate(place, tenant);
      // Made on the last day of the old method: its 10 years ended on 2024-12-31 by law.
      const old = await create(
        dpe({
          estate_id: unit,
          diagnosis_date: "2021-06-30",
          valid_until: "2031-06-30",
          energy_consumption: 200,
        }),
        tenant,
      );
      expect(old.valid_until).toBe("2031-06-30");
      expect(await currentDpe(unit)).toBeNull();
      // The DPE that covered the estate on a day: valid through 2024-12-31, not on 2025-01-01.
      expect(await readDpeOn(t.sql, tenant.id, unit, "2024-12-31")).toMatchObject({
        id: old.id,
        certificate_valid_until: "2031-06-30",
        valid_until: "2024-12-31",
        source: "estate",
      });
      expect(await readDpeOn(t.sql, tenant.id, unit, "2025-01-01")).toBeNull();
      expect(await readDpeOn(t.sql, t.other.id, unit, "2024-12-31")).toBeNull();
      // A building DPE of the 2021 method made on its first day counts.
      const modern = await create(
        dpe({ place_id: place, diagnosis_date: "2021-07-01", valid_until: "2031-07-01" }),
        tenant,
      );
      expect(await currentDpe(unit)).toMatchObject({
        dpe_id: modern.id,
        valid_until: "2031-07-01",
        source: "place",
      });
      // Moving the old one's date into the 2021 method makes its own validity count again.
      await t.request("PUT", `/api/energy-diagnoses/${old.id}`, {
        as: tenant,
        body: { diagnosis_date: "2021-07-01", valid_until: "2031-06-30" },
      });
      expect(await currentDpe(unit)).toMatchObject({
        dpe_id: old.id,
        valid_until: "2031-06-30",
        source: "estate",
      });
      // And back: legally ended again.
      const back = await t.request("PUT", `/api/energy-diagnoses/${old.id}`, {
        as: tenant,
        body: { diagnosis_date: "2021-06-30" },
      });
      expect(back.statusCode, back.body).toBe(200);
      expect(await currentDpe(unit)).toMatchObject({ dpe_id: modern.id });
      const estate = await t.request("GET", `/api/estates/${unit}`, { as: tenant });
      expect(estate.json()).toMatchObject({
        current_dpe_id: modern.id,
        current_dpe_valid_until: "2031-07-01",
      });
    });
  });
});
