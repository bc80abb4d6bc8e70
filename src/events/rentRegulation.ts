import { allEventTypes, type DomainEvent } from "../platform/decider.ts";
import { deterministicUuid } from "../platform/ids.ts";

/**
 * Rent regulation data (docs/rent-regulation.md): the IRL (indice de référence des loyers, INSEE)
 * per quarter, platform-wide, and per place the high-demand-zone flag and the reference rents of
 * rent control, with an estate's own override.
 */

/** A quarter written `2025-Q2`. */
export const QUARTER_RE = /^(\d{4})-Q([1-4])$/;

/** IRL events are platform data, not a tenant's: their metadata carries this tenant id. */
export const PLATFORM_TENANT_ID = "00000000-0000-0000-0000-000000000000";

/** Construction periods of the rent-control orders (arrêtés préfectoraux, Paris's four). */
export const CONSTRUCTION_PERIODS = ["BEFORE_1946", "1946_1970", "1971_1990", "AFTER_1990"] as const;
export type ConstructionPeriod = (typeof CONSTRUCTION_PERIODS)[number];

/**
 * One line of a rent-control order, in euros per m² of living area per month: the reference rent
 * and the increased reference (+20 %, the ceiling of a new lease, loi ELAN art. 140), for a number
 * of main rooms (4 = four or more), a construction period, furnished or not.
 */
export interface ReferenceRent {
  rooms: number;
  construction_period: ConstructionPeriod;
  furnished: boolean;
  reference: number;
  increased_reference: number;
}

/** The rent regulation of a place, or an estate's override of its place's. */
export interface RentRegulationFields {
  high_demand_zone: boolean;
  reference_rents: ReferenceRent[];
  /** The order fixing the reference rents, e.g. "Arrêté préfectoral n° 75-2025-06-17-00003". */
  order_reference: string | null;
  /** The day the reference rents apply from. */
  effective_from: string | null;
}

export type RentRegulationEvent =
  /** Stream `irl-<uuid of the quarter>`; metadata tenant PLATFORM_TENANT_ID. */
  | DomainEvent<"IrlValuePublished", { quarter: string; value: number; published_on: string | null }>
  /** Stream `place_rent_regulation-<place_id>`. */
  | DomainEvent<"PlaceRentRegulationSet", { place_id: string } & RentRegulationFields>
  /** Stream `estate_rent_regulation-<estate_id>`. */
  | DomainEvent<"EstateRentRegulationSet", { estate_id: string } & RentRegulationFields>
  | DomainEvent<"EstateRentRegulationRemoved", { estate_id: string }>;

export type RentRegulationEventType = RentRegulationEvent["type"];
/** Each stream's types, types of the union; the three lists together name every type of it. */
export const irlEventTypes = ["IrlValuePublished"] as const satisfies readonly RentRegulationEventType[];
export const placeRentRegulationEventTypes = [
  "PlaceRentRegulationSet",
] as const satisfies readonly RentRegulationEventType[];
export const estateRentRegulationEventTypes = [
  "EstateRentRegulationSet",
  "EstateRentRegulationRemoved",
] as const satisfies readonly RentRegulationEventType[];
allEventTypes<RentRegulationEventType>()([
  ...irlEventTypes,
  ...placeRentRegulationEventTypes,
  ...estateRentRegulationEventTypes,
]);

export const irlId = (quarter: string) => deterministicUuid("irl", quarter);
export const irlStream = (quarter: string) => `irl-${irlId(quarter)}`;
export const placeRentRegulationStream = (placeId: string) => `place_rent_regulation-${placeId}`;
export const estateRentRegulationStream = (estateId: string) => `estate_rent_regulation-${estateId}`;
