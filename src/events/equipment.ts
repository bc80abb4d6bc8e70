import { z } from "zod";
import { isoDate, text, uuid } from "../platform/http/schemas.ts";
import { defineResource, equals, type ResourceEvent } from "../platform/resource/resource.ts";

/** The condition scale of equipment and of condition reports' elements, best first. */
export const CONDITIONS = ["NEW", "GOOD", "FAIR", "POOR"] as const;
export type Condition = (typeof CONDITIONS)[number];

/**
 * Equipment of a room (docs/design.md §7.3): its type from the equipment types (the global catalog and
 * the tenant's own, `GET /api/types/equipment`), brand, model, installation date, condition.
 * Stream `equipment-<uuid>`; an item never changes room.
 */
export const equipmentResource = defineResource({
  name: "equipment",
  stream: (id) => `equipment-${id}`,
  label: "Equipment",
  table: "room_equipment",
  path: "/api/places/:place_id/estates/:estate_id/rooms/:room_id/equipment",
  tag: "Equipment",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  parent: "room",
  fields: {
    equipment_type_id: uuid(),
    brand: text(255).nullish(),
    model: text(255).nullish(),
    installed_on: isoDate.nullish(),
    condition: z.enum(CONDITIONS).nullish(),
    comment: text(2000).nullish(),
  },
  events: { created: "EquipmentInstalled", updated: "EquipmentUpdated", deleted: "EquipmentRemoved" },
  commands: { create: "InstallEquipment", update: "UpdateEquipment", delete: "RemoveEquipment" },
  filters: {
    equipment_type_id: equals("equipment_type_id", uuid()),
    condition: equals("condition", z.enum(CONDITIONS)),
  },
  summaries: { list: "List the equipment of a room", create: "Add equipment to a room" },
  invalidBodyMessage: "Invalid equipment data",
});

export type EquipmentEvent = ResourceEvent<typeof equipmentResource>;
