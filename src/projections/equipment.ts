import { equipmentResource } from "../events/equipment.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `room_equipment` read model: one row per live item of equipment. */
export const equipmentProjection = resourceProjection(equipmentResource);
