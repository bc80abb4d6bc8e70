import { fold } from "../platform/decider.ts";
import { conflict } from "../platform/errors.ts";
import type { RecordedEvent } from "../platform/eventstore/eventStore.ts";
import type { Reserving, Uniqueness } from "../platform/reserveUnique.ts";
import {
  type LeaseEvent,
  leaseStream,
  OCCUPYING_STATUSES,
  type OccupancyEvent,
  occupancyStream,
} from "./leases.ts";
import { ABSENT_LEASE, evolveLease, type LeaseViewState } from "./leaseView.ts";

/**
 * One occupying lease per estate (docs/design.md §1, docs/leases.md) on the platform's reservation
 * mechanism (src/platform/reserveUnique.ts): key the estate id, holder the lease, stream
 * `lease_occupancy-<estate>`. An activation reserves the estate in the same commit as
 * `LeaseActivated`; `LeaseTerminated`/`LeaseExpired` release it. A reservation whose lease no
 * longer occupies the estate is stale and is taken over. Here with the lease fold, as both the
 * leases area and the signing area (its activation on the last signature) append activations.
 */
export const estateOccupancy: Uniqueness = {
  // Estate ids are UUIDs of one tenant: the stream needs no tenant prefix.
  stream: (_tenantId, estateId) => occupancyStream(estateId),
  holderStream: leaseStream,
  holds(events, estateId) {
    const state = fold(
      { initialState: () => ABSENT_LEASE, evolve: evolveLease },
      events as RecordedEvent<LeaseEvent>[],
    );
    return (
      "terms" in state &&
      state.terms.estate_id === estateId &&
      OCCUPYING_STATUSES.some((s) => s === state.status)
    );
  },
  reserved: (lease_id, estate_id, lease_revision): OccupancyEvent => ({
    type: "EstateOccupancyReserved",
    data: { estate_id, lease_id, lease_revision },
  }),
  released: (lease_id, estate_id): OccupancyEvent => ({
    type: "EstateOccupancyReleased",
    data: { estate_id, lease_id },
  }),
  read(event) {
    const e = event as OccupancyEvent;
    if (e.type === "EstateOccupancyReserved")
      return { reserved: e.data.lease_id, holder_revision: e.data.lease_revision };
    if (e.type === "EstateOccupancyReleased") return { released: e.data.lease_id };
    return null;
  },
  abandoned() {
    // Only a lease that exists (revision >= 0) is ever activated, so its stream is never missing.
    throw new Error("An occupancy reservation is never made for a lease stream that does not exist");
  },
  taken: (fields) =>
    conflict(
      "The estate already has an occupying lease (ACTIVE, NOTICE or FINALISATION); terminate it first",
      fields.map((field) => ({ field, message: "Estate occupied by another lease" })),
    ),
  grace_ms: 0,
};

/** The occupancy a lease's new events take or give up (for `runCommand`'s `reserving`). */
export const estateOccupancyOf =
  (leaseId: string) =>
  (before: LeaseViewState, events: LeaseEvent[]): Reserving | null => {
    if (!("terms" in before)) return null;
    const estateId = before.terms.estate_id;
    const activates = events.some((e) => e.type === "LeaseActivated");
    const ends = events.some((e) => e.type === "LeaseTerminated" || e.type === "LeaseExpired");
    if (!activates && !ends) return null;
    return {
      uniqueness: estateOccupancy,
      holder_id: leaseId,
      reserve: activates ? [{ key: estateId, field: "estate_id" }] : [],
      release: ends ? [estateId] : [],
    };
  };
