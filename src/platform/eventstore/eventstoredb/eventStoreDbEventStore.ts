import {
  type AllStreamSubscription,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
} from "@eventstore/db-client";
import type { EventStore, Subscription } from "../eventStore.ts";
import { appendToStream } from "./appendToStream.ts";
import { headPosition, readAll } from "./readAll.ts";
import { readStream } from "./readStream.ts";
import { subscribeToAll } from "./subscribeToAll.ts";

/**
 * The event store port over EventStoreDB (`esdb://...`). ESDB already orders $all and never
 * exposes uncommitted events, so each operation is a thin translation (see mapping.ts).
 */
export function createEventStoreDbEventStore(connectionString: string): EventStore {
  const client = EventStoreDBClient.connectionString(connectionString);
  const listeners = new Set<() => void>();
  const subscriptions = new Set<Subscription>();
  let wakeUp: AllStreamSubscription | undefined;

  const notify = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // A wake-up is a hint; one listener's failure must not starve the others.
      }
    }
  };

  // Appends by other instances reach this one only through the server: a live subscription from
  // the end, started with the first listener, turns every new user event into a wake-up.
  const startWakeUp = () => {
    if (wakeUp || listeners.size === 0) return;
    const subscription = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    wakeUp = subscription;
    subscription.on("data", notify);
    subscription.on("error", () => {
      if (wakeUp !== subscription) return;
      wakeUp = undefined;
      subscription.destroy();
      // Events may have been missed while it was down: wake the listeners, then resubscribe.
      setTimeout(() => {
        notify();
        startWakeUp();
      }, 1000).unref();
    });
  };
  const stopWakeUp = async () => {
    const subscription = wakeUp;
    wakeUp = undefined;
    await subscription?.unsubscribe();
    subscription?.destroy();
  };

  return {
    engine: "eventstoredb",
    async appendToStream(stream_name, events, options) {
      const result = await appendToStream(client, stream_name, events, options);
      notify();
      return result;
    },
    readStream: (stream_name, options) => readStream(client, stream_name, options),
    readAll: (options) => readAll(client, options),
    subscribeToAll(options, onEvent) {
      const inner = subscribeToAll(client, options, onEvent);
      const subscription: Subscription = {
        async stop() {
          subscriptions.delete(subscription);
          await inner.stop();
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },
    onAppended(listener) {
      listeners.add(listener);
      startWakeUp();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) void stopWakeUp();
      };
    },
    headPosition: () => headPosition(client),
    async close() {
      listeners.clear();
      await Promise.all([stopWakeUp(), ...[...subscriptions].map((s) => s.stop())]);
      await client.dispose();
    },
  };
}
