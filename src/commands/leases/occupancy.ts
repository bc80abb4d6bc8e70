import { randomUUID } from "node:crypto";
import {
  type LeaseEvent,
  leaseStream,
  OCCUPYING_STATUSES,
  type OccupancyEvent,
  occupancyStream,
} from "../../events/leases.ts";
import { conflict } from "../../platform/errors.ts";
import type {
  EventMetadata,
  EventStore,
  NewEvent,
  Position,
  StreamWrite,
} from "../../platform/eventstore/eventStore.ts";
import { loadStream } from "../../platform/http/handleCommand.ts";
import { leaseDecider } from "./decider.ts";

/**
 * One occupying lease per estate (DESIGN.md §1, docs/leases.md): an activation appends
 * EstateOccupancyReserved to `lease_occupancy-<estate>` at its expected revision, a terminal
 * status appends EstateOccupancyReleased. Both go in one commit with the lease's own event where
 * the engine has multi-stream appends; elsewhere the reservation goes first, and a reservation
 * whose lease does not occupy the estate (its activation failed or crashed) is stale and may be
 * taken over. Kept small and in this area so it can move onto a platform reservation mechanism.
 */

interface Occupancy {
  revision: bigint | null;
  holder: string | null;
  lease_revision: number;
}

async function readOccupancy(store: EventStore, estateId: string): Promise<Occupancy> {
  const occupancy: Occupancy = { revision: null, holder: null, lease_revision: -1 };
  for (const e of await store.readStream(occupancyStream(estateId))) {
    occupancy.revision = e.stream_revision;
    const event = { type: e.type, data: e.data } as OccupancyEvent;
    if (event.type === "EstateOccupancyReserved") {
      occupancy.holder = event.data.lease_id;
      occupancy.lease_revision = event.data.lease_revision;
    } else if (event.data.lease_id === occupancy.holder) occupancy.holder = null;
  }
  return occupancy;
}

/** Whether the holder still occupies the estate, or may be about to (its activation in flight). */
async function binds(store: EventStore, tenantId: string, occupancy: Occupancy): Promise<boolean> {
  const holder = await loadStream(store, leaseStream(occupancy.holder!), tenantId, leaseDecider);
  if (holder.foreign) return true;
  const status = holder.state.status as string;
  if (OCCUPYING_STATUSES.some((s) => s === status)) return true;
  return holder.revision !== null && Number(holder.revision) === occupancy.lease_revision;
}

const toNew = (events: { type: string; data: unknown }[], metadata: EventMetadata): NewEvent[] =>
  events.map((e) => ({ event_id: randomUUID(), type: e.type, data: e.data, metadata }));

/**
 * Appends the lease's new events at `leaseRevision`, with the occupancy write they imply.
 * Throws WrongExpectedRevisionError when either stream moved (the caller retries on fresh
 * state), 409 when another lease occupies the estate.
 */
export async function appendWithOccupancy(
  store: EventStore,
  input: {
    lease_id: string;
    estate_id: string;
    tenant_id: string;
    lease_revision: bigint | null;
    events: LeaseEvent[];
    metadata: EventMetadata;
  },
): Promise<{ revision: bigint; position: Position }> {
  const leaseWrite: StreamWrite = {
    stream_name: leaseStream(input.lease_id),
    events: toNew(input.events, input.metadata),
    expected_revision: input.lease_revision ?? "no_stream",
  };
  const occupancyWrite = await occupancyChange(store, input);
  if (!occupancyWrite) {
    const r = await store.appendToStream(leaseWrite.stream_name, leaseWrite.events, leaseWrite);
    return { revision: r.next_revision, position: r.position };
  }
  if (store.appendToStreams) {
    const [r] = await store.appendToStreams([leaseWrite, occupancyWrite]);
    return { revision: r.next_revision, position: r.position };
  }
  await store.appendToStream(occupancyWrite.stream_name, occupancyWrite.events, occupancyWrite);
  const r = await store.appendToStream(leaseWrite.stream_name, leaseWrite.events, leaseWrite);
  return { revision: r.next_revision, position: r.position };
}

async function occupancyChange(
  store: EventStore,
  input: Parameters<typeof appendWithOccupancy>[1],
): Promise<StreamWrite | null> {
  const activates = input.events.some((e) => e.type === "LeaseActivated");
  const ends = input.events.some((e) => e.type === "LeaseTerminated" || e.type === "LeaseExpired");
  if (!activates && !ends) return null;
  const occupancy = await readOccupancy(store, input.estate_id);
  let event: OccupancyEvent;
  if (activates) {
    if (occupancy.holder !== null && occupancy.holder !== input.lease_id) {
      if (await binds(store, input.tenant_id, occupancy))
        throw conflict(
          `Estate ${input.estate_id} already has an occupying lease (${occupancy.holder}); terminate it first`,
        );
    }
    event = {
      type: "EstateOccupancyReserved",
      data: {
        estate_id: input.estate_id,
        lease_id: input.lease_id,
        lease_revision: input.lease_revision === null ? -1 : Number(input.lease_revision),
      },
    };
  } else {
    if (occupancy.holder !== input.lease_id) return null;
    event = {
      type: "EstateOccupancyReleased",
      data: { estate_id: input.estate_id, lease_id: input.lease_id },
    };
  }
  return {
    stream_name: occupancyStream(input.estate_id),
    events: toNew([event], input.metadata),
    expected_revision: occupancy.revision ?? "no_stream",
  };
}
