import {
  estateKeyResource,
  evolveHandover,
  type KeyDirection,
  type KeyHandover,
  type KeyHandoverEvent,
} from "../../events/estateKeys.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict } from "../../platform/errors.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** Key sets: plain records of the estate (the route has found the estate of the path). */
export const estateKeyDecider = resourceDecider(estateKeyResource);

export interface RecordHandover {
  type: "RecordKeyHandover";
  handover: KeyHandover;
}

const EVENT_OF: Record<KeyDirection, KeyHandoverEvent["type"]> = {
  HANDED_OVER: "KeysHandedOver",
  RETURNED: "KeysReturned",
};

/** A handover is a fact recorded once; the route checked the lease and the sets against the estate. */
export const handoverDecider: Decider<KeyHandover | null, RecordHandover, KeyHandoverEvent> = {
  initialState: () => null,
  evolve: evolveHandover,
  decide(command, state) {
    if (state !== null) throw conflict(`Key handover ${command.handover.handover_id} is already recorded`);
    return [{ type: EVENT_OF[command.handover.direction], data: command.handover }];
  },
};
