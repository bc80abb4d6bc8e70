import {
  type AllStreamSubscription,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
} from "@eventstore/db-client";
import type { EventStore, Subscription } from "../eventStore.ts";
import { settleWrites } from "../settleWrites.ts";
import { appendToStream } from "./appendToStream.ts";
import { toClientConnectionString } from "./connectionString.ts";
import { isAmbiguousWriteError } from "./mapping.ts";
import { headPosition, readAll, scanMemory, streamsOf } from "./readAll.ts";
import { readStream } from "./readStream.ts";
import { subscribeToAll } from "./subscribeToAll.ts";

export interface EventStoreDbOptions {
  /**
   * The stream categories this service writes (`lessee` of `lessee-<id>`): `$all` is the whole
   * server's, other applications' events are skipped. Absent: every non-system stream.
   */
  categories?: readonly string[];
  /** Wake-up subscription restarts: the first pause, doubled after each failure up to maxMs. */
  backoff?: { initialMs: number; maxMs: number };
}

const BACKOFF = { initialMs: 1000, maxMs: 30_000 };

/**
 * The event store port over EventStoreDB (`esdb://...`). ESDB already orders $all and never
 * exposes uncommitted events, so each operation is a thin translation (see mapping.ts).
 * Takes a connection string, or a client (tests).
 */
export function createEventStoreDbEventStore(
  connection: string | EventStoreDBClient,
  options: EventStoreDbOptions = {},
): EventStore {
  const client =
    typeof connection === "string"
      ? EventStoreDBClient.connectionString(toClientConnectionString(connection))
      : connection;
  const ours = streamsOf(options.categories);
  const scanned = scanMemory();
  const channels = trackChannels(client);
  const backoff = options.backoff ?? BACKOFF;
  const listeners = new Set<() => void>();
  const subscriptions = new Set<Subscription>();
  let wakeUp: AllStreamSubscription | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = backoff.initialMs;

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
    if (wakeUp || retry || listeners.size === 0) return;
    const subscription = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    wakeUp = subscription;
    const healthy = () => {
      delay = backoff.initialMs;
    };
    subscription.on("confirmation", healthy);
    subscription.on("data", () => {
      healthy();
      notify();
    });
    // A live subscription has no end: the server closing it cleanly ('end'), failing ('error')
    // or the stream closing otherwise all mean no more wake-ups, so restart on any of them.
    const restart = () => {
      if (wakeUp !== subscription) return;
      wakeUp = undefined;
      subscription.destroy();
      // Events may have been missed while it was down: wake the listeners, then resubscribe.
      retry = setTimeout(() => {
        retry = undefined;
        notify();
        startWakeUp();
      }, delay);
      retry.unref();
      delay = Math.min(delay * 2, backoff.maxMs);
    };
    subscription.on("error", restart);
    subscription.on("end", restart);
    subscription.on("close", restart);
  };
  // Never rejects: callers run it unawaited (`void`), and close() must go on to dispose.
  const stopWakeUp = async () => {
    clearTimeout(retry);
    retry = undefined;
    const subscription = wakeUp;
    wakeUp = undefined;
    // unsubscribe() rejects when endpoint discovery failed (no call to cancel): destroy anyway.
    await subscription?.unsubscribe().catch(() => {});
    subscription?.destroy();
  };

  // A write whose outcome is unknown (deadline, connection lost) is settled by reading it back.
  return settleWrites(
    {
      engine: "eventstoredb",
      async appendToStream(stream_name, events, options) {
        // Data keys live in PostgreSQL here: the keyring stores them before the append.
        if (options.subject_keys?.length) throw new Error("EventStoreDB appends take no subject keys");
        const result = await appendToStream(client, stream_name, events, options);
        notify();
        return result;
      },
      readStream: (stream_name, options) => readStream(client, stream_name, options),
      readAll: (options) => readAll(client, options, ours, scanned),
      subscribeToAll(options, onEvent) {
        const inner = subscribeToAll(client, options, onEvent, ours);
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
      headPosition: () => headPosition(client, ours, scanned),
      async close() {
        listeners.clear();
        await Promise.allSettled([stopWakeUp(), ...[...subscriptions].map((s) => s.stop())]);
        await client.dispose();
        for (const channel of channels) channel.close();
      },
    },
    isAmbiguousWriteError,
    notify,
  );
}

/**
 * Client v6's dispose() cancels the calls in flight but leaves the gRPC channel connected
 * (client Client/index.js: nothing calls channel.close() outside reconnection). grpc-js unrefs an
 * idle connection, so the process can still exit, but the socket stays open until then. The
 * client creates channels only through its `createChannel` property: keep each one to close it.
 */
function trackChannels(client: EventStoreDBClient): Set<{ close(): void }> {
  const channels = new Set<{ close(): void }>();
  const internal = client as unknown as { createChannel?: () => Promise<{ close(): void }> };
  const create = internal.createChannel;
  if (typeof create !== "function") return channels;
  internal.createChannel = async () => {
    const channel = await create();
    channels.add(channel);
    return channel;
  };
  return channels;
}
