/**
 * Concurrent look-ups of one kind in one statement per group (a tenant): while a look-up is out
 * for a group, the keys asked meanwhile wait and then go together. A lone look-up goes at once (no
 * timer). A waiting look-up is sent after it was asked, so it sees at least what it would have
 * seen alone. The lease notice's zone look-up uses it (docs/performance.md, "Grouped appends").
 */
export function groupReads<V>(
  read: (group: string, keys: string[]) => Promise<Map<string, V>>,
): (group: string, key: string) => Promise<V | undefined> {
  interface Waiter {
    resolve(value: V | undefined): void;
    reject(error: unknown): void;
  }
  const groups = new Map<string, { waiting: Map<string, Waiter[]> }>();

  const send = (group: string, state: { waiting: Map<string, Waiter[]> }) => {
    const asked = state.waiting;
    state.waiting = new Map();
    Promise.resolve()
      .then(() => read(group, [...asked.keys()]))
      .then(
        (found) => {
          for (const [key, waiters] of asked) for (const w of waiters) w.resolve(found.get(key));
        },
        (error: unknown) => {
          for (const waiters of asked.values()) for (const w of waiters) w.reject(error);
        },
      )
      .finally(() => {
        if (state.waiting.size > 0) send(group, state);
        else groups.delete(group);
      });
  };

  return (group, key) =>
    new Promise<V | undefined>((resolve, reject) => {
      let state = groups.get(group);
      const idle = !state;
      if (!state) {
        state = { waiting: new Map() };
        groups.set(group, state);
      }
      const waiters = state.waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      state.waiting.set(key, waiters);
      if (idle) send(group, state);
    });
}
