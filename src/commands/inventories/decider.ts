import type { InventoryEvent, InventoryItem } from "../../events/inventories.ts";
import type { Decider } from "../../platform/decider.ts";

/** The route has found the lease (404 otherwise); each recording replaces the inventory before. */
export interface RecordInventory {
  type: "RecordInventory";
  lease_id: string;
  recorded_on: string;
  items: InventoryItem[];
}

export const inventoryDecider: Decider<{ recorded: boolean }, RecordInventory, InventoryEvent> = {
  initialState: () => ({ recorded: false }),
  evolve: (_state, event) => {
    switch (event.type) {
      case "InventoryRecorded":
        return { recorded: true };
    }
  },
  decide: (command) => [
    {
      type: "InventoryRecorded",
      data: { lease_id: command.lease_id, recorded_on: command.recorded_on, items: command.items },
    },
  ],
};
