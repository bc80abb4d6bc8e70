import { equipmentResource } from "../../events/equipment.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** The route has found the room of the path in its estate and place, and looked up the equipment type. */
export type EquipmentFacts = {
  create: { equipment_type_exists: boolean };
  update: { equipment_type_exists?: boolean };
};

export const equipmentDecider = resourceDecider<typeof equipmentResource, EquipmentFacts>(equipmentResource, {
  check: (item, command, changes) =>
    (changes === null || changes.equipment_type_id !== undefined) && !command.equipment_type_exists
      ? [{ field: "equipment_type_id", message: `Equipment type ${item.equipment_type_id} does not exist` }]
      : [],
});
