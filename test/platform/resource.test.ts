import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerResource } from "../../src/events/owners.ts";
import { roomResource } from "../../src/events/rooms.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { text, uuid } from "../../src/platform/http/schemas.ts";
import { resourceDecider } from "../../src/platform/resource/decider.ts";
import { defineResource } from "../../src/platform/resource/resource.ts";
import { ownersProjection } from "../../src/projections/owners.ts";
import { roomsProjection } from "../../src/projections/rooms.ts";
import { deciderSpec } from "../support/deciderSpec.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** The resource kit (src/platform/resource/): what one declaration gives. */

const declaration = {
  name: "widget",
  stream: (id: string) => `widget-${id}`,
  label: "Widget",
  table: "widgets",
  path: "/api/widgets",
  tag: "Widgets",
  access: { read: "SettingsRead", write: "SettingsWrite", delete: "SettingsWrite" },
  events: { created: "WidgetCreated", updated: "WidgetUpdated", deleted: "WidgetDeleted" },
  commands: { create: "CreateWidget", update: "UpdateWidget", delete: "DeleteWidget" },
} as const;

describe("a resource declaration", () => {
  it("derives the table: SQL types from the zod types, NOT NULL for required fields, the parent's id", () => {
    expect(roomResource.ddl).toContain("estate_id uuid NOT NULL,");
    expect(roomResource.ddl).toContain("room_type_id uuid NOT NULL,");
    expect(roomResource.ddl).toContain("area numeric,");
    expect(roomResource.ddl).toContain("floor integer,");
    expect(roomResource.ddl).toContain("rooms_estate ON rooms (tenant_id, estate_id, created_at, id)");
    expect(ownerResource.ddl).toContain("custom_fields jsonb,");
    expect(ownerResource.ddl).toContain("category text NOT NULL,");
    // Personal fields may read null once erased, required or not (docs/personal-data.md).
    expect(ownerResource.ddl).toContain("email text,\n");
    expect(ownerResource.ddl).toContain("erased_at text,\n");
    expect(roomResource.columns).toEqual([
      "tenant_id",
      "id",
      "estate_id",
      ...["name", "room_type_id", "area", "floor", "description"],
      ...["revision", "created_at", "updated_at"],
    ]);
  });

  it("derives the read model's version from the declaration: another field, another version", () => {
    // Each its own label: a label names the resource's schemas in the API description, once.
    const one = defineResource({ ...declaration, label: "One", fields: { name: text(10) } });
    const same = defineResource({ ...declaration, label: "Same", fields: { name: text(10) } });
    const more = defineResource({
      ...declaration,
      label: "More",
      fields: { name: text(10), code: uuid().nullish() },
    });
    expect(one.version).toBe(same.version);
    expect(more.version).not.toBe(one.version);
    expect(Number.isInteger(one.version) && one.version > 0 && one.version < 2 ** 31).toBe(true);
  });

  it("derives the request schemas: required fields may not be null on update, a parent id is optional", () => {
    const estate_id = randomUUID();
    expect(roomResource.updateSchema.safeParse({ name: null }).success).toBe(false);
    expect(roomResource.updateSchema.safeParse({ area: null, estate_id }).success).toBe(true);
    expect(roomResource.createSchema.safeParse({ name: "x", room_type_id: estate_id }).success).toBe(true);
    expect(
      roomResource.createSchema.safeParse({ name: "x", room_type_id: estate_id, other: 1 }).success,
    ).toBe(false);
  });
});

describe("a resource's decider", () => {
  const widgets = defineResource({
    ...declaration,
    fields: { name: text(10), code: text(10), note: text(10).nullish() },
    readOnly: ["code"],
  });
  const { given } = deciderSpec(resourceDecider(widgets));
  const widget_id = randomUUID();
  const created = {
    type: "WidgetCreated" as const,
    data: { widget_id, name: "A", code: "W1", note: null },
  };

  it("sets a read-only field on create; an update may repeat it, not change it", () => {
    given([])
      .when({ type: "CreateWidget", widget_id, input: { name: "A", code: "W1" } })
      .then([created]);
    given([created])
      .when({ type: "UpdateWidget", widget_id, input: { name: "B", code: "W1" } })
      .then([{ type: "WidgetUpdated", data: { widget_id, changes: { name: "B" } } }]);
    given([created])
      .when({ type: "UpdateWidget", widget_id, input: { code: "W2" } })
      .thenRefuses(400, "Invalid widget data", ["code"]);
  });
});

