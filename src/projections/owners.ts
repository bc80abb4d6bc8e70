import { ownerResource } from "../events/owners.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `owners` read model: one row per live owner (src/platform/resource/projection.ts). */
export const ownersProjection = resourceProjection(ownerResource);
