import { contactResource } from "../events/contacts.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";

/** GET /api/contacts (q, category, email), one contact, and its history. */
export const contactQueries = resourceQueryRoutes(contactResource);
