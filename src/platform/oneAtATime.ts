/**
 * Runs the works of one key one at a time in this process, in call order (a failure does not stop
 * the next). For writes to one hot stream: concurrent writers would all read the same revision and
 * all but one retry, round after round. Other processes still race, through the expected revision.
 */
const queues = new Map<string, Promise<unknown>>();

export function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  const mine = before.then(work, work);
  const tail = mine.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return mine;
}
