import { contactResource } from "../../events/contacts.ts";
import { contactErasureVerdicts } from "../../law/retention.ts";
import { resourceEraseRoute } from "../../platform/resource/personalRoutes.ts";
import { contactDecider } from "./decider.ts";

/** POST /api/contacts/{id}/erase (GDPR art. 17): no legal retention holds a contact's data (docs/personal-data.md). */
export const contactEraseRoute = resourceEraseRoute(contactResource, contactDecider, {
  summary: "Erase a contact's personal data for good (GDPR art. 17)",
  retention: async () => contactErasureVerdicts(),
});
