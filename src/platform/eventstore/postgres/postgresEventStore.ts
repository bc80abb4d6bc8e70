import { randomUUID } from "node:crypto";
import { notifier, type Sql } from "../../db.ts";
import type { EventStore, Subscription } from "../eventStore.ts";
import { settleWrites } from "../settleWrites.ts";
import { groupAppends } from "./groupAppends.ts";
import { headPosition, readAll } from "./readAll.ts";
import { readStream, readStreams } from "./readStream.ts";
import { subscribeToAll } from "./subscribeToAll.ts";

/**
 * The event store on PostgreSQL (external or embedded: the same server either way).
 * Wake-ups come in-process after local appends, and from LISTEN pms_events for other processes. The
 * NOTIFY goes out after the append's commit (see `notifier`), not inside it.
 */
export function createPostgresEventStore(sql: Sql): EventStore {
  const listeners = new Set<() => void>();
  const subscriptions = new Set<Subscription>();
  let stopListening: Promise<() => Promise<void>> | null = null;
  // A listener is only a wake-up: its failure must not turn a committed append into an error
  // (the caller could retry with new ids and write the events twice), nor starve the others.
  const fire = () => {
    for (const l of listeners) {
      try {
        l();
      } catch {}
    }
  };
  // Our own notifications come back to us: the payload names the sender so we skip them.
  const instance = randomUUID();
  const notifyAppended = notifier(sql, "pms_events", instance);
  // Concurrent appends share a statement and a commit (groupAppends.ts).
  const append = groupAppends(sql, { inFlight: 1, maxEvents: 512 });
  const store: EventStore = {
    engine: "postgres",
    keepsSubjectKeys: true,
    async appendToStream(stream_name, events, { expected_revision, subject_keys }) {
      const [result] = await append([{ stream_name, events, expected_revision, subject_keys }]);
      notifyAppended();
      fire();
      return result;
    },
    async appendToStreams(writes) {
      const results = await append(writes);
      notifyAppended();
      fire();
      return results;
    },
    readStream: (stream_name, options) => readStream(sql, stream_name, options),
    readStreams: (stream_names) => readStreams(sql, stream_names),
    readAll: (options) => readAll(sql, options),
    subscribeToAll(options, onEvent) {
      const running = subscribeToAll(store.readAll, store.onAppended, options, onEvent);
      const subscription: Subscription = {
        async stop() {
          subscriptions.delete(subscription);
          await running.stop();
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },
    onAppended(listener) {
      listeners.add(listener);
      if (!stopListening) {
        stopListening = sql.listen("pms_events", (sender) => {
          if (sender !== instance) fire();
        });
        stopListening.catch(() => {
          stopListening = null;
        });
      }
      return () => listeners.delete(listener);
    },
    headPosition: (options) => headPosition(sql, options),
    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      listeners.clear();
      if (stopListening) await (await stopListening.catch(() => async () => {}))();
    },
  };
  // A write whose outcome is unknown (the connection cut after the statement went out) is settled
  // by reading it back; the caller hears of it only if that fails too.
  return settleWrites(store, isAmbiguousPostgresError, () => {
    notifyAppended();
    fire();
  });
}

/**
 * Errors after which an append may have committed: the connection failed once the statement could
 * have reached the server (the reply to its implicit COMMIT lost). An error the server answered
 * (a SQLSTATE) ended its transaction; a refused connection sent nothing.
 */
export function isAmbiguousPostgresError(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return false;
  if (code === "ECONNRESET" || code === "EPIPE" || code === "ETIMEDOUT") return true;
  return (
    typeof message === "string" &&
    /Connection terminated|Query read timeout|connection error|Client was closed/i.test(message)
  );
}
