import { z } from "zod";
import { storableJson } from "../platform/http/schemas.ts";
import {
  addressFields,
  bicField,
  emailField,
  ibanField,
  personFields,
  phoneField,
} from "../platform/resource/fields.ts";
import {
  contactSearch,
  defineResource,
  type ResourceEvent,
  type ResourceFields,
} from "../platform/resource/resource.ts";
import { PARTY_PERSONAL_FIELDS } from "./personalData.ts";

/** Owners of estates (individuals or companies). Stream `owner-<uuid>`. */

export const ownerCategories = ["individual", "company"] as const;
const category = z.enum(ownerCategories, { error: "Invalid owner category: individual or company" });

/**
 * A company owner's legal form, as far as the law of leases cares: a SCI formed only between
 * relatives and relatives by marriage up to the fourth degree inclusive lets as a natural person
 * (loi n° 89-462 art. 10, 13 a: 3-year terms); any other company lets for 6 years.
 */
export const OWNER_LEGAL_FORMS = ["FAMILY_SCI", "OTHER_COMPANY"] as const;

export const ownerResource = defineResource({
  name: "owner",
  stream: (id) => `owner-${id}`,
  label: "Owner",
  table: "owners",
  path: "/api/owners",
  tag: "Owners",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  fields: {
    category,
    legal_form: z
      .enum(OWNER_LEGAL_FORMS)
      .nullish()
      .describe(
        "A company's legal form: FAMILY_SCI (a SCI between relatives up to the fourth degree, loi n° 89-462 art. 10, 13 a: leases of 3 years) or OTHER_COMPANY (6 years)",
      ),
    ...personFields,
    email: emailField,
    phone: phoneField.nullish(),
    ...addressFields,
    iban: ibanField.nullish(),
    bic: bicField.nullish(),
    custom_fields: storableJson(z.record(z.string(), z.unknown())).nullish(),
  },
  events: { created: "OwnerRegistered", updated: "OwnerUpdated", deleted: "OwnerDeleted" },
  commands: { create: "RegisterOwner", update: "UpdateOwner", delete: "DeleteOwner" },
  filters: contactSearch(z.enum(ownerCategories)),
  summaries: { delete: "Delete an owner (refused while owning estates)" },
  invalidBodyMessage: "Invalid owner data",
  // Erase and export (docs/personal-data.md); the fields are those the codec encrypts.
  personalData: {
    fields: PARTY_PERSONAL_FIELDS,
    erased: "OwnerPersonalDataErased",
    erase: "EraseOwnerPersonalData",
  },
});

export type OwnerFields = ResourceFields<typeof ownerResource>;
export type OwnerEvent = ResourceEvent<typeof ownerResource>;
