import { describe, expect, it } from "vitest";
import { type EstateCommand, estateDecider } from "../../src/commands/estates/decider.ts";
import type { EstateEvent } from "../../src/events/estates.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { fold } from "../../src/platform/decider.ts";
import type { ApiError } from "../../src/platform/errors.ts";
import {
  type CreateEstateInput,
  createEstateSchema,
  updateEstateSchema,
} from "../../src/queries/estatesSchemas.ts";
import { deciderSpec, refusal } from "../support/deciderSpec.ts";

const estateId = "0b6f9a8e-4444-4c3b-9d4e-000000000001";
const placeA = "0b6f9a8e-4444-4c3b-9d4e-00000000000a";
const placeB = "0b6f9a8e-4444-4c3b-9d4e-00000000000b";
const owner1 = "0b6f9a8e-4444-4c3b-9d4e-000000000011";
const owner2 = "0b6f9a8e-4444-4c3b-9d4e-000000000012";
const apartment = globalTypeIds.estate.apartment;
const now = "2025-03-01T10:00:00.000Z";

const { given } = deciderSpec(estateDecider);
const fields = (e: ApiError) => e.details?.map((d) => d.field).sort();

const created: EstateEvent = {
  type: "EstateCreated",
  data: {
    estate_id: estateId,
    place_id: placeA,
    owner_id: owner1,
    name: "Apt 3B",
    estate_type_id: apartment,
    area: 52.5,
    number_of_room: 3,
    orientation: "South",
    building: "B",
    floor: 3,
    lot_number: "42",
    fiscal_identifier: "FR-69003-0042",
    housing_tax: null,
    property_tax: 950,
    acquisition_price: null,
    rent_amount: 850,
    construction_date: null,
    renovation_date: null,
    address: null,
    other_detail: null,
  },
};
const create = (input: Partial<CreateEstateInput> = {}, facts = {}) =>
  ({
    type: "CreateEstate",
    estate_id: estateId,
    place_id: placeA,
    input: { name: "Apt 3B", estate_type_id: apartment, area: 52.5, fiscal_identifier: "FR-1", ...input },
    estate_type_exists: true,
    owner_exists: true,
    ...facts,
  }) as EstateCommand;
const update = (input: object, extra: object = {}) =>
  ({
    type: "UpdateEstate",
    estate_id: estateId,
    path_place_id: placeA,
    input,
    rental_status: "VACANT",
    effective_rent_amount: 850,
    now,
    estate_type_exists: true,
    owner_exists: true,
    target_place_exists: true,
    ...extra,
  }) as EstateCommand;

describe("estate decider: create", () => {
  it("creates an estate in the path place", () => {
    const [event] = given([]).when(create({ owner_id: owner1 }))();
    expect(event.type).toBe("EstateCreated");
    expect(event.data).toMatchObject({
      estate_id: estateId,
      place_id: placeA,
      owner_id: owner1,
      area: 52.5,
      floor: null,
    });
  });

  it("refuses an unknown estate type, an unknown owner and another place_id in the body (400)", () => {
    const error = refusal(
      given([]).when(
        create({ owner_id: owner2, place_id: placeB }, { estate_type_exists: false, owner_exists: false }),
      ),
    );
    expect(error.status).toBe(400);
    expect(fields(error)).toEqual(["estate_type_id", "owner_id", "place_id"]);
  });
});

