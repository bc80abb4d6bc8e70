/** Places: a building or complex holding estates. Stream `place-<uuid>`. */

export const placeStream = (id: string) => `place-${id}`;

/** The fields a client sets on a place; absent optional fields are null. */
export interface PlaceFields {
  name: string;
  description: string | null;
  address_street: string | null;
  address_postal_code: string | null;
  address_city: string | null;
  address_country: string | null;
}

export type PlaceEvent =
  | { type: "PlaceCreated"; data: { place_id: string } & PlaceFields }
  /** `changes` holds only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | { type: "PlaceUpdated"; data: { place_id: string; changes: Partial<PlaceFields> } }
  | { type: "PlaceDeleted"; data: { place_id: string } };

export const placeEventTypes = ["PlaceCreated", "PlaceUpdated", "PlaceDeleted"] as const;
