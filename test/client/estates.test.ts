import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PmsClient, type Schemas, written } from "../../clients/typescript/index.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { DPE_SAMPLE } from "../support/energyDiagnosisSample.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { typedClientOf } from "../support/typedClient.ts";

/** Estates end to end through the typed client (clients/typescript), over HTTP. */

const apartment = globalTypeIds.estate.apartment;
const newEstate = (over: Partial<Schemas["NewEstateInput"]> = {}): Schemas["NewEstateInput"] => ({
  name: "Apt 3B",
  estate_type_id: apartment,
  area: 52.5,
  fiscal_identifier: "FR-69003-0042",
  ...over,
});

describe.each(databaseKinds)("estates through the typed client on %s", (kind) => {
  let t: TestApp;
  let pms: PmsClient;
  let other: PmsClient;
  let placeId: string;

  const create = async (over: Partial<Schemas["NewEstateInput"]> = {}) => {
    const res = await pms.POST("/api/places/{place_id}/estates", {
      params: { path: { place_id: placeId } },
      body: newEstate(over),
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    return { estate: written(res)!, response: res.response };
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    const clientAs = await typedClientOf(t);
    pms = clientAs();
    other = clientAs(t.other);
    const place = await pms.POST("/api/places", { body: { name: "Les Lilas" } });
    placeId = written(place)!.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("creates an estate, reads it nested and flat, lists it with filters and page headers", async () => {
    const { estate, response } = await create({ rent_amount: 850, floor: 3 });
    expect(estate).toMatchObject({ place_id: placeId, rental_status: "VACANT", rent_amount: 850, floor: 3 });
    expect(response.headers.get("location")).toBe(`/api/places/${placeId}/estates/${estate.id}`);
    const etag = response.headers.get("etag");
    expect(etag).toMatch(/^W\/"0-[A-Za-z0-9_-]{16}"$/);

    const flat = await pms.GET("/api/estates/{id}", { params: { path: { id: estate.id } } });
    expect(flat.data).toEqual(estate);
    expect(flat.response.headers.get("etag")).toBe(etag);
    const nested = await pms.GET("/api/places/{place_id}/estates/{estate_id}", {
      params: { path: { place_id: placeId, estate_id: estate.id } },
    });
    expect(nested.data).toEqual(estate);

    await create({ name: "Studio", fiscal_identifier: "FR-69003-0043" });
    const page = await pms.GET("/api/estates", {
      params: { query: { place_id: placeId, q: "apt 3", limit: 1 } },
    });
    expect(page.data?.map((e) => e.id)).toContain(estate.id);
    expect(Number(page.response.headers.get("x-total-count"))).toBeGreaterThanOrEqual(1);
    expect(page.response.headers.get("link")).toContain('rel="first"');
    const vacant = await pms.GET("/api/places/{place_id}/estates", {
      params: { path: { place_id: placeId }, query: { rental_status: "VACANT" } },
    });
    expect(vacant.data?.every((e) => e.rental_status === "VACANT")).toBe(true);
  });

  it("updates with If-Match, refuses read-only fields, and moves the ETag with the current DPE", async () => {
    const { estate, response } = await create();
    const path = { path: { id: estate.id } };
    const first = response.headers.get("etag")!;

    const readOnly = await pms.PUT("/api/estates/{id}", {
      params: path,
      body: { rental_status: "RENTED" } as Schemas["EstateChangesInput"],
    });
    expect(readOnly.response.status).toBe(400);
    expect(readOnly.error?.details?.map((d) => d.field)).toEqual(["rental_status"]);

    const updated = await pms.PUT("/api/estates/{id}", {
      params: { ...path, header: { "If-Match": first } },
      body: { name: "Apt 3B bis", area: 60 },
    });
    expect(updated.response.status, JSON.stringify(updated.error)).toBe(200);
    expect(updated.data).toMatchObject({ id: estate.id, name: "Apt 3B bis", area: 60 });
    const second = updated.response.headers.get("etag")!;
    expect(second).toMatch(/^W\/"1-/);
    const stale = await pms.PUT("/api/estates/{id}", {
      params: { ...path, header: { "If-Match": first } },
      body: { name: "late" },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toMatchObject({ error: "PreconditionFailed" });

    // A DPE of the estate changes its answer, not its stream: the ETag follows the answer.
    const dpe = await pms.POST("/api/energy-diagnoses", { body: { ...DPE_SAMPLE, estate_id: estate.id } });
    expect(dpe.response.status, JSON.stringify(dpe.error)).toBe(201);
    const after = await pms.GET("/api/estates/{id}", { params: path });
    expect(after.data?.current_dpe_energy_label).toBe("D");
    const third = after.response.headers.get("etag")!;
    expect(third).toMatch(/^W\/"1-/);
    expect(third).not.toBe(second);

    const history = await pms.GET("/api/estates/{id}/history", { params: path });
    expect(history.data?.map((e) => e.type)).toEqual(["EstateCreated", "EstateUpdated"]);

    const removed = await pms.DELETE("/api/estates/{id}", {
      params: { ...path, header: { "If-Match": third } },
    });
    expect(removed.response.status).toBe(204);
    const gone = await pms.GET("/api/estates/{id}", { params: path });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: "NotFound", message: `Estate ${estate.id} not found` });
  });

  it("keeps tenants apart and answers bad input in the error shape", async () => {
    const { estate } = await create();
    const theirs = await other.GET("/api/estates/{id}", { params: { path: { id: estate.id } } });
    expect(theirs.response.status).toBe(404);
    const bad = await pms.POST("/api/places/{place_id}/estates", {
      params: { path: { place_id: placeId } },
      body: newEstate({ area: 0, name: "" }),
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ error: "ValidationError", message: expect.any(String) });
    expect(bad.error?.details?.map((d) => d.field).sort()).toEqual(["area", "name"]);
  });
});
