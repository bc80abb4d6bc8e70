import { text } from "../platform/http/schemas.ts";
import { addressFields } from "../platform/resource/fields.ts";
import {
  contains,
  defineResource,
  equalsIgnoringCase,
  type ResourceEvent,
} from "../platform/resource/resource.ts";

/** Places: a building or complex holding estates. Stream `place-<uuid>`. */
export const placeResource = defineResource({
  name: "place",
  stream: (id) => `place-${id}`,
  label: "Place",
  table: "places",
  path: "/api/places",
  tag: "Places",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  fields: { name: text(255), description: text(2000).nullish(), ...addressFields },
  events: { created: "PlaceCreated", updated: "PlaceUpdated", deleted: "PlaceDeleted" },
  commands: { create: "CreatePlace", update: "UpdatePlace", delete: "DeletePlace" },
  filters: {
    q: contains(["name", "address_city"], "Contained in the name or the city"),
    city: equalsIgnoringCase("address_city", 255, "Exact city, case-insensitive"),
  },
  summaries: { delete: "Delete a place (refused while it holds estates)" },
});

export type PlaceEvent = ResourceEvent<typeof placeResource>;
