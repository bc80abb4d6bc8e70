import { placeResource } from "../events/places.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `places` read model: one row per live place (src/platform/resource/projection.ts). */
export const placesProjection = resourceProjection(placeResource);
