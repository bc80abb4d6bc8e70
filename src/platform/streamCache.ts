import type { RecordedEvent } from "./eventstore/eventStore.ts";

/** A stream as a command of this process last left it. */
export interface CachedStream {
  tenant_id: string;
  revision: bigint;
  state: unknown;
  events: RecordedEvent[];
}

/**
 * Streams as this process's commands last left them, so the next command on one decides without
 * reading it (docs/performance.md, "Lease status changes"). The append still checks the revision:
 * a stream another process or path wrote since fails the append, and `runCommand` reads it afresh;
 * a refusal judged on a cached state is judged again on the stream as read. Bounded: the least
 * recently used stream is dropped first once 50,000 events are held, and a long stream is not kept.
 */
export interface StreamCache {
  get(stream: string): CachedStream | undefined;
  /** Keeps `entry` unless a newer revision of the stream is already kept. */
  set(stream: string, entry: CachedStream): void;
  delete(stream: string): void;
}

export function streamCache(maxEvents = 50_000, maxStreamEvents = 500): StreamCache {
  const entries = new Map<string, CachedStream>();
  // Events held in all, the bound on memory (a lease event is a few kB at most).
  let held = 0;
  const drop = (stream: string) => {
    const kept = entries.get(stream);
    if (!kept) return;
    held -= kept.events.length;
    entries.delete(stream);
  };
  return {
    get(stream) {
      const found = entries.get(stream);
      if (found) {
        // Map order is insertion order: re-inserting marks it most recently used.
        entries.delete(stream);
        entries.set(stream, found);
      }
      return found;
    },
    set(stream, entry) {
      const kept = entries.get(stream);
      if (kept && kept.revision >= entry.revision) return;
      drop(stream);
      if (entry.events.length > maxStreamEvents) return;
      entries.set(stream, entry);
      held += entry.events.length;
      while (held > maxEvents) drop(entries.keys().next().value as string);
    },
    delete: drop,
  };
}

/**
 * One cache per event store (a test runs several services in one process): `of(store)` gives the
 * store's, made at first use. An area keeps one of these per kind of stream it caches.
 */
export function streamCachesPerStore(): (store: object) => StreamCache {
  const caches = new WeakMap<object, StreamCache>();
  return (store) => {
    let cache = caches.get(store);
    if (!cache) {
      cache = streamCache();
      caches.set(store, cache);
    }
    return cache;
  };
}
