import { placeResource } from "../../events/places.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { countEstates } from "../../queries/estates.ts";
import { placeDecider } from "./decider.ts";

/** POST, PUT and DELETE of /api/places (docs/architecture.md §6 Places). */
export const placeRoutes = resourceCommandRoutes(placeResource, placeDecider, {
  facts: {
    delete: async (request, { id }) => ({
      estate_count: await countEstates(request.server.platform.sql, tenantOf(request), "place_id", id),
    }),
  },
});
