import { roomResource } from "../events/rooms.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `rooms` read model: one row per live room; estates read it to refuse deleting a furnished estate. */
export const roomsProjection = resourceProjection(roomResource);
