import type { PersonalDataDeclaration } from "../platform/personalData/codec.ts";
import { LESSEE_ERASED_FIELDS } from "./lessees.ts";

/**
 * Personal data in events (docs/personal-data.md, DESIGN "Trust in the log"): per stream category,
 * the fields encrypted with the data subject's key and erased with it. The subject is the
 * person the stream is about (its stream name); a lessee's email reservations are the lessee's.
 * Other fields (category, profession, incomes, links) stay readable: once the subject's
 * names, birth data, contacts, addresses, bank details, identity documents and custom
 * fields are gone, they no longer identify anyone.
 */

/** Names, birth data, contacts, addresses, bank details, identity documents, custom fields. */
export const LESSEE_PERSONAL_FIELDS = [...LESSEE_ERASED_FIELDS, "previous_email"] as const;

/** Owners' and contacts' (resource kit) personal fields; `notes` of a contact may name people. */
export const PARTY_PERSONAL_FIELDS = [
  "first_name",
  "last_name",
  "legal_name",
  "email",
  "phone",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
  "iban",
  "bic",
  "notes",
  "custom_fields",
] as const;

const ownStream = (streamName: string) => streamName;

export const PERSONAL_DATA: PersonalDataDeclaration = {
  lessee: { fields: LESSEE_PERSONAL_FIELDS, subject: ownStream },
  lessee_email: {
    fields: ["email"],
    subject: (_stream, data) => (typeof data.lessee_id === "string" ? `lessee-${data.lessee_id}` : null),
  },
  owner: { fields: PARTY_PERSONAL_FIELDS, subject: ownStream },
  // Each message has its own key, destroyed when one of its data subjects is erased.
  message: { fields: ["to", "from", "subject", "text", "html", "attachments"], subject: ownStream },
  contact: { fields: PARTY_PERSONAL_FIELDS, subject: ownStream },
  // A lease's signing stream has its own key, destroyed when a signatory it names is erased: the
  // signatories' names and emails, and who signed from where (src/events/signing.ts).
  lease_signing: {
    fields: [],
    within: { signatories: ["name", "email"], step: ["ip", "user_agent", "actor"] },
    subject: ownStream,
  },
};
