import { type ContactFields, contactResource } from "../../events/contacts.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** A contact is someone to call or write to: a person's last name or a company's legal name. */
const named = (contact: ContactFields) =>
  contact.last_name || contact.legal_name
    ? []
    : [{ field: "last_name", message: "A last name or a legal_name is required" }];

export const contactDecider = resourceDecider(contactResource, { check: named });
