/** Owners of estates (individuals or companies). Stream `owner-<uuid>`. */

export const ownerStream = (id: string) => `owner-${id}`;

export const ownerCategories = ["individual", "company"] as const;
export type OwnerCategory = (typeof ownerCategories)[number];

/** Every client-settable field; absent optional fields are null. */
export interface OwnerFields {
  category: OwnerCategory;
  first_name: string | null;
  last_name: string | null;
  legal_name: string | null;
  email: string;
  phone: string | null;
  address_street: string | null;
  address_postal_code: string | null;
  address_city: string | null;
  address_country: string | null;
  iban: string | null;
  bic: string | null;
  custom_fields: Record<string, unknown> | null;
}

export type OwnerEvent =
  | { type: "OwnerRegistered"; data: { owner_id: string } & OwnerFields }
  /** Only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | { type: "OwnerUpdated"; data: { owner_id: string; changes: Partial<OwnerFields> } }
  | { type: "OwnerDeleted"; data: { owner_id: string } };

export const ownerEventTypes = ["OwnerRegistered", "OwnerUpdated", "OwnerDeleted"] as const;

/** An owner's fields in API order: the decider diffs them, the read model and responses list them. */
export const ownerFieldNames = [
  "category",
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
  "custom_fields",
] as const satisfies readonly (keyof OwnerFields)[];
