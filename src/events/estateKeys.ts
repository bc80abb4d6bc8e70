import { z } from "zod";
import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";
import { text } from "../platform/http/schemas.ts";
import { defineResource, type ResourceEvent } from "../platform/resource/resource.ts";

/**
 * The keys of an estate (docs/design.md §7.3, docs/moving.md "Keys"): its key sets (stream
 * `estate_key-<uuid>`, one per kind: "front door", "letter box", "badge"), and each handover to or
 * return from a lease's tenants (stream `key_handover-<uuid>`, written once).
 */
export const estateKeyResource = defineResource({
  name: "key",
  stream: (id) => `estate_key-${id}`,
  label: "EstateKey",
  table: "estate_keys",
  path: "/api/estates/:estate_id/keys",
  tag: "Moving in and out",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  parent: "estate",
  fields: {
    kind: text(100),
    count: z.number().int("Must be an integer").min(1).max(1000),
    opens: text(500).nullish(),
  },
  events: { created: "EstateKeySetAdded", updated: "EstateKeySetUpdated", deleted: "EstateKeySetRemoved" },
  commands: { create: "AddEstateKeySet", update: "UpdateEstateKeySet", delete: "RemoveEstateKeySet" },
  summaries: { list: "List the key sets of an estate", create: "Add a key set to an estate" },
  invalidBodyMessage: "Invalid key set",
});

export type EstateKeyEvent = ResourceEvent<typeof estateKeyResource>;

export const keyHandoverStream = (id: string) => `key_handover-${id}`;
export const KEY_DIRECTIONS = ["HANDED_OVER", "RETURNED"] as const;
export type KeyDirection = (typeof KEY_DIRECTIONS)[number];

export interface KeyHandover {
  handover_id: string;
  estate_id: string;
  lease_id: string;
  direction: KeyDirection;
  on: string;
  sets: { kind: string; count: number }[];
}

export type KeyHandoverEvent =
  | DomainEvent<"KeysHandedOver", KeyHandover>
  | DomainEvent<"KeysReturned", KeyHandover>;
export const keyHandoverEventTypes = allEventTypes<KeyHandoverEvent["type"]>()([
  "KeysHandedOver",
  "KeysReturned",
]);

/** A handover is written once: the state is whether it exists. */
export const evolveHandover = (_state: KeyHandover | null, event: KeyHandoverEvent): KeyHandover | null => {
  switch (event.type) {
    case "KeysHandedOver":
    case "KeysReturned":
      return event.data;
  }
};
