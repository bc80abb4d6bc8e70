import { createHash } from "node:crypto";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Lessee events (stream `lessee-<uuid>`) and the email reservation events
 * (stream `lessee_email-<tenant>-k<keyed hash of the email>`) that keep emails unique per tenant
 * on every event store engine (docs/architecture.md §1: invariants across aggregates).
 */

export const LESSEE_CATEGORIES = ["individual", "company/other", "guarantor"] as const;
export type LesseeCategory = (typeof LESSEE_CATEGORIES)[number];

export interface IdentityDocuments {
  passport?: { number: string; expiry?: string | null; issuing_country?: string | null } | null;
  id_card?: { number: string; expiry?: string | null; issuing_authority?: string | null } | null;
  driving_license?: { number: string; expiry?: string | null } | null;
}

export interface PostalAddress {
  street?: string | null;
  postal_code?: string | null;
  city?: string | null;
  country?: string | null;
}

export interface AdditionalAddresses {
  work_address?: PostalAddress | null;
  previous_address?: PostalAddress | null;
}

export interface AdditionalContacts {
  emergency_contact?: { name: string; phone?: string | null; relationship?: string | null } | null;
  references?: { name: string; phone?: string | null; type?: string | null }[] | null;
}

/** Every client-settable field of a lessee; absent optional fields are stored as null. */
export interface LesseeData {
  category: LesseeCategory;
  title: string | null;
  first_name: string | null;
  last_name: string | null;
  legal_name: string | null;
  birth_date: string | null;
  birth_place: string | null;
  email: string;
  mobile_phone: string | null;
  landline_phone: string | null;
  address_street: string | null;
  address_postal_code: string | null;
  address_city: string | null;
  address_country: string | null;
  profession: string | null;
  employer_name: string | null;
  employer_phone: string | null;
  monthly_income: number | null;
  other_income: number | null;
  bank_name: string | null;
  iban: string | null;
  bic: string | null;
  additional_addresses: AdditionalAddresses | null;
  identity_documents: IdentityDocuments | null;
  additional_contacts: AdditionalContacts | null;
  custom_fields: Record<string, unknown> | null;
  auth_user_id: string | null;
}

export const LESSEE_FIELDS = [
  "category",
  "title",
  "first_name",
  "last_name",
  "legal_name",
  "birth_date",
  "birth_place",
  "email",
  "mobile_phone",
  "landline_phone",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
  "profession",
  "employer_name",
  "employer_phone",
  "monthly_income",
  "other_income",
  "bank_name",
  "iban",
  "bic",
  "additional_addresses",
  "identity_documents",
  "additional_contacts",
  "custom_fields",
  "auth_user_id",
] as const satisfies readonly (keyof LesseeData)[];

/** Fields a LesseeUpdated may carry: everything but the email, which has its own event. */
export type LesseeChanges = Partial<Omit<LesseeData, "email">>;

export type LesseeEvent =
  | { type: "LesseeRegistered"; data: { lessee_id: string } & LesseeData }
  /** Only the fields whose value changed, with their new value (null = removed). */
  | { type: "LesseeUpdated"; data: { lessee_id: string; changes: LesseeChanges } }
  | { type: "LesseeEmailChanged"; data: { lessee_id: string; email: string; previous_email: string } }
  | { type: "LesseeDeleted"; data: { lessee_id: string } }
  /**
   * Written by a create that found this lessee's email reservation orphaned (the creator
   * reserved the email, then never registered): it fences the unfinished registration,
   * which can no longer append to the stream. The lessee never existed for clients.
   */
  | { type: "LesseeRegistrationAbandoned"; data: { lessee_id: string; email: string } }
  /**
   * GDPR art. 17 (docs/personal-data.md): the lessee's data key is destroyed, so every personal
   * field of its events reads null from now on. Who (`erased_by`, an API key or user id), when
   * (`erased_at`) and why (`reason`, and the retentions checked) are the audit of the erasure.
   */
  | {
      type: "PersonalDataErased";
      data: {
        lessee_id: string;
        erased_at: string;
        erased_by: string | null;
        reason: string;
        retention: { rule: string; status: string; legal_reference: string }[];
      };
    };

export type LesseeEmailEvent =
  /**
   * `lessee_revision`: the lessee stream revision the reserving command expected before
   * writing the email (-1 for a new lessee). Once the lessee stream has moved past it
   * without holding the email, the reservation is stale and may be taken over.
   */
  | { type: "LesseeEmailReserved"; data: { lessee_id: string; lessee_revision: number } & WrittenBefore }
  | { type: "LesseeEmailReleased"; data: { lessee_id: string } & WrittenBefore };

/**
 * Reservations written before session 39 also held the email (sealed with the lessee's key).
 * The stream's name already says which email it reserves, so nothing reads it, and new ones
 * carry no personal value at all: no key to look up, nothing to seal (docs/personal-data.md).
 */
type WrittenBefore = { email?: string | null };

export const LESSEE_EVENT_TYPES = allEventTypes<LesseeEvent["type"]>()([
  "LesseeRegistered",
  "LesseeUpdated",
  "LesseeEmailChanged",
  "LesseeDeleted",
  "LesseeRegistrationAbandoned",
  "PersonalDataErased",
]);

export const lesseeStream = (id: string) => `lessee-${id}`;

/** The lessee's fields erased with its key (src/events/personalData.ts), as null. */
export const LESSEE_ERASED_FIELDS = [
  "title",
  "first_name",
  "last_name",
  "legal_name",
  "birth_date",
  "birth_place",
  "email",
  "mobile_phone",
  "landline_phone",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
  "bank_name",
  "iban",
  "bic",
  "additional_addresses",
  "identity_documents",
  "additional_contacts",
  "custom_fields",
] as const satisfies readonly (keyof LesseeData)[];

/** The lessee once erased: its personal fields null (email too, though typed as a string). */
export const erasedLessee = (lessee: LesseeData): LesseeData =>
  ({ ...lessee, ...Object.fromEntries(LESSEE_ERASED_FIELDS.map((f) => [f, null])) }) as LesseeData;

/** The key of email uniqueness: trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * An email's reservation stream: `lessee_email-<tenant>-k<keyed hash>`, the keyed hash being
 * `pseudonym` (the store's, an HMAC under a secret key) of the email's SHA-256, so the name reveals
 * nothing to whoever guesses the email. Without `pseudonym` (EventStoreDB) the unkeyed SHA-256 names
 * it, as every reservation was named before (legacyEmailHash; reservationNames.ts renames those).
 */
export const lesseeEmailStream = (
  tenantId: string,
  normalizedEmail: string,
  pseudonym?: (value: string) => string,
) => {
  const hash = legacyEmailHash(normalizedEmail);
  return `lessee_email-${tenantId}-${pseudonym ? `k${pseudonym(hash)}` : hash}`;
};

/** The unkeyed hash that named reservation streams before pseudonyms: the SHA-256 of the email. */
export const legacyEmailHash = (normalizedEmail: string) =>
  createHash("sha256").update(normalizedEmail.toLowerCase()).digest("hex");
