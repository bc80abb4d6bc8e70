import { setTimeout as sleep } from "node:timers/promises";
import {
  type AllStreamSubscription,
  type EventStoreDBClient,
  excludeSystemEvents,
} from "@eventstore/db-client";
import {
  comparePositions,
  type ReadAllOptions,
  type RecordedEvent,
  type Subscription,
} from "../eventStore.ts";
import { toReadPosition } from "./mapping.ts";
import { type OurStreams, userEvent } from "./readAll.ts";

/** Pause before resubscribing after a drop, so a down server is not hammered. */
const RETRY_MS = 1000;

/**
 * Catch-up then live delivery from ESDB's catch-up subscription, filtered server-side to user
 * events. `for await` hands over one event at a time and waits for the handler (backpressure),
 * so delivery is in log order. If the subscription drops or the handler throws, it resubscribes
 * after the last event delivered: nothing is skipped, the failed event is offered again.
 */
export function subscribeToAll(
  client: EventStoreDBClient,
  options: ReadAllOptions,
  onEvent: (event: RecordedEvent) => Promise<void> | void,
  ours?: OurStreams,
): Subscription {
  let after = options.after && options.after.commit >= 0n ? options.after : undefined;
  let current: AllStreamSubscription | undefined;
  let stopped = false;

  const run = async () => {
    while (!stopped) {
      const subscription = client.subscribeToAll({
        fromPosition: toReadPosition(after),
        filter: excludeSystemEvents(),
      });
      current = subscription;
      try {
        for await (const resolved of subscription) {
          if (stopped) break;
          const event = userEvent(resolved, ours);
          // Whether the server's start is inclusive or not, never deliver `after` or earlier twice.
          if (!event || (after && comparePositions(event.position, after) <= 0)) continue;
          await onEvent(event);
          after = event.position;
        }
      } catch (error) {
        if (stopped) break;
        process.emitWarning(`EventStoreDB subscription failed, resubscribing: ${(error as Error).message}`);
      } finally {
        // Leaving `for await` destroys only the local stream: cancel the gRPC call too.
        if (!stopped) await subscription.unsubscribe().catch(() => {});
      }
      if (!stopped) await sleep(RETRY_MS);
    }
  };
  const done = run();

  return {
    async stop() {
      stopped = true;
      const subscription = current;
      // unsubscribe() awaits the call's creation, which rejects when endpoint discovery failed
      // (esdb+discover:// or several hosts; client Client/index.js resolveUri): there is then
      // no call to cancel, and the cleanup below must still run.
      await subscription?.unsubscribe().catch(() => {});
      // Ends the `for await` even if the cancelled gRPC stream never closes its pipe.
      subscription?.destroy();
      await done;
    },
  };
}
