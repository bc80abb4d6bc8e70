import type { RentRegulationEvent, RentRegulationFields } from "../../events/rentRegulation.ts";
import type { Decider } from "../../platform/decider.ts";
import { notFound } from "../../platform/errors.ts";

/**
 * One decider for the area's three kinds of stream (an IRL quarter, a place's regulation, an
 * estate's override): each holds one value, replaced as a whole by the latest event.
 */
export type RentRegulationCommand =
  | { type: "PublishIrlValue"; quarter: string; value: number; published_on: string | null }
  | { type: "SetPlaceRentRegulation"; place_id: string; fields: RentRegulationFields }
  | { type: "SetEstateRentRegulation"; estate_id: string; fields: RentRegulationFields }
  | { type: "RemoveEstateRentRegulation"; estate_id: string };

export type RentRegulationState =
  | { status: "absent" }
  | { status: "irl"; value: number; published_on: string | null }
  | { status: "set"; fields: RentRegulationFields };

export const rentRegulationDecider: Decider<RentRegulationState, RentRegulationCommand, RentRegulationEvent> =
  {
    initialState: () => ({ status: "absent" }),

    evolve(state, event) {
      switch (event.type) {
        case "IrlValuePublished":
          return { status: "irl", value: event.data.value, published_on: event.data.published_on };
        case "PlaceRentRegulationSet":
        case "EstateRentRegulationSet": {
          const { high_demand_zone, reference_rents, order_reference, effective_from } = event.data;
          return {
            status: "set",
            fields: { high_demand_zone, reference_rents, order_reference, effective_from },
          };
        }
        case "EstateRentRegulationRemoved":
          return { status: "absent" };
        default:
          return state;
      }
    },

    decide(command, state) {
      switch (command.type) {
        case "PublishIrlValue": {
          // Publishing the value already recorded changes nothing: PUT is idempotent.
          if (
            state.status === "irl" &&
            state.value === command.value &&
            state.published_on === command.published_on
          )
            return [];
          const { quarter, value, published_on } = command;
          return [{ type: "IrlValuePublished", data: { quarter, value, published_on } }];
        }
        case "SetPlaceRentRegulation":
          return [
            { type: "PlaceRentRegulationSet", data: { place_id: command.place_id, ...command.fields } },
          ];
        case "SetEstateRentRegulation":
          return [
            { type: "EstateRentRegulationSet", data: { estate_id: command.estate_id, ...command.fields } },
          ];
        case "RemoveEstateRentRegulation":
          if (state.status !== "set") throw notFound("Rent regulation override of estate", command.estate_id);
          return [{ type: "EstateRentRegulationRemoved", data: { estate_id: command.estate_id } }];
        default: {
          const exhaustive: never = command;
          return exhaustive;
        }
      }
    },
  };
