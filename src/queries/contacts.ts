import { contactResource } from "../events/contacts.ts";
import { resourceExportRoute } from "../platform/resource/personalRoutes.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";

/** GET /api/contacts (q, category, email), one contact, and its history. */
export const contactQueries = resourceQueryRoutes(contactResource);

/** GET /api/contacts/{id}/export (GDPR art. 15 and 20): the contact, and its history. */
export const contactExport = resourceExportRoute(contactResource);
