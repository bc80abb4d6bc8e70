import { ownerResource } from "../../events/owners.ts";
import { ownerErasureVerdicts } from "../../law/retention.ts";
import { resourceEraseRoute } from "../../platform/resource/personalRoutes.ts";
import { ownerErasureFacts } from "../../queries/ownerPrivacy.ts";
import { ownerDecider } from "./decider.ts";

/** POST /api/owners/{id}/erase (GDPR art. 17): refused while the owner owns an estate or a lease of its estates is in progress. */
export const ownerEraseRoute = resourceEraseRoute(ownerResource, ownerDecider, {
  summary:
    "Erase an owner's personal data for good (GDPR art. 17); 409 while a retention applies (an estate owned, a lease in progress on its estates)",
  retention: async (request, { tenantId, id }) =>
    ownerErasureVerdicts(await ownerErasureFacts(request.server.platform.sql, tenantId, id)),
});
