import { type OwnerEvent, type OwnerFields, ownerFieldNames } from "../../events/owners.ts";
import { changedFields, type Decider } from "../../platform/decider.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { type CreateOwnerInput, ownerCategoryDetails, type UpdateOwnerInput } from "./schemas.ts";

export type OwnerState =
  | { status: "absent" }
  | { status: "active"; owner: OwnerFields }
  | { status: "deleted"; owner: OwnerFields };

export type OwnerCommand =
  | { type: "RegisterOwner"; owner_id: string; input: CreateOwnerInput }
  | { type: "UpdateOwner"; owner_id: string; input: UpdateOwnerInput }
  /** estate_count: estates the owner currently owns (estates read model). */
  | { type: "DeleteOwner"; owner_id: string; estate_count: number };

function checkCategory(owner: OwnerFields): void {
  const details = ownerCategoryDetails(owner);
  if (details.length > 0) throw validationError("Invalid owner data", details);
}

export const ownerDecider: Decider<OwnerState, OwnerCommand, OwnerEvent> = {
  initialState: () => ({ status: "absent" }),

  evolve(state, event) {
    switch (event.type) {
      case "OwnerRegistered": {
        const { owner_id: _, ...owner } = event.data;
        return { status: "active", owner };
      }
      case "OwnerUpdated":
        return state.status === "active"
          ? { status: "active", owner: { ...state.owner, ...event.data.changes } }
          : state;
      case "OwnerDeleted":
        return state.status === "active" ? { status: "deleted", owner: state.owner } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "RegisterOwner": {
        if (state.status !== "absent") throw conflict(`Owner ${command.owner_id} already exists`);
        const i = command.input;
        const owner: OwnerFields = {
          category: i.category,
          first_name: i.first_name ?? null,
          last_name: i.last_name ?? null,
          legal_name: i.legal_name ?? null,
          email: i.email,
          phone: i.phone ?? null,
          address_street: i.address_street ?? null,
          address_postal_code: i.address_postal_code ?? null,
          address_city: i.address_city ?? null,
          address_country: i.address_country ?? null,
          iban: i.iban ?? null,
          bic: i.bic ?? null,
          custom_fields: i.custom_fields ?? null,
        };
        checkCategory(owner);
        return [{ type: "OwnerRegistered", data: { owner_id: command.owner_id, ...owner } }];
      }
      case "UpdateOwner": {
        if (state.status !== "active") throw notFound("Owner", command.owner_id);
        const changes = changedFields(state.owner, command.input, ownerFieldNames);
        checkCategory({ ...state.owner, ...changes });
        return [{ type: "OwnerUpdated", data: { owner_id: command.owner_id, changes } }];
      }
      case "DeleteOwner": {
        if (state.status !== "active") throw notFound("Owner", command.owner_id);
        if (command.estate_count > 0) {
          throw conflict(`Cannot delete owner ${command.owner_id}: owns ${command.estate_count} estate(s)`);
        }
        return [{ type: "OwnerDeleted", data: { owner_id: command.owner_id } }];
      }
    }
  },
};
