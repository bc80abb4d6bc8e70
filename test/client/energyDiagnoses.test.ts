import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PmsClient, type Schemas, written } from "../../clients/typescript/index.ts";
import { DPE_SAMPLE } from "../support/energyDiagnosisSample.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import { typedClientOf } from "../support/typedClient.ts";

/** Energy diagnoses end to end through the typed client (clients/typescript), over HTTP. */

const APARTMENT = "5158d101-618e-5b5c-8858-2098913a1f8d";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const dpe = (over: Partial<Schemas["NewEnergyDiagnosisInput"]> = {}): Schemas["NewEnergyDiagnosisInput"] => ({
  ...DPE_SAMPLE,
  ...over,
});

describe.each(databaseKinds)("energy diagnoses through the typed client on %s", (kind) => {
  let t: TestApp;
  let pms: PmsClient;
  let other: PmsClient;
  let placeId: string;
  let estateId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    const clientAs = await typedClientOf(t);
    pms = clientAs();
    other = clientAs(t.other);
    const place = await pms.POST("/api/places", { body: { name: "Résidence du Parc" } });
    expect(place.response.status).toBe(201);
    placeId = written(place)!.id;
    const estate = await pms.POST("/api/places/{place_id}/estates", {
      params: { path: { place_id: placeId } },
      body: { name: "Lot 12", estate_type_id: APARTMENT, area: 64.2, fiscal_identifier: "FI-12" },
    });
    expect(estate.response.status).toBe(201);
    estateId = written(estate)!.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("records a unit's diagnosis, reads it, lists it with its page headers", async () => {
    const created = await pms.POST("/api/energy-diagnoses", { body: dpe({ estate_id: estateId }) });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const diagnosis = written(created)!;
    expect(diagnosis).toMatchObject({
      estate_id: estateId,
      place_id: null,
      energy_label: "D",
      ges_label: "C",
    });
    expect(created.response.headers.get("location")).toBe(`/api/energy-diagnoses/${diagnosis.id}`);
    expect(created.response.headers.get("etag")).toBe('W/"0"');

    const read = await pms.GET("/api/energy-diagnoses/{id}", { params: { path: { id: diagnosis.id } } });
    expect(read.data).toEqual(diagnosis);
    expect(read.response.headers.get("etag")).toBe('W/"0"');

    const list = await pms.GET("/api/energy-diagnoses", {
      params: { query: { estate_id: estateId, energy_label: "D", limit: 10 } },
    });
    expect(list.data?.map((d) => d.id)).toEqual([diagnosis.id]);
    expect(list.response.headers.get("x-total-count")).toBe("1");
    expect(list.response.headers.get("link")).toContain('rel="last"');

    const ofEstate = await pms.GET("/api/places/{place_id}/estates/{estate_id}/energy-diagnoses", {
      params: { path: { place_id: placeId, estate_id: estateId } },
    });
    expect(ofEstate.data?.map((d) => d.id)).toEqual([diagnosis.id]);

    // The estate shows it as its current DPE.
    const estate = await pms.GET("/api/estates/{id}", { params: { path: { id: estateId } } });
    expect(estate.data).toMatchObject({ current_dpe_id: diagnosis.id, current_dpe_energy_label: "D" });
  });

  it("updates with If-Match: the current ETag passes, a stale one is a 412 in the error shape", async () => {
    const created = await pms.POST("/api/energy-diagnoses", { body: dpe({ place_id: placeId }) });
    const id = written(created)!.id;
    const path = { params: { path: { id } } };
    const etag = created.response.headers.get("etag")!;
    const updated = await pms.PUT("/api/energy-diagnoses/{id}", {
      ...path,
      params: { ...path.params, header: { "If-Match": etag } },
      body: { notes: "Chaudière remplacée", energy_label: "E" },
    });
    expect(updated.response.status, JSON.stringify(updated.error)).toBe(200);
    expect(updated.data).toMatchObject({ id, notes: "Chaudière remplacée", energy_label: "E" });
    expect(updated.response.headers.get("etag")).toBe('W/"1"');

    const stale = await pms.PUT("/api/energy-diagnoses/{id}", {
      params: { path: { id }, header: { "If-Match": etag } },
      body: { notes: "late" },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toMatchObject({ error: "PreconditionFailed", message: expect.any(String) });

    const removed = await pms.DELETE("/api/energy-diagnoses/{id}", {
      params: { path: { id }, header: { "If-Match": 'W/"1"' } },
    });
    expect(removed.response.status).toBe(204);
    const gone = await pms.GET("/api/energy-diagnoses/{id}", path);
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: "NotFound", message: `Energy diagnosis ${id} not found` });
  });

  it("answers the business rules with 422 and bad input with 400, naming the field", async () => {
    const bothTargets = await pms.POST("/api/energy-diagnoses", {
      body: dpe({ place_id: placeId, estate_id: estateId }),
    });
    expect(bothTargets.response.status).toBe(422);
    expect(bothTargets.error).toMatchObject({
      error: "UnprocessableEntity",
      details: [expect.objectContaining({ field: "estate_id" })],
    });
    const tooLong = await pms.POST("/api/energy-diagnoses", {
      body: dpe({ place_id: placeId, valid_until: "2034-03-16" }),
    });
    expect(tooLong.response.status).toBe(422);
    expect(tooLong.error?.details?.map((d) => d.field)).toEqual(["valid_until"]);
    const badLabel = await pms.POST("/api/energy-diagnoses", {
      body: { ...dpe({ place_id: placeId }), energy_label: "H" as "A" },
    });
    expect(badLabel.response.status).toBe(400);
    expect(badLabel.error).toMatchObject({ error: "ValidationError" });
    expect(badLabel.error?.details?.map((d) => d.field)).toEqual(["energy_label"]);
  });

  it("keeps tenants apart: another tenant's diagnosis is a 404", async () => {
    const created = await pms.POST("/api/energy-diagnoses", { body: dpe({ place_id: placeId }) });
    const id = written(created)!.id;
    const theirs = await other.GET("/api/energy-diagnoses/{id}", { params: { path: { id } } });
    expect(theirs.response.status).toBe(404);
    const unknownPlace = await other.POST("/api/energy-diagnoses", { body: dpe({ place_id: UNKNOWN }) });
    expect(unknownPlace.response.status).toBe(422);
    const empty = await other.GET("/api/energy-diagnoses", {});
    expect(empty.data).toEqual([]);
    expect(empty.response.headers.get("x-total-count")).toBe("0");
  });
});
