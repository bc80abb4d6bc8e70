import { contactResource } from "../../events/contacts.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { contactDecider } from "./decider.ts";

/** POST, PUT and DELETE of /api/contacts. */
export const contactRoutes = resourceCommandRoutes(contactResource, contactDecider);
