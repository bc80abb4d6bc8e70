import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EstateDetails, type EstateEvent, estateStream } from "../../src/events/estates.ts";
import { estatesProjection } from "../../src/projections/estates.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const details: EstateDetails = {
  name: "Appartement T2",
  estate_type_id: randomUUID(),
  area: 48.5,
  number_of_room: 2,
  orientation: null,
  building: "B",
  floor: 3,
  lot_number: null,
  fiscal_identifier: "123456789012",
  housing_tax: null,
  property_tax: 820,
  acquisition_price: null,
  rent_amount: 750,
  construction_date: null,
  renovation_date: null,
  address: null,
  other_detail: null,
};

describe.each(databaseKinds)("estates projection on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [estatesProjection]);
  });
  afterAll(async () => spec?.close());

  const created = (estate_id: string, place_id: string, owner_id: string | null): EstateEvent => ({
    type: "EstateCreated",
    data: { estate_id, place_id, owner_id, ...details },
  });

  it("given a creation, then a VACANT estate whose rent is the landlord's reference rent", async () => {
    const [e, place] = [randomUUID(), randomUUID()];
    const t = await spec.given([on(estateStream(e), created(e, place, null))]);
    expect(await t.rows("estates")).toMatchObject([
      {
        id: e,
        place_id: place,
        rental_status: "VACANT",
        rent_amount: 750,
        reference_rent_amount: 750,
        revision: 0,
      },
    ]);
  });

  it("given a move, an update and an ownership transfer, then the row follows and the transfer is listed", async () => {
    const [e, place, other, ownerA, ownerB] = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    const s = estateStream(e);
    const t = await spec.given([
      on(s, created(e, place, ownerA)),
      on(s, { type: "EstateMoved", data: { estate_id: e, from_place_id: place, to_place_id: other } }),
      on(s, { type: "EstateUpdated", data: { estate_id: e, changes: { rent_amount: 790, floor: null } } }),
      on(s, {
        type: "EstateOwnershipTransferred",
        data: {
          estate_id: e,
          previous_owner_id: ownerA,
          new_owner_id: ownerB,
          transferred_at: "2025-05-01T00:00:00.000Z",
        },
      }),
    ]);
    expect(await t.rows("estates")).toMatchObject([
      {
        place_id: other,
        floor: null,
        rent_amount: 790,
        reference_rent_amount: 790,
        owner_id: ownerB,
        previous_owner_id: ownerA,
        revision: 3,
      },
    ]);
    expect(await t.rows("estate_ownership_transfers")).toMatchObject([
      { estate_id: e, previous_owner_id: ownerA, new_owner_id: ownerB, revision: 3 },
    ]);
  });

  it("given a deletion, then neither the estate nor its transfers remain", async () => {
    const [e, place] = [randomUUID(), randomUUID()];
    const s = estateStream(e);
    const t = await spec.given([
      on(s, created(e, place, null)),
      on(s, {
        type: "EstateOwnershipTransferred",
        data: {
          estate_id: e,
          previous_owner_id: null,
          new_owner_id: randomUUID(),
          transferred_at: "2025-05-01T00:00:00.000Z",
        },
      }),
      on(s, { type: "EstateDeleted", data: { estate_id: e, place_id: place } }),
    ]);
    expect(await t.rows("estates")).toEqual([]);
    expect(await t.rows("estate_ownership_transfers")).toEqual([]);
  });
});
