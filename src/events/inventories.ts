import { allEventTypes } from "../platform/decider.ts";
/**
 * The furniture inventory of a lease (docs/moving.md): one stream `lease_inventory-<lease id>`,
 * each recording replacing the one before. Its items are checked against décret n° 2015-981 art. 2
 * in the lease compliance report.
 */

export const inventoryStream = (leaseId: string) => `lease_inventory-${leaseId}`;

export interface InventoryItem {
  /** A code of décret 2015-981 art. 2 (src/law/furnishedInventory.ts) or OTHER. */
  item: string;
  quantity: number;
  description: string | null;
  room_name: string | null;
  condition: string | null;
}

export type InventoryEvent = {
  type: "InventoryRecorded";
  data: { lease_id: string; recorded_on: string; items: InventoryItem[] };
};

export const inventoryEventTypes = allEventTypes<InventoryEvent["type"]>()(["InventoryRecorded"]);