describe("estate decider: update", () => {
  it("refuses an estate of another place than the path (400 on place_id)", () => {
    const error = refusal(given([created]).when(update({ name: "x" }, { path_place_id: placeB })));
    expect(error.status).toBe(400);
    expect(error.message).toBe(`Estate ${estateId} does not belong to place ${placeB}`);
    expect(error.details).toEqual([
      { field: "place_id", message: `Estate ${estateId} does not belong to place ${placeB}` },
    ]);
  });

  it("moves only through the flat route", () => {
    expect(fields(refusal(given([created]).when(update({ place_id: placeB }))))).toEqual(["place_id"]);
    expect(given([created]).when(update({ place_id: placeA }))()).toHaveLength(1);
    const events = given([created]).when(update({ place_id: placeB }, { path_place_id: null }))();
    expect(events.map((e) => e.type)).toEqual(["EstateMoved", "EstateUpdated"]);
    expect(events[0].data).toEqual({ estate_id: estateId, from_place_id: placeA, to_place_id: placeB });
    const missing = refusal(
      given([created]).when(
        update({ place_id: placeB }, { path_place_id: null, target_place_exists: false }),
      ),
    );
    expect(fields(missing)).toEqual(["place_id"]);
  });

  it("transfers ownership as its own event and tracks previous_owner_id", () => {
    const events = given([created]).when(update({ owner_id: owner2 }))();
    expect(events).toEqual([
      {
        type: "EstateOwnershipTransferred",
        data: { estate_id: estateId, previous_owner_id: owner1, new_owner_id: owner2, transferred_at: now },
      },
      { type: "EstateUpdated", data: { estate_id: estateId, changes: {} } },
    ]);
    const state = fold(estateDecider, [created, ...events]);
    expect(state).toMatchObject({ owner_id: owner2, previous_owner_id: owner1 });
    expect(
      fields(refusal(given([created]).when(update({ owner_id: owner2 }, { owner_exists: false })))),
    ).toEqual(["owner_id"]);
    expect(
      given([created])
        .when(update({ owner_id: owner1 }))()
        .map((e) => e.type),
    ).toEqual(["EstateUpdated"]);
  });

  it("omitted keeps, null removes, unchanged values are not recorded", () => {
    const [event] = given([created]).when(update({ name: "Apt 3B", building: null, area: 60 }))();
    expect(event).toEqual({
      type: "EstateUpdated",
      data: { estate_id: estateId, changes: { building: null, area: 60 } },
    });
  });

  it("checks a changed estate type", () => {
    const error = refusal(
      given([created]).when(
        update({ estate_type_id: globalTypeIds.estate.house }, { estate_type_exists: false }),
      ),
    );
    expect(fields(error)).toEqual(["estate_type_id"]);
  });

  it("lets rent_amount change only while VACANT (409 otherwise), sending back the shown rent is fine", () => {
    expect(given([created]).when(update({ rent_amount: 900 }))()[0].data).toEqual({
      estate_id: estateId,
      changes: { rent_amount: 900 },
    });
    const rented = { rental_status: "RENTED", effective_rent_amount: 1000 };
    expect(refusal(given([created]).when(update({ rent_amount: 900 }, rented))).status).toBe(409);
    expect(given([created]).when(update({ rent_amount: 1000 }, rented))()[0].data).toEqual({
      estate_id: estateId,
      changes: {},
    });
  });

  it("404 on unknown or deleted estates", () => {
    expect(refusal(given([]).when(update({}))).status).toBe(404);
    const deleted: EstateEvent = { type: "EstateDeleted", data: { estate_id: estateId, place_id: placeA } };
    expect(refusal(given([created, deleted]).when(update({}))).status).toBe(404);
  });
});

describe("estate decider: delete", () => {
  const del = (room_count: number, open_lease_count: number, path_place_id = placeA): EstateCommand => ({
    type: "DeleteEstate",
    estate_id: estateId,
    path_place_id,
    room_count,
    open_lease_count,
  });
  it("refuses while rooms or open leases exist (409)", () => {
    expect(refusal(given([created]).when(del(1, 0))).status).toBe(409);
    expect(refusal(given([created]).when(del(0, 1))).status).toBe(409);
  });
  it("checks the place of the path", () => {
    expect(fields(refusal(given([created]).when(del(0, 0, placeB))))).toEqual(["place_id"]);
  });
  it("deletes", () => {
    expect(given([created]).when(del(0, 0))()).toEqual([
      { type: "EstateDeleted", data: { estate_id: estateId, place_id: placeA } },
    ]);
  });
});

describe("estate schemas", () => {
  const base = { name: "A", estate_type_id: apartment, area: 10, fiscal_identifier: "F" };
  it("requires name, estate_type_id, area > 0 and fiscal_identifier 1-50", () => {
    const result = createEstateSchema.safeParse({});
    expect(result.error?.issues.map((i) => i.path.join(".")).sort()).toEqual([
      "area",
      "estate_type_id",
      "fiscal_identifier",
      "name",
    ]);
    expect(createEstateSchema.safeParse({ ...base, area: 0 }).success).toBe(false);
    expect(createEstateSchema.safeParse({ ...base, fiscal_identifier: "x".repeat(51) }).success).toBe(false);
    expect(createEstateSchema.safeParse({ ...base, name: "x".repeat(256) }).success).toBe(false);
    expect(createEstateSchema.safeParse({ ...base, name: "x".repeat(255) }).success).toBe(true);
  });
  it("refuses read-only fields and null on required fields", () => {
    expect(updateEstateSchema.safeParse({ rental_status: "VACANT" }).error?.issues[0].message).toBe(
      "rental_status is read-only",
    );
    expect(updateEstateSchema.safeParse({ previous_owner_id: null }).success).toBe(false);
    for (const f of ["name", "estate_type_id", "area", "fiscal_identifier", "place_id"]) {
      expect(updateEstateSchema.safeParse({ [f]: null }).error?.issues[0].message).toBe(
        `${f} is required and cannot be removed`,
      );
    }
  });
  it("normalises dates to UTC timestamps", () => {
    const parsed = updateEstateSchema.parse({
      construction_date: "1975-06-01",
      renovation_date: "2020-01-02T10:00:00+02:00",
    });
    expect(parsed).toEqual({
      construction_date: "1975-06-01T00:00:00.000Z",
      renovation_date: "2020-01-02T08:00:00.000Z",
    });
    expect(updateEstateSchema.parse({ construction_date: "2020-01-02T10:00:00" }).construction_date).toBe(
      "2020-01-02T10:00:00.000Z",
    );
    expect(updateEstateSchema.safeParse({ construction_date: "2023-02-30" }).success).toBe(false);
  });
});
