import type { ReadAllOptions, RecordedEvent, Subscription } from "../eventStore.ts";

interface Sleeper {
  wake: () => void;
  /** An idle wait ends on an append; the pause after an error only on stop. */
  onAppend: boolean;
}

/**
 * Catch-up then live: reads pages after the last delivered position and, when caught up,
 * sleeps until a wake-up (in-process append or LISTEN) or a 1 s safety poll. Wake-ups are
 * counted, so one arriving between a read and the sleep is not lost (docs/performance.md).
 */
export function subscribeToAll(
  read: (options: ReadAllOptions) => Promise<RecordedEvent[]>,
  onAppended: (listener: () => void) => () => void,
  options: ReadAllOptions,
  onEvent: (event: RecordedEvent) => Promise<void> | void,
): Subscription {
  let stopped = false;
  let after = options.after;
  let appends = 0;
  const sleepers = new Set<Sleeper>();
  const sleep = (ms: number, onAppend: boolean) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const sleeper: Sleeper = {
        onAppend,
        wake: () => {
          clearTimeout(timer);
          sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.wake, ms);
      sleepers.add(sleeper);
    });
  const unsubscribe = onAppended(() => {
    appends++;
    for (const s of sleepers) if (s.onAppend) s.wake();
  });
  const done = (async () => {
    while (!stopped) {
      const seen = appends;
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
        await sleep(1000, false);
        continue;
      }
      if (page.length === 0 && appends === seen) await sleep(1000, true);
    }
  })();
  return {
    async stop() {
      stopped = true;
      for (const s of sleepers) s.wake();
      unsubscribe();
      await done.catch(() => {});
    },
  };
}
