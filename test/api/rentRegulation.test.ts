import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { rentRegulationProjections } from "../../src/projections/rentRegulation.ts";
import {
  irlRentRevision,
  readEstateRentRegulation,
  referenceRentFor,
} from "../../src/queries/rentRegulation.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const APARTMENT = "5158d101-618e-5b5c-8858-2098913a1f8d";
const SHIPPED: [string, number][] = [
  ["2022-Q1", 133.93],
  ["2022-Q2", 135.84],
  ["2022-Q3", 136.27],
  ["2022-Q4", 137.26],
  ["2023-Q1", 138.61],
  ["2023-Q2", 140.59],
  ["2023-Q3", 141.03],
  ["2023-Q4", 142.06],
  ["2024-Q1", 143.46],
  ["2024-Q2", 145.17],
  ["2024-Q3", 144.51],
  ["2024-Q4", 144.64],
  ["2025-Q1", 145.47],
  ["2025-Q2", 146.68],
  ["2025-Q3", 145.77],
];

/** Paris, 2 rooms, built 1946-1970, unfurnished and furnished (illustrative figures). */
const regulation = {
  high_demand_zone: true,
  reference_rents: [
    {
      rooms: 2,
      construction_period: "1946_1970",
      furnished: false,
      reference: 25.3,
      increased_reference: 30.36,
    },
    {
      rooms: 2,
      construction_period: "1946_1970",
      furnished: true,
      reference: 28.7,
      increased_reference: 34.44,
    },
  ],
  order_reference: "Arrêté préfectoral n° 75-2025-06-17-00003",
  effective_from: "2025-07-01",
};

