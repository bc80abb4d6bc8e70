import {
  ESTATE_CONTRACT_FIELDS,
  type EstateDetails,
  type EstateEvent,
  type EstateState,
  estateFold,
} from "../../events/estates.ts";
import { changedFields, type Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import { notInPlace } from "../../queries/estates.ts";
import type { CreateEstateInput, UpdateEstateInput } from "../../queries/estatesSchemas.ts";

/** Facts the route looked up in read models; a missing fact counts as "does not exist". */
export interface EstateFacts {
  estate_type_exists?: boolean;
  owner_exists?: boolean;
  /** The place named by `place_id` in a flat PUT (a move). */
  target_place_exists?: boolean;
}

export type EstateCommand =
  | ({
      type: "CreateEstate";
      estate_id: string;
      /** The place of the path, which the route found. */
      place_id: string;
      input: CreateEstateInput;
    } & EstateFacts)
  | ({
      type: "UpdateEstate";
      estate_id: string;
      /** The place of a nested path, or null for PUT /api/estates/{id}. */
      path_place_id: string | null;
      input: UpdateEstateInput;
      /** From the estates read model: rent_amount is the landlord's to set only while VACANT. */
      rental_status: string;
      /** The rent shown by the read model (the lease's while RENTED or NOTICE). */
      effective_rent_amount: number | null;
      now: string;
    } & EstateFacts)
  | {
      type: "DeleteEstate";
      estate_id: string;
      /** The place of a nested path, or null for DELETE /api/estates/{id}. */
      path_place_id: string | null;
      room_count: number;
      /** Leases of the estate not TERMINATED or EXPIRED (estate_lease_status read model). */
      open_lease_count: number;
    };

export const estateDetailNames = [
  "name",
  "estate_type_id",
  "area",
  "number_of_room",
  "orientation",
  "building",
  "floor",
  "lot_number",
  "fiscal_identifier",
  "housing_tax",
  "property_tax",
  "acquisition_price",
  "rent_amount",
  "construction_date",
  "renovation_date",
  "address",
  "other_detail",
  ...ESTATE_CONTRACT_FIELDS,
] as const satisfies readonly (keyof EstateDetails)[];

function throwIfAny(details: ErrorDetail[]): void {
  if (details.length > 0) throw validationError("Invalid estate data", details);
}

/** Loads the active estate of the path, checking it belongs to the path place when there is one. */
function activeEstate(state: EstateState, estateId: string, pathPlaceId: string | null) {
  if (state.status !== "active") throw notFound("Estate", estateId);
  if (pathPlaceId !== null && state.place_id !== pathPlaceId) throw notInPlace(estateId, pathPlaceId);
  return state;
}

export const estateDecider: Decider<EstateState, EstateCommand, EstateEvent> = {
  ...estateFold,

  decide(command, state) {
    switch (command.type) {
      case "CreateEstate":
        return create(command, state);
      case "UpdateEstate":
        return update(command, state);
      case "DeleteEstate": {
        const estate = activeEstate(state, command.estate_id, command.path_place_id);
        const blockers: string[] = [];
        if (command.room_count > 0) blockers.push(`${command.room_count} room(s)`);
        if (command.open_lease_count > 0)
          blockers.push(`${command.open_lease_count} lease(s) not terminated`);
        if (blockers.length > 0) {
          throw conflict(`Cannot delete estate ${command.estate_id}: it has ${blockers.join(" and ")}`);
        }
        return [{ type: "EstateDeleted", data: { estate_id: command.estate_id, place_id: estate.place_id } }];
      }
    }
  },
};

function create(
  command: Extract<EstateCommand, { type: "CreateEstate" }>,
  state: EstateState,
): EstateEvent[] {
  if (state.status !== "absent") throw conflict(`Estate ${command.estate_id} already exists`);
  const i = command.input;
  const details: ErrorDetail[] = [];
  if (i.place_id !== undefined && i.place_id !== command.place_id) {
    details.push({ field: "place_id", message: `Must be the place of the path (${command.place_id})` });
  }
  if (!command.estate_type_exists) {
    details.push({ field: "estate_type_id", message: `Estate type ${i.estate_type_id} does not exist` });
  }
  if (i.owner_id && !command.owner_exists) {
    details.push({ field: "owner_id", message: `Owner ${i.owner_id} does not exist` });
  }
  throwIfAny(details);
  return [
    {
      type: "EstateCreated",
      data: {
        estate_id: command.estate_id,
        place_id: command.place_id,
        owner_id: i.owner_id ?? null,
        name: i.name,
        estate_type_id: i.estate_type_id,
        area: i.area,
        number_of_room: i.number_of_room ?? null,
        orientation: i.orientation ?? null,
        building: i.building ?? null,
        floor: i.floor ?? null,
        lot_number: i.lot_number ?? null,
        fiscal_identifier: i.fiscal_identifier,
        housing_tax: i.housing_tax ?? null,
        property_tax: i.property_tax ?? null,
        acquisition_price: i.acquisition_price ?? null,
        rent_amount: i.rent_amount ?? null,
        construction_date: i.construction_date ?? null,
        renovation_date: i.renovation_date ?? null,
        address: i.address ?? null,
        other_detail: i.other_detail ?? null,
        ...Object.fromEntries(ESTATE_CONTRACT_FIELDS.map((f) => [f, i[f] ?? null])),
      },
    },
  ];
}

function update(
  command: Extract<EstateCommand, { type: "UpdateEstate" }>,
  state: EstateState,
): EstateEvent[] {
  const estate = activeEstate(state, command.estate_id, command.path_place_id);
  const i = command.input;
  const details: ErrorDetail[] = [];
  const moveTo = i.place_id !== undefined && i.place_id !== estate.place_id ? i.place_id : null;
  if (moveTo !== null) {
    if (command.path_place_id !== null) {
      details.push({
        field: "place_id",
        message: `Differs from the place of the path; move an estate with PUT /api/estates/${command.estate_id}`,
      });
    } else if (!command.target_place_exists) {
      details.push({ field: "place_id", message: `Place ${moveTo} does not exist` });
    }
  }
  const changes = changedFields(estate.details, i, estateDetailNames);
  // While a lease sets the rent, sending back the rent shown by a GET is not a change.
  if (command.rental_status !== "VACANT" && i.rent_amount === command.effective_rent_amount) {
    delete changes.rent_amount;
  }
  if (changes.estate_type_id !== undefined && !command.estate_type_exists) {
    details.push({
      field: "estate_type_id",
      message: `Estate type ${changes.estate_type_id} does not exist`,
    });
  }
  const ownerChanges = i.owner_id !== undefined && i.owner_id !== estate.owner_id;
  if (ownerChanges && i.owner_id !== null && !command.owner_exists) {
    details.push({ field: "owner_id", message: `Owner ${i.owner_id} does not exist` });
  }
  throwIfAny(details);
  if (changes.rent_amount !== undefined && command.rental_status !== "VACANT") {
    // A RENTED or NOTICE estate's rent follows its lease: a change here would be overwritten.
    throw conflict(
      `rent_amount follows the lease in force while the estate is ${command.rental_status}; change the rent on the lease`,
      [{ field: "rent_amount", message: "Settable only while the estate is VACANT" }],
    );
  }

  const events: EstateEvent[] = [];
  if (moveTo !== null) {
    events.push({
      type: "EstateMoved",
      data: { estate_id: command.estate_id, from_place_id: estate.place_id, to_place_id: moveTo },
    });
  }
  if (ownerChanges) {
    events.push({
      type: "EstateOwnershipTransferred",
      data: {
        estate_id: command.estate_id,
        previous_owner_id: estate.owner_id,
        new_owner_id: i.owner_id ?? null,
        transferred_at: command.now,
      },
    });
  }
  events.push({ type: "EstateUpdated", data: { estate_id: command.estate_id, changes } });
  return events;
}
