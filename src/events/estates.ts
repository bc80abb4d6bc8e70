/**
 * Estates: rental units inside a place. Stream `estate-<uuid>`.
 * Moving to another place and changing the owner are events of their own, so the
 * ownership history and the place history read straight from the log.
 */

import { z } from "zod";
import type { Decider } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";
import { text } from "../platform/http/schemas.ts";

export const estateStream = (id: string) => `estate-${id}`;

export const orientations = [
  "North",
  "South",
  "East",
  "West",
  "North-East",
  "North-West",
  "South-East",
  "South-West",
] as const;

const supply = z
  .strictObject({
    mode: z
      .enum(["INDIVIDUAL", "COLLECTIVE"])
      .describe("Individual to the dwelling or collective to the building"),
    energy: text(100)
      .nullish()
      .describe("Its energy, as the contract prints it: gaz, électricité, fioul, réseau de chaleur…"),
  })
  .meta({ id: "EstateSupply" });
const parts = z.array(text(200)).max(50);

/**
 * What the contract type of décret n° 2015-587 (II, "Objet du contrat") needs of a dwelling that
 * the other estate fields do not say, declared once: the request schemas, the events, the read
 * model and the answers are built from it. Each is optional and null until recorded.
 */
export const estateContractFields = {
  legal_regime: z
    .enum(["MONOPROPRIETE", "COPROPRIETE"])
    .nullish()
    .describe("The building's legal regime: one owner (monopropriété) or a copropriété"),
  heating: supply.nullish().describe("Heating: individual or collective, and its energy"),
  hot_water: supply.nullish().describe("Hot water: individual or collective, and its energy"),
  private_parts: parts
    .nullish()
    .describe("Private accessory parts let with it: a cellar, a parking space, a garden…"),
  common_parts: parts
    .nullish()
    .describe("Parts and equipment of the building in common use: lift, bicycle room, green spaces…"),
  it_access: parts
    .nullish()
    .describe("Access to information technologies: fibre, ADSL, collective TV aerial…"),
};
export const ESTATE_CONTRACT_FIELDS = Object.keys(
  estateContractFields,
) as (keyof typeof estateContractFields)[];
export type EstateContractDetails = {
  [K in keyof typeof estateContractFields]: NonNullable<z.output<(typeof estateContractFields)[K]>> | null;
};

/** Fields changed by EstateUpdated (place_id and owner_id have their own events). */
export interface EstateDetails {
  name: string;
  estate_type_id: string;
  area: number;
  number_of_room: number | null;
  orientation: string | null;
  building: string | null;
  floor: number | null;
  lot_number: string | null;
  fiscal_identifier: string;
  housing_tax: number | null;
  property_tax: number | null;
  acquisition_price: number | null;
  /** The reference rent set by the landlord; a lease in force overrides it in the read model. */
  rent_amount: number | null;
  /** ISO 8601 timestamps (UTC). */
  construction_date: string | null;
  renovation_date: string | null;
  address: string | null;
  other_detail: string | null;
  /** Absent from events written before they were declared (read as null). */
  legal_regime?: EstateContractDetails["legal_regime"];
  heating?: EstateContractDetails["heating"];
  hot_water?: EstateContractDetails["hot_water"];
  private_parts?: EstateContractDetails["private_parts"];
  common_parts?: EstateContractDetails["common_parts"];
  it_access?: EstateContractDetails["it_access"];
}

export type EstateEvent =
  | {
      type: "EstateCreated";
      data: { estate_id: string; place_id: string; owner_id: string | null } & EstateDetails;
    }
  /** Only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | { type: "EstateUpdated"; data: { estate_id: string; changes: Partial<EstateDetails> } }
  | { type: "EstateMoved"; data: { estate_id: string; from_place_id: string; to_place_id: string } }
  | {
      type: "EstateOwnershipTransferred";
      data: {
        estate_id: string;
        previous_owner_id: string | null;
        new_owner_id: string | null;
        transferred_at: string;
      };
    }
  | { type: "EstateDeleted"; data: { estate_id: string; place_id: string } };

export const estateEventTypes = allEventTypes<EstateEvent["type"]>()([
  "EstateCreated",
  "EstateUpdated",
  "EstateMoved",
  "EstateOwnershipTransferred",
  "EstateDeleted",
]);

export interface EstateRecord {
  place_id: string;
  owner_id: string | null;
  previous_owner_id: string | null;
  details: EstateDetails;
}

export type EstateState =
  | { status: "absent" }
  | ({ status: "active" } & EstateRecord)
  | ({ status: "deleted" } & EstateRecord);

/** The fold of an estate stream: the decider's state and the facts other areas look up. */
export const estateFold: Pick<Decider<EstateState, unknown, EstateEvent>, "initialState" | "evolve"> = {
  initialState: () => ({ status: "absent" }),

  evolve(state, event) {
    switch (event.type) {
      case "EstateCreated": {
        const { estate_id: _, place_id, owner_id, ...details } = event.data;
        return { status: "active", place_id, owner_id, previous_owner_id: null, details };
      }
      case "EstateUpdated":
        return state.status === "active"
          ? { ...state, details: { ...state.details, ...event.data.changes } }
          : state;
      case "EstateMoved":
        return state.status === "active" ? { ...state, place_id: event.data.to_place_id } : state;
      case "EstateOwnershipTransferred":
        return state.status === "active"
          ? {
              ...state,
              owner_id: event.data.new_owner_id,
              previous_owner_id: event.data.previous_owner_id ?? state.previous_owner_id,
            }
          : state;
      case "EstateDeleted":
        return state.status === "active" ? { ...state, status: "deleted" } : state;
    }
  },
};
