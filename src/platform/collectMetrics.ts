import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { EventStore } from "./eventstore/eventStore.ts";
import type { Platform } from "./platform.ts";
import { loadCheckpoint } from "./projections/checkpoints.ts";

/**
 * Prometheus metrics (docs/operations.md, "Metrics"). Counters and histograms are recorded where
 * things happen and live in one registry per process; gauges (projection lag, pool, queues) are
 * read from a platform at scrape time.
 */
export const registry = new Registry();

const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  requestSeconds: new Histogram({
    name: "pms_http_request_duration_seconds",
    help: "HTTP request durations by route pattern, method and status",
    labelNames: ["route", "method", "status"] as const,
    buckets: seconds,
    registers: [registry],
  }),
  appends: new Counter({
    name: "pms_event_appends_total",
    help: "Appends to the event store (one per call, single or multi-stream), by outcome",
    labelNames: ["kind", "outcome"] as const,
    registers: [registry],
  }),
  appendedEvents: new Counter({
    name: "pms_events_appended_total",
    help: "Events appended to the event store",
    registers: [registry],
  }),
  appendSeconds: new Histogram({
    name: "pms_event_append_duration_seconds",
    help: "Latency of event store appends, by kind (stream, streams)",
    labelNames: ["kind"] as const,
    buckets: seconds,
    registers: [registry],
  }),
  readYourWritesSeconds: new Histogram({
    name: "pms_read_your_writes_wait_seconds",
    help: "How long commands waited for the projections to pass their append, by outcome (seen, timeout)",
    labelNames: ["outcome"] as const,
    buckets: seconds,
    registers: [registry],
  }),
  skippedEvents: new Counter({
    name: "pms_events_skipped_total",
    help: "Events of the log the projectors skip: not this service's (another stream category) or not decodable",
    labelNames: ["reason"] as const,
    registers: [registry],
  }),
  quarantinedEvents: new Counter({
    name: "pms_projection_events_quarantined_total",
    help: 'Events a projection could not apply and set aside for their tenant (docs/operations.md, "Quarantine")',
    labelNames: ["projection"] as const,
    registers: [registry],
  }),
  accepted: new Counter({
    name: "pms_http_accepted_total",
    help: "Commands answered 202 because their read model was not ready in time",
    registers: [registry],
  }),
};

/** The store with every append counted and timed. */
export function instrumentStore(store: EventStore): EventStore {
  const timed = async <T>(kind: string, events: number, append: () => Promise<T>): Promise<T> => {
    const stop = metrics.appendSeconds.startTimer({ kind });
    try {
      const result = await append();
      metrics.appends.inc({ kind, outcome: "ok" });
      metrics.appendedEvents.inc(events);
      return result;
    } catch (error) {
      metrics.appends.inc({ kind, outcome: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      stop();
    }
  };
  const appendToStreams = store.appendToStreams?.bind(store);
  return {
    ...store,
    appendToStream: (stream, events, options) =>
      timed("stream", events.length, () => store.appendToStream(stream, events, options)),
    appendToStreams: appendToStreams
      ? (writes) =>
          timed(
            "streams",
            writes.reduce((n, w) => n + w.events.length, 0),
            () => appendToStreams(writes),
          )
      : undefined,
    // Methods that use `this` or closures of the original keep working through it.
    readStream: store.readStream.bind(store),
    readStreams: store.readStreams?.bind(store),
    readAll: store.readAll.bind(store),
    subscribeToAll: store.subscribeToAll.bind(store),
    onAppended: store.onAppended.bind(store),
    headPosition: store.headPosition.bind(store),
    decodeRead: store.decodeRead?.bind(store),
    close: store.close.bind(store),
  };
}

const projectionNames = async (platform: Platform) =>
  (await platform.sql.query<{ name: string }>("SELECT name FROM projection_checkpoints ORDER BY name")).map(
    (r) => r.name,
  );

/** Gauges read from `platform` when scraped, beside the process-wide registry. */
export function platformRegistry(platform: Platform): Registry {
  const own = new Registry();
  new Gauge({
    name: "pms_projection_lag_events",
    help: "Events in the log that a projection has not applied yet (absent where the engine cannot count)",
    labelNames: ["projection"] as const,
    registers: [own],
    async collect() {
      const head = await platform.store.headPosition({ past_other_databases: true });
      for (const name of await projectionNames(platform)) {
        const lag = await platform.projections.lagOf(name, head);
        if (lag !== null) this.set({ projection: name }, lag);
      }
    },
  });
  new Gauge({
    name: "pms_projection_lag_seconds",
    help: "Age of the oldest event a projection has not applied yet (0 when caught up)",
    labelNames: ["projection"] as const,
    registers: [own],
    async collect() {
      // From the stored checkpoint, which may trail the projector's by its 100 ms save interval.
      for (const name of await projectionNames(platform)) {
        const checkpoint = await loadCheckpoint(platform.sql, name);
        if (!checkpoint) continue;
        const [next] = await platform.store.readAll({ after: checkpoint.position, max_count: 1 });
        const age = next ? (Date.now() - Date.parse(next.created_at)) / 1000 : 0;
        this.set({ projection: name }, Math.max(0, age));
      }
    },
  });
  new Gauge({
    name: "pms_projection_quarantined_events",
    help: "Events in the quarantine of each projection, waiting for an operator's retry or skip",
    labelNames: ["projection"] as const,
    registers: [own],
    async collect() {
      this.reset();
      const rows = await platform.sql.query<{ projection: string; n: number }>(
        `SELECT q.projection, count(*)::int AS n FROM projection_quarantine q
         JOIN projection_checkpoints c ON c.name = q.projection AND c.version = q.version GROUP BY q.projection`,
      );
      for (const r of rows) this.set({ projection: r.projection }, r.n);
    },
  });
  new Gauge({
    name: "pms_pg_pool_clients",
    help: "PostgreSQL pool clients by pool (writer, reader) and state (total, idle, waiting)",
    labelNames: ["pool", "state"] as const,
    registers: [own],
    collect() {
      for (const [pool, stats] of Object.entries(platform.sql.poolStats?.() ?? {})) {
        this.set({ pool, state: "total" }, stats.total);
        this.set({ pool, state: "idle" }, stats.idle);
        this.set({ pool, state: "in_use" }, stats.total - stats.idle);
        this.set({ pool, state: "waiting" }, stats.waiting);
      }
    },
  });
  new Gauge({
    name: "pms_job_queue_size",
    help: "Jobs waiting in each pg-boss queue",
    labelNames: ["queue"] as const,
    registers: [own],
    async collect() {
      const { boss } = platform.jobs;
      for (const queue of await boss.getQueues()) {
        this.set({ queue: queue.name }, await boss.getQueueSize(queue.name));
      }
    },
  });
  return Registry.merge([registry, own]);
}
