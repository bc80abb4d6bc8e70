import type { TypeEvent, TypeKind } from "../../events/types.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError } from "../../platform/errors.ts";

export type TypeState =
  | { status: "absent" }
  | { status: "active"; kind: TypeKind; code: string; name: string };

/**
 * type_id is derived from (tenant, kind, code) by the route, so two concurrent creations of
 * the same code meet on one stream and the second fails its expected revision.
 * code_in_global_catalog: the global catalog already has this code for the kind.
 */
export type TypeCommand = {
  type: "CreateTenantType";
  type_id: string;
  kind: TypeKind;
  code: string;
  name: string;
  code_in_global_catalog: boolean;
};

const duplicate = (kind: TypeKind, code: string) =>
  new ApiError("Conflict", `A ${kind} type with code ${code} already exists`, [
    { field: "code", message: "Already used by another type of this kind" },
  ]);

export const typeDecider: Decider<TypeState, TypeCommand, TypeEvent> = {
  initialState: () => ({ status: "absent" }),

  evolve(_state, event) {
    switch (event.type) {
      case "TenantTypeCreated":
        return { status: "active", kind: event.data.kind, code: event.data.code, name: event.data.name };
    }
  },

  decide(command, state) {
    if (command.code_in_global_catalog || state.status !== "absent")
      throw duplicate(command.kind, command.code);
    return [
      {
        type: "TenantTypeCreated",
        data: { type_id: command.type_id, kind: command.kind, code: command.code, name: command.name },
      },
    ];
  },
};
