import { placeResource } from "../../events/places.ts";
import { conflict } from "../../platform/errors.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** estate_count: estates of the place, looked up by the route in the estates read model. */
export type PlaceFacts = { delete: { estate_count: number } };

export const placeDecider = resourceDecider<typeof placeResource, PlaceFacts>(placeResource, {
  deletable({ place_id, estate_count }) {
    if (estate_count > 0)
      throw conflict(`Cannot delete place ${place_id}: it holds ${estate_count} estate(s)`);
  },
});
