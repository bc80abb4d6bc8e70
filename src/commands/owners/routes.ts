import { ownerResource } from "../../events/owners.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { countEstates } from "../../queries/estates.ts";
import { ownerDecider } from "./decider.ts";

/** POST, PUT and DELETE of /api/owners; a delete counts the owner's estates first. */
export const ownerRoutes = resourceCommandRoutes(ownerResource, ownerDecider, {
  facts: {
    delete: async (request, { id }) => ({
      estate_count: await countEstates(request.server.platform.sql, tenantOf(request), "owner_id", id),
    }),
  },
});
