import type { PlaceEvent, PlaceFields } from "../../events/places.ts";
import { changedFields, type Decider } from "../../platform/decider.ts";
import { conflict, notFound } from "../../platform/errors.ts";
import type { CreatePlaceInput, UpdatePlaceInput } from "./schemas.ts";

export type PlaceState =
  | { status: "absent" }
  | { status: "active"; place: PlaceFields }
  | { status: "deleted"; place: PlaceFields };

export type PlaceCommand =
  | { type: "CreatePlace"; place_id: string; input: CreatePlaceInput }
  | { type: "UpdatePlace"; place_id: string; input: UpdatePlaceInput }
  /** estate_count: estates of the place, looked up by the route in the estates read model. */
  | { type: "DeletePlace"; place_id: string; estate_count: number };

export const placeFieldNames = [
  "name",
  "description",
  "address_street",
  "address_postal_code",
  "address_city",
  "address_country",
] as const satisfies readonly (keyof PlaceFields)[];

export const placeDecider: Decider<PlaceState, PlaceCommand, PlaceEvent> = {
  initialState: () => ({ status: "absent" }),

  evolve(state, event) {
    switch (event.type) {
      case "PlaceCreated": {
        const { place_id: _, ...place } = event.data;
        return { status: "active", place };
      }
      case "PlaceUpdated":
        return state.status === "active"
          ? { status: "active", place: { ...state.place, ...event.data.changes } }
          : state;
      case "PlaceDeleted":
        return state.status === "active" ? { status: "deleted", place: state.place } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "CreatePlace": {
        if (state.status !== "absent") throw conflict(`Place ${command.place_id} already exists`);
        const i = command.input;
        return [
          {
            type: "PlaceCreated",
            data: {
              place_id: command.place_id,
              name: i.name,
              description: i.description ?? null,
              address_street: i.address_street ?? null,
              address_postal_code: i.address_postal_code ?? null,
              address_city: i.address_city ?? null,
              address_country: i.address_country ?? null,
            },
          },
        ];
      }
      case "UpdatePlace": {
        if (state.status !== "active") throw notFound("Place", command.place_id);
        const changes = changedFields(state.place, command.input, placeFieldNames);
        return [{ type: "PlaceUpdated", data: { place_id: command.place_id, changes } }];
      }
      case "DeletePlace": {
        if (state.status !== "active") throw notFound("Place", command.place_id);
        if (command.estate_count > 0) {
          throw conflict(
            `Cannot delete place ${command.place_id}: it holds ${command.estate_count} estate(s)`,
          );
        }
        return [{ type: "PlaceDeleted", data: { place_id: command.place_id } }];
      }
    }
  },
};
