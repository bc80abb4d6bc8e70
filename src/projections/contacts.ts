import { contactResource } from "../events/contacts.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `contacts` read model: one row per live contact. */
export const contactsProjection = resourceProjection(contactResource);
