import { z } from "zod";
import { text } from "../platform/http/schemas.ts";
import { defineResource } from "../platform/resource/resource.ts";

/**
 * Types of estates, rooms and equipment (a catalog, src/platform/resource/catalog.ts). The global
 * catalog is static data shipped by the migration 010_types_catalog.sql; a tenant adds its own
 * types as events on stream `type-<uuid>`, the uuid derived from (tenant, kind, code).
 */

export const typeStream = (id: string) => `type-${id}`;

export const typeKinds = ["estate", "room", "equipment"] as const;
export type TypeKind = (typeof typeKinds)[number];

export const typeResource = defineResource({
  name: "type",
  stream: typeStream,
  label: "Type",
  table: "tenant_types",
  path: "/api/types",
  tag: "Types",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  fields: {
    /** Optional stable code; derived from the name when absent. */
    code: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9_]{0,63}$/, "Lower-case letters, digits and underscores, at most 64")
      .optional(),
    name: text(255),
  },
  sqlTypes: { code: "text NOT NULL" },
  kinds: { estate: "estates", room: "rooms", equipment: "equipment" } satisfies Record<TypeKind, string>,
  catalog: "types_catalog",
  unique: ["kind", "code"],
  timestamps: ["created_at"],
  // Only created is ever written: types are not updated or deleted.
  events: { created: "TenantTypeCreated", updated: "TenantTypeUpdated", deleted: "TenantTypeDeleted" },
  commands: { create: "CreateTenantType", update: "UpdateTenantType", delete: "DeleteTenantType" },
});

/** The fixed ids of the global catalog (the same as in the migration), for fixtures and clients. */
export const globalTypeIds = {
  estate: {
    apartment: "5158d101-618e-5b5c-8858-2098913a1f8d",
    house: "b02ffc70-fb29-556d-a41b-aa9c35c712ef",
    studio: "0d09325f-d6bf-542c-9d9a-ebe1c7496904",
    room: "8b926fc7-b960-584f-930d-63c442dd52c8",
    parking: "2ad07397-3ad8-5725-a757-f210b3ea8ed3",
    cellar: "67a5e34e-17ed-52be-8f01-2e58f2667bad",
    commercial_premises: "61fe5c84-6ef8-55c5-8da9-c05da8f4cc86",
    office: "5677c35e-b5ce-5842-a953-fc0824eb103b",
    land: "dda9696c-baca-5917-b13c-efbb838f05e1",
  },
  room: {
    living_room: "b46aeb4b-5cd6-5edb-896a-982271427e45",
    bedroom: "a8f4139e-e518-5fa4-a209-40777506e0a0",
    kitchen: "cf1c6e42-bb27-566c-93e3-a3c0e8a3727b",
    bathroom: "118531a8-43df-5824-b294-90a22915f9b7",
    toilet: "06749ade-ada5-5f75-8450-f42e067abc94",
    hallway: "42fd6f0b-3d65-5a57-8618-910268e7616a",
    office: "801c52d7-babe-5c6a-b97a-765bfef32ced",
    dining_room: "336361ad-a31b-5141-8c27-30b367a9b8c1",
    laundry: "24d2c51e-4518-5c2a-8b07-f4f41ccaad67",
    balcony: "e70afe5d-8db9-5082-99f9-074a732a7474",
    terrace: "80fed217-fbcf-51b1-9d1e-cf16dc3ba81d",
    garage: "20ac6fe3-d4db-51fd-a9ae-0e4af6a755e0",
    cellar: "c800b6b9-975a-5f74-adf2-bdf63bd71ee8",
    attic: "c19ca419-7aa2-53a7-8fd9-a9d3baa64e4a",
  },
  equipment: {
    oven: "28588c53-a803-5188-a800-976158f519f9",
    hob: "ee3b19a3-c1ca-573f-94d5-d3d171bce41e",
    microwave: "ddb16574-7bb0-5536-a890-598402b90be0",
    fridge: "434e233a-2895-5a07-ab6a-6fe91223bc36",
    freezer: "22e61708-6747-5611-b723-39913f5f26f9",
    dishwasher: "f293d491-7cc2-5d31-9076-41bc16a0b859",
    washing_machine: "6f3b20d4-157e-557b-86e2-27186f33eb83",
    dryer: "2767332a-bbad-58b7-b758-92676b4a3918",
    hood: "119df86d-abc5-5fd4-94f3-f9c575d80183",
    boiler: "57ff6f81-39a7-57f3-97c9-7241d692b634",
    water_heater: "d07a2375-dcaf-5c27-9254-9fdcce55c248",
    radiator: "06943b1f-71df-5244-abd1-6f5295afe8e8",
    air_conditioning: "9e0e2b10-0664-571e-ba1b-a23970ecff01",
    heat_pump: "2022801f-ccbc-5014-8f9f-3f0467c2aec1",
    smoke_detector: "b18fa45a-aeef-5483-a119-03f87d838ba4",
    intercom: "f531e71b-6d1a-53f2-91a0-b46a1d86dd54",
    furniture: "ef6d0ba6-b526-5c23-9c81-52d2dd0419d6",
    bed: "6b8c4af8-87b2-5b93-a14d-e9636452d386",
    wardrobe: "a6b905f5-2c37-571a-a68a-e24cf46b666a",
    table_and_chairs: "2cad1615-2aa2-5e6b-982a-0d53a18fe9e8",
    sofa: "f998b44f-229c-5397-93b0-7ecf6ba1af5d",
    storage_shelves: "9f9bf961-e3b6-522f-9a1a-1f1f4ee6a126",
    lighting: "09e12ce1-5e32-5674-87b8-5ee9767af8ed",
    window_blackout: "e41c21b9-66ab-5d6b-9ba4-762981478c12",
    tableware: "5fd76ef6-75d2-565f-b076-6b80ef20922d",
    kitchen_utensils: "2f7c2a91-42ad-5a3c-bba1-17c7b35b8031",
    cleaning_equipment: "26fd90e6-9bca-534f-bc13-60f64051f293",
    television: "b0e45bdb-e438-552c-ab90-db6e8fa2cb2b",
    internet_box: "79d54d96-7c2b-5a10-8209-03f8ba62c78d",
  },
} as const;