describe.each(databaseKinds)("rent regulation API on %s", (kind) => {
  let t: TestApp;
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  const putIrl = (quarter: string, body: unknown, headers: Record<string, string> = admin) =>
    t.request("PUT", `/api/rent-regulation/irl/${quarter}`, { as: null, headers, body });
  const createPlace = async (as?: TestTenant) => {
    const res = await t.request("POST", "/api/places", { body: { name: "Immeuble Voltaire" }, as });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const createEstate = async (place: string, as?: TestTenant) => {
    const res = await t.request("POST", `/api/places/${place}/estates`, {
      body: { name: "Lot 3", estate_type_id: APARTMENT, area: 41.5, fiscal_identifier: "FI-3" },
      as,
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe("IRL", () => {
    it("ships 2022-Q1..2025-Q3 as INSEE published them, listed in quarter order", async () => {
      const res = await t.request("GET", "/api/rent-regulation/irl");
      expect(res.statusCode).toBe(200);
      expect(res.headers["x-total-count"]).toBe("15");
      expect(res.json().map((v: { quarter: string; value: number }) => [v.quarter, v.value])).toEqual(
        SHIPPED,
      );
      expect(res.json()[2]).toMatchObject({
        quarter: "2022-Q3",
        source: "shipped",
        note: expect.stringMatching(/2022-1158/),
      });
      const page = await t.request("GET", "/api/rent-regulation/irl?page=2&limit=10");
      expect(page.json()).toHaveLength(5);
      expect(page.headers.link).toContain('rel="prev"');
    });

    it("reads one quarter; an unknown one is a 404, a malformed one a 400", async () => {
      const one = await t.request("GET", "/api/rent-regulation/irl/2025-Q2");
      const source_reference = expect.stringContaining(
        "INSEE, Informations rapides n° 254 du 15 octobre 2025",
      );
      // Its own publication day is not confirmed: null, never a guessed date.
      expect(one.json()).toEqual({
        quarter: "2025-Q2",
        value: 146.68,
        published_on: null,
        source: "shipped",
        note: null,
        source_reference,
      });
      expect((await t.request("GET", "/api/rent-regulation/irl/2025-Q3")).json()).toEqual({
        quarter: "2025-Q3",
        value: 145.77,
        published_on: "2025-10-15",
        source: "shipped",
        note: null,
        source_reference,
      });
      expect((await t.request("GET", "/api/rent-regulation/irl/1999-Q1")).json()).toMatchObject({
        error: "NotFound",
      });
      for (const bad of ["2025-Q5", "2025Q2", "2025-q2", "25-Q1"]) {
        const res = await t.request("GET", `/api/rent-regulation/irl/${bad}`);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json()).toMatchObject({ error: "ValidationError", details: [{ field: "quarter" }] });
      }
    });

    it("adds a later quarter with the platform admin key, as an event; idempotent; corrections win", async () => {
      const res = await putIrl("2025-Q4", { value: 146.12, published_on: "2026-01-15" });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        quarter: "2025-Q4",
        value: 146.12,
        published_on: "2026-01-15",
        source: "published",
        note: null,
        source_reference: null,
      });
      expect(res.headers.etag).toBe('W/"0"');
      const listed = await t.request("GET", "/api/rent-regulation/irl");
      expect(listed.headers["x-total-count"]).toBe("16");
      expect(listed.json().at(-1)).toMatchObject({ quarter: "2025-Q4", value: 146.12 });
      // The same value again writes nothing.
      const again = await putIrl("2025-Q4", { value: 146.12, published_on: "2026-01-15" });
      expect(again.headers.etag).toBe('W/"0"');
      const events = await t.sql.query(
        "SELECT count(*)::int AS n FROM events WHERE type = 'IrlValuePublished'",
      );
      expect(events[0].n).toBe(1);
      // A correction of a shipped value overrides it.
      const fixed = await putIrl("2022-Q1", { value: 133.94 });
      expect(fixed.json()).toMatchObject({ quarter: "2022-Q1", value: 133.94, source: "published" });
      await putIrl("2022-Q1", { value: 133.93 });
    });

    it("refuses tenant keys and no key on the admin route, and bad bodies, writing nothing", async () => {
      const before = await t.sql.query("SELECT count(*)::int AS n FROM events");
      const tenantKey = await putIrl("2026-Q1", { value: 147 }, { authorization: `Bearer ${t.tenant.key}` });
      // As on every admin route: a tenant key is no admin key, 401.
      expect(tenantKey.statusCode).toBe(401);
      expect(tenantKey.json()).toMatchObject({ error: "Unauthorized" });
      expect((await putIrl("2026-Q1", { value: 147 }, {})).statusCode).toBe(401);
      for (const [quarter, body, field] of [
        ["2026-Q9", { value: 147 }, "quarter"],
        ["2026-Q1", { value: -1 }, "value"],
        ["2026-Q1", { value: 147.123 }, "value"],
        ["2026-Q1", { value: "147" }, "value"],
        ["2026-Q1", { value: 147, extra: 1 }, ""],
        ["2026-Q1", { value: 147, published_on: "2026-02-30" }, "published_on"],
      ] as const) {
        const res = await putIrl(quarter, body);
        expect(res.statusCode, `${quarter} ${JSON.stringify(body)}`).toBe(400);
        expect(res.json().error).toBe("ValidationError");
        if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      }
      expect(await t.sql.query("SELECT count(*)::int AS n FROM events")).toEqual(before);
    });

    it("revises a rent from the data: capped to the cent, unknown quarters are UNKNOWN with the reason", async () => {
      const ok = await irlRentRevision(t.sql, "2024-Q2", "2025-Q2", 850);
      expect(ok).toMatchObject({ status: "ok", revision: { capped_rent: 858.84, increase: 8.84 } });
      expect(await irlRentRevision(t.sql, "2024-Q2", "2031-Q2", 850)).toEqual({
        status: "unknown",
        reason:
          "No IRL value for 2031-Q2: INSEE has not published it yet, or its value is not confirmed here (never estimated)",
      });
      expect(await irlRentRevision(t.sql, "2024-Q5", "2025-Q2", 850)).toMatchObject({ status: "unknown" });
    });
  });

  describe("per place and estate", () => {
    let place: string;
    let estate: string;
    beforeAll(async () => {
      place = await createPlace();
      estate = await createEstate(place);
    });

    it("a place has no regulation until set: high_demand_zone null, no reference rents", async () => {
      const res = await t.request("GET", `/api/places/${place}/rent-regulation`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        place_id: place,
        high_demand_zone: null,
        reference_rents: [],
        order_reference: null,
        effective_from: null,
        updated_at: null,
      });
      const forEstate = await t.request("GET", `/api/places/${place}/estates/${estate}/rent-regulation`);
      expect(forEstate.json()).toMatchObject({ source: "none", high_demand_zone: null });
    });

    it("sets a place's zone flag and reference rents; its estates inherit them", async () => {
      const res = await t.request("PUT", `/api/places/${place}/rent-regulation`, { body: regulation });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers.etag).toBe('W/"0"');
      expect(res.json()).toMatchObject({ place_id: place, ...regulation, updated_at: expect.any(String) });
      expect((await t.request("GET", `/api/places/${place}/rent-regulation`)).json()).toEqual(res.json());
      const forEstate = await t.request("GET", `/api/places/${place}/estates/${estate}/rent-regulation`);
      expect(forEstate.json()).toMatchObject({
        estate_id: estate,
        place_id: place,
        source: "place",
        ...regulation,
      });
    });

    it("look-ups of several estates at once share a statement, each answered with its own", async () => {
      const other = await createEstate(place);
      const own = { ...regulation, high_demand_zone: false, reference_rents: [] };
      const res = await t.request("PUT", `/api/places/${place}/estates/${other}/rent-regulation`, {
        body: own,
      });
      expect(res.statusCode, res.body).toBe(200);
      // The first goes alone; the three asked while it is out go together (src/platform/groupReads.ts).
      const [first, overridden, unknown, upper] = await Promise.all([
        readEstateRentRegulation(t.sql, t.tenant.id, estate),
        readEstateRentRegulation(t.sql, t.tenant.id, other),
        readEstateRentRegulation(t.sql, t.tenant.id, "00000000-0000-4000-8000-000000000000"),
        readEstateRentRegulation(t.sql, t.tenant.id, estate.toUpperCase()),
      ]);
      expect(first).toMatchObject({ estate_id: estate, source: "place", high_demand_zone: true });
      expect(overridden).toMatchObject({ estate_id: other, source: "estate", high_demand_zone: false });
      expect(unknown).toBeNull();
      expect(upper).toMatchObject({ source: "place", high_demand_zone: true });
      expect(await readEstateRentRegulation(t.sql, t.tenant.id, "not-a-uuid")).toBeNull();
      expect(
        (await t.request("DELETE", `/api/places/${place}/estates/${other}/rent-regulation`)).statusCode,
      ).toBe(204);
    });

    it("an estate's own override wins, and removing it falls back to the place", async () => {
      const own = { ...regulation, high_demand_zone: false, reference_rents: [] };
      const res = await t.request("PUT", `/api/places/${place}/estates/${estate}/rent-regulation`, {
        body: own,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ source: "estate", high_demand_zone: false, reference_rents: [] });
      const found = await readEstateRentRegulation(t.sql, t.tenant.id, estate);
      expect(found).toMatchObject({ source: "estate", high_demand_zone: false });
      const removed = await t.request("DELETE", `/api/places/${place}/estates/${estate}/rent-regulation`);
      expect(removed.statusCode).toBe(204);
      const back = await readEstateRentRegulation(t.sql, t.tenant.id, estate);
      expect(back).toMatchObject({ source: "place", high_demand_zone: true });
      expect(
        referenceRentFor(back!, { rooms: 2, construction_period: "1946_1970", furnished: true }),
      ).toMatchObject({
        reference: 28.7,
        increased_reference: 34.44,
      });
      expect(
        referenceRentFor(back!, { rooms: 3, construction_period: "1946_1970", furnished: true }),
      ).toBeNull();
      expect(
        (await t.request("DELETE", `/api/places/${place}/estates/${estate}/rent-regulation`)).statusCode,
      ).toBe(404);
    });

    it("bad bodies are a 400 naming the field, nothing written", async () => {
      const before = await t.sql.query("SELECT count(*)::int AS n FROM events");
      const line = regulation.reference_rents[0];
      for (const [body, field] of [
        [{ ...regulation, high_demand_zone: "yes" }, "high_demand_zone"],
        [{ reference_rents: [] }, "high_demand_zone"],
        [{ ...regulation, reference_rents: [{ ...line, rooms: 0 }] }, "reference_rents[0].rooms"],
        [
          { ...regulation, reference_rents: [{ ...line, construction_period: "1800" }] },
          "reference_rents[0].construction_period",
        ],
        [
          { ...regulation, reference_rents: [{ ...line, increased_reference: 20 }] },
          "reference_rents[0].increased_reference",
        ],
        [{ ...regulation, reference_rents: [line, line] }, "reference_rents[1]"],
        [{ ...regulation, effective_from: "2025-13-01" }, "effective_from"],
        [{ ...regulation, order_reference: "a\u0000b" }, "order_reference"],
      ] as const) {
        const res = await t.request("PUT", `/api/places/${place}/rent-regulation`, { body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(
          res.json().details?.map((d: { field: string }) => d.field),
          res.body,
        ).toContain(field);
      }
      expect(await t.sql.query("SELECT count(*)::int AS n FROM events")).toEqual(before);
    });

    it("another tenant's place or estate is a 404; an estate of another place a 400", async () => {
      const foreignPlace = await createPlace(t.other);
      const foreignEstate = await createEstate(foreignPlace, t.other);
      for (const [method, url] of [
        ["GET", `/api/places/${foreignPlace}/rent-regulation`],
        ["PUT", `/api/places/${foreignPlace}/rent-regulation`],
        ["GET", `/api/places/${foreignPlace}/estates/${foreignEstate}/rent-regulation`],
        ["PUT", `/api/places/${place}/estates/${foreignEstate}/rent-regulation`],
      ] as const) {
        const res = await t.request(method, url, method === "PUT" ? { body: regulation } : {});
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
      expect(await readEstateRentRegulation(t.sql, t.tenant.id, foreignEstate)).toBeNull();
      const otherPlace = await createPlace();
      const res = await t.request("GET", `/api/places/${otherPlace}/estates/${estate}/rent-regulation`);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        { field: "place_id", message: expect.stringContaining("does not belong") },
      ]);
    });

    it("needs PropertiesRead / PropertiesWrite", async () => {
      const reader = await t.newTenant("reader", ["PropertiesRead"]);
      const res = await t.request("PUT", `/api/places/${place}/rent-regulation`, {
        body: regulation,
        as: reader,
      });
      expect(res.statusCode).toBe(403);
      const noRead = await t.newTenant("leases", ["LeasesRead"]);
      expect((await t.request("GET", "/api/rent-regulation/irl", { as: noRead })).statusCode).toBe(403);
    });

    it("documents its routes in the OpenAPI", async () => {
      const res = await t.request("GET", "/api/openapi.json", { as: null });
      expect(res.statusCode).toBe(200);
      const paths = Object.keys(res.json().paths);
      for (const path of [
        "/api/rent-regulation/irl",
        "/api/rent-regulation/irl/{quarter}",
        "/api/places/{place_id}/rent-regulation",
        "/api/places/{place_id}/estates/{estate_id}/rent-regulation",
      ]) {
        expect(paths).toContain(path);
      }
    });

    it("rebuilding its projections gives the same tables", async () => {
      const tables = ["irl_values", "place_rent_regulation", "estate_rent_regulation"];
      const snapshot = async () => {
        const out: Record<string, unknown> = {};
        for (const table of tables) out[table] = await t.sql.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
        return out;
      };
      const before = await snapshot();
      for (const projection of rentRegulationProjections) {
        await rebuildProjection(t.sql, t.service.platform.store, projection);
      }
      expect(await snapshot()).toEqual(before);
    });
  });
});
