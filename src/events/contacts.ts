import { z } from "zod";
import { storableJson, text } from "../platform/http/schemas.ts";
import { addressFields, emailField, personFields, phoneField } from "../platform/resource/fields.ts";
import {
  contactSearch,
  defineResource,
  type ResourceEvent,
  type ResourceFields,
} from "../platform/resource/resource.ts";
import { PARTY_PERSONAL_FIELDS } from "./personalData.ts";

/** The tenant's third parties (docs/design.md §7.2). Stream `contact-<uuid>`. */

export const contactCategories = ["tradesperson", "insurer", "syndic", "agency", "notary"] as const;
const category = z.enum(contactCategories, {
  error: `Invalid contact category: ${contactCategories.join(", ")}`,
});

export const contactResource = defineResource({
  name: "contact",
  stream: (id) => `contact-${id}`,
  label: "Contact",
  table: "contacts",
  path: "/api/contacts",
  tag: "Contacts",
  // Settings has no Delete permission (docs/design.md §7.0): Write deletes (docs/decisions.md, "Contacts").
  access: { read: "SettingsRead", write: "SettingsWrite", delete: "SettingsWrite" },
  fields: {
    category,
    ...personFields,
    email: emailField.nullish(),
    phone: phoneField.nullish(),
    ...addressFields,
    notes: text(2000).nullish(),
    custom_fields: storableJson(z.record(z.string(), z.unknown())).nullish(),
  },
  events: { created: "ContactCreated", updated: "ContactUpdated", deleted: "ContactDeleted" },
  commands: { create: "CreateContact", update: "UpdateContact", delete: "DeleteContact" },
  filters: contactSearch(z.enum(contactCategories)),
  invalidBodyMessage: "Invalid contact data",
  // Erase and export (docs/personal-data.md); the fields are those the codec encrypts.
  personalData: {
    fields: PARTY_PERSONAL_FIELDS,
    erased: "ContactPersonalDataErased",
    erase: "EraseContactPersonalData",
  },
  history: true,
});

export type ContactFields = ResourceFields<typeof contactResource>;
export type ContactEvent = ResourceEvent<typeof contactResource>;
