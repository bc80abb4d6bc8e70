import { describe, expect, it } from "vitest";
import { placeDecider } from "../../src/commands/places/decider.ts";
import type { PlaceEvent } from "../../src/events/places.ts";
import { deciderSpec, refusal } from "../support/deciderSpec.ts";

const id = "0b6f9a8e-1111-4c3b-9d4e-000000000001";
const { given } = deciderSpec(placeDecider);
const created: PlaceEvent = {
  type: "PlaceCreated",
  data: {
    place_id: id,
    name: "Résidence Les Tilleuls",
    description: null,
    address_street: "12 rue des Lilas",
    address_postal_code: "69003",
    address_city: "Lyon",
    address_country: "France",
  },
};

describe("place decider", () => {
  it("creates a place with absent optional fields as null", () => {
    const events = given([]).when({ type: "CreatePlace", place_id: id, input: { name: "Tilleuls" } })();
    expect(events).toEqual([
      {
        type: "PlaceCreated",
        data: {
          place_id: id,
          name: "Tilleuls",
          description: null,
          address_street: null,
          address_postal_code: null,
          address_city: null,
          address_country: null,
        },
      },
    ]);
  });

  it("refuses to create twice", () => {
    expect(
      refusal(given([created]).when({ type: "CreatePlace", place_id: id, input: { name: "x" } })).status,
    ).toBe(409);
  });

  it("records only changed fields; omitted keeps, null removes", () => {
    const events = given([created]).when({
      type: "UpdatePlace",
      place_id: id,
      input: { name: "Résidence Les Tilleuls", address_city: "Villeurbanne", address_street: null },
    })();
    expect(events).toEqual([
      {
        type: "PlaceUpdated",
        data: { place_id: id, changes: { address_city: "Villeurbanne", address_street: null } },
      },
    ]);
  });

  it("records an update even without changes so updated_at moves", () => {
    expect(given([created]).when({ type: "UpdatePlace", place_id: id, input: {} })()).toEqual([
      { type: "PlaceUpdated", data: { place_id: id, changes: {} } },
    ]);
  });

  it("answers 404 for an unknown or deleted place", () => {
    expect(refusal(given([]).when({ type: "UpdatePlace", place_id: id, input: {} })).status).toBe(404);
    const deleted: PlaceEvent = { type: "PlaceDeleted", data: { place_id: id } };
    const error = refusal(
      given([created, deleted]).when({ type: "DeletePlace", place_id: id, estate_count: 0 }),
    );
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Place ${id} not found`);
  });

  it("refuses to delete a place holding estates (409) and deletes an empty one", () => {
    expect(
      refusal(given([created]).when({ type: "DeletePlace", place_id: id, estate_count: 2 })).status,
    ).toBe(409);
    expect(given([created]).when({ type: "DeletePlace", place_id: id, estate_count: 0 })()).toEqual([
      { type: "PlaceDeleted", data: { place_id: id } },
    ]);
  });
});