describe("a resource's personal data", () => {
  const gadgets = defineResource({
    ...declaration,
    name: "gadget",
    stream: (id: string) => `gadget-${id}`,
    label: "Gadget",
    table: "gadgets",
    fields: { name: text(10), email: text(50), note: text(10).nullish() },
    events: { created: "GadgetCreated", updated: "GadgetUpdated", deleted: "GadgetDeleted" },
    commands: { create: "CreateGadget", update: "UpdateGadget", delete: "DeleteGadget" },
    personalData: { fields: ["email", "note", "phone"], erased: "GadgetErased", erase: "EraseGadget" },
  });
  const decider = resourceDecider(gadgets);
  const { given } = deciderSpec(decider);
  const gadget_id = randomUUID();
  const created = { type: "GadgetCreated", data: { gadget_id, name: "A", email: "a@b.fr", note: "n" } };
  const pass = { rule: "R", status: "PASS", message: "ok", legal_reference: "L", details: {} } as const;
  const erase = (retention: object[] = [pass]) =>
    ({
      type: "EraseGadget",
      gadget_id,
      reason: "asked",
      erased_by: "k",
      now: "2026-11-26T00:00:00.000Z",
      retention,
    }) as never;
  const erased = {
    type: "GadgetErased",
    data: {
      gadget_id,
      erased_at: "2026-11-26T00:00:00.000Z",
      erased_by: "k",
      reason: "asked",
      retention: [{ rule: "R", status: "PASS", legal_reference: "L" }],
    },
  };

  it("keeps the declared fields it has; they may read null in the body; erased_at added", () => {
    expect(gadgets.erasedFields).toEqual(["email", "note"]);
    expect(gadgets.body.shape.email.safeParse(null).success).toBe(true);
    expect(gadgets.body.shape.name.safeParse(null).success).toBe(false);
    expect(gadgets.responseColumns.at(-1)).toBe("erased_at");
    expect(gadgets.eventTypes).toContain("GadgetErased");
  });

  it("erases once (a repeat decides nothing), refuses while a retention FAILs, then refuses updates", () => {
    given([created as never])
      .when(erase())
      .then([erased as never]);
    given([created, erased] as never[])
      .when(erase())
      .then([]);
    const fail = { ...pass, rule: "HELD", status: "FAIL", message: "held by law" };
    given([created as never])
      .when(erase([pass, fail]))
      .thenRefuses(409, "held by law", ["retention"]);
    given([]).when(erase()).thenRefuses(404);
    given([created, erased] as never[])
      .when({ type: "UpdateGadget", gadget_id, input: { name: "B" } } as never)
      .thenRefuses(409, `Gadget ${gadget_id} was erased (GDPR art. 17)`);
    const state = given([created, erased] as never[]).state;
    expect(state).toMatchObject({
      erased_at: erased.data.erased_at,
      fields: { name: "A", email: null, note: null },
    });
  });
});

describe.each(databaseKinds)("a resource's projection on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [roomsProjection, ownersProjection]);
  });
  afterAll(async () => spec?.close());

  it("builds the rows the events the log holds describe: created, updated (changes only), deleted", async () => {
    const [room, estate, owner] = [randomUUID(), randomUUID(), randomUUID()];
    const kitchen = globalTypeIds.room.kitchen;
    const base = { room_id: room, estate_id: estate };
    const t = await spec.given([
      on(`room-${room}`, {
        type: "RoomAdded",
        data: { ...base, name: "Cuisine", room_type_id: kitchen, area: 9.5, floor: null, description: null },
      }),
      on(`room-${room}`, { type: "RoomUpdated", data: { ...base, changes: { floor: 2, area: null } } }),
      on(`owner-${owner}`, {
        type: "OwnerRegistered",
        data: { owner_id: owner, category: "company", legal_name: "SCI", email: "a@b.fr" },
      }),
      on(`owner-${owner}`, { type: "OwnerDeleted", data: { owner_id: owner } }),
    ]);
    const [row] = await t.rows("rooms");
    expect(row).toMatchObject({
      id: room,
      estate_id: estate,
      name: "Cuisine",
      room_type_id: kitchen,
      area: null,
      floor: 2,
      description: null,
      revision: 1,
    });
    expect(new Date(row.updated_at).getTime()).toBeGreaterThan(new Date(row.created_at).getTime());
    expect(await t.rows("owners")).toEqual([]);
  });

  it("erases a row's personal fields, keeps the others and stamps erased_at", async () => {
    const owner = randomUUID();
    const t = await spec.given([
      on(`owner-${owner}`, {
        type: "OwnerRegistered",
        data: { owner_id: owner, category: "company", legal_name: "SCI", email: "a@b.fr", bic: "BNPAFRPP" },
      }),
      on(`owner-${owner}`, {
        type: "OwnerPersonalDataErased",
        data: {
          owner_id: owner,
          erased_at: "2026-11-26T10:00:00.000Z",
          erased_by: null,
          reason: "r",
          retention: [],
        },
      }),
    ]);
    const [row] = await t.rows("owners");
    expect(row).toMatchObject({
      id: owner,
      category: "company",
      legal_name: null,
      email: null,
      bic: null,
      erased_at: "2026-11-26T10:00:00.000Z",
      revision: 1,
    });
  });
});
