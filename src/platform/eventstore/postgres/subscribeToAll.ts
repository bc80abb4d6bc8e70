import type { ReadAllOptions, RecordedEvent, Subscription } from "../eventStore.ts";

/**
 * Catch-up then live: reads pages after the last delivered position and, when caught up,
 * sleeps until a wake-up (in-process append or LISTEN) or a 1 s safety poll.
 */
export function subscribeToAll(
  read: (options: ReadAllOptions) => Promise<RecordedEvent[]>,
  onAppended: (listener: () => void) => () => void,
  options: ReadAllOptions,
  onEvent: (event: RecordedEvent) => Promise<void> | void,
): Subscription {
  let stopped = false;
  let after = options.after;
  let wake: (() => void) | null = null;
  const unsubscribe = onAppended(() => wake?.());
  const done = (async () => {
    while (!stopped) {
      let page: RecordedEvent[] = [];
      try {
        page = await read({ after, max_count: options.max_count ?? 500 });
        for (const event of page) {
          if (stopped) return;
          await onEvent(event);
          after = event.position;
        }
      } catch {
        // A failed read or handler: offer the same event again after a pause, never skip it.
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (page.length === 0 && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      unsubscribe();
      await done.catch(() => {});
    },
  };
}
