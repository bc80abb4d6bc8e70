import type { Decider } from "../decider.ts";
import { ApiError } from "../errors.ts";
import type { EventMetadata, EventStore, Position } from "../eventstore/eventStore.ts";
import { runCommand } from "../runCommand.ts";
import {
  QUARANTINE_RETRIED,
  QUARANTINE_SKIPPED,
  type QuarantineEvent,
  quarantineStream,
} from "./quarantine.ts";

/**
 * An operator's choice for a quarantined event, itself an event (docs/architecture.md,
 * "Quarantine"): `retry` applies it again (after a fix), `skip` drops it; either then applies
 * the events of its stream that waited behind it. The projector acts on it in log order.
 * `quarantined`: the fact that the event is in the projection's quarantine now.
 */
export interface QuarantineCommand {
  action: "retry" | "skip";
  projection: string;
  event_id: string;
  quarantined: boolean;
}

/** How many choices the event's stream holds (the stream only ever grows). */
type QuarantineState = { choices: number };

export const quarantineDecider: Decider<QuarantineState, QuarantineCommand, QuarantineEvent> = {
  initialState: () => ({ choices: 0 }),
  evolve: (state, event) => {
    switch (event.type) {
      case QUARANTINE_RETRIED:
      case QUARANTINE_SKIPPED:
        return { choices: state.choices + 1 };
    }
  },
  decide: (command) => {
    if (!command.quarantined) {
      throw new ApiError(
        "NotFound",
        `Quarantined event ${command.event_id} not found in projection ${command.projection}`,
      );
    }
    const data = { projection: command.projection, event_id: command.event_id };
    return [
      command.action === "retry" ? { type: QUARANTINE_RETRIED, data } : { type: QUARANTINE_SKIPPED, data },
    ];
  },
};

/** Appends the choice on the event's stream, in the quarantined event's tenant; its position. */
export async function chooseForQuarantined(
  store: EventStore,
  metadata: EventMetadata,
  command: QuarantineCommand,
): Promise<Position | null> {
  const result = await runCommand(
    { store, tenant_id: metadata.tenant_id, metadata },
    quarantineStream(command.projection, command.event_id),
    quarantineDecider,
    command,
  );
  return result.position;
}
