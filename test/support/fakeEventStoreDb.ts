import { PassThrough } from "node:stream";
import {
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult,
  BACKWARDS,
  DeadlineExceededError,
  END,
  type EventStoreDBClient,
  type JSONEventData,
  MaxAppendSizeExceededError,
  NotLeaderError,
  type ReadPosition,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
} from "@eventstore/db-client";
import type { Position } from "../../src/platform/eventstore/eventStore.ts";

/**
 * A fake EventStoreDB client for the adapter's tests: no server runs here (docs/eventstoredb.md).
 * It answers as client 6.2.1 does for the server behaviour each option names (read from the
 * client's compiled JS and the server's source), nothing more; `faults` inject the failures a
 * real server or network produces (timeouts after the commit, unavailable, not leader), and
 * `tombstone`/`appendForeign` the states another writer leaves.
 */

/** 2^64-1: what servers before 22.6 send as the position of a stream read's events. */
const NO_POSITION = 2n ** 64n - 1n;

interface Stored {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
  created: Date;
  position: Position;
}

/**
 * One injected failure, for the next `times` calls of `op` (on streams matching `stream`):
 * - `timeout-after-commit`: the append is written, then the call fails with DeadlineExceededError
 *   (the reply lost, or the client's deadline passed while the server committed);
 * - `unavailable`: the call fails with UnavailableError, nothing written (a refused connection);
 * - `not-leader`: a follower refuses the write with NotLeaderError, nothing written.
 */
export interface Fault {
  op: "append" | "read";
  kind: "timeout-after-commit" | "unavailable" | "not-leader";
  stream?: RegExp;
  times?: number;
  /** The server goes away as the fault fires: every later call fails unavailable until `up()`. */
  thenDown?: boolean;
}

export interface FakeOptions {
  /** The server's MaxAppendSize (bytes of data and metadata in one append): 1 MiB by default. */
  maxAppendSize?: number;
  /** Server 22.6 and later: stream reads carry positions; before, 2^64-1. */
  streamPositions?: boolean;
  /** The append reply carries a position (WriteEvents.cs); an idempotent replay's may lack one. */
  replayPosition?: boolean;
  /** Connection string `throwOnAppendFailure=false`, batch-append path (batchAppend.js). */
  throwOnAppendFailure?: boolean;
  /** unsubscribe() rejects, as when endpoint discovery failed (esdb+discover://). */
  discoveryFails?: boolean;
  /**
   * The client is connected to a follower (nodePreference=follower) this many events behind the
   * leader: a stream read without `requiresLeader` misses the stream's newest `followerLag`
   * events; with it, the follower refuses (NotLeaderError) once, and the client, moved to the
   * leader (Client/index.js shouldReconnect), reads there from then on. An append without it is
   * forwarded to the leader (written); with it, refused once the same way.
   */
  followerLag?: number;
}

export class FakeSubscription extends PassThrough {
  unsubscribed = 0;
  readonly discoveryFails: boolean;
  constructor(discoveryFails: boolean) {
    super({ objectMode: true });
    this.discoveryFails = discoveryFails;
  }
  async unsubscribe() {
    this.unsubscribed++;
    if (this.discoveryFails) throw new Error("Failed to discover after 10 attempts.");
  }
}

/** What a grpc ServiceError carries that the client's error constructors read. */
const serviceError = (message: string, metadata: Record<string, string>) =>
  ({ message, metadata: { getMap: () => metadata } }) as never;

export function fakeClient(options: FakeOptions = {}) {
  const log: Stored[] = [];
  const faults: Fault[] = [];
  const tombstoned = new Set<string>();
  /** `stream/revision` of events stream reads do not return. */
  const hidden = new Set<string>();
  const maxAppendSize = options.maxAppendSize ?? 1024 * 1024;
  /** The fault for this call, if one matches (each counts down its `times`). */
  const faultFor = (op: Fault["op"], name: string) => {
    const i = faults.findIndex((f) => f.op === op && (!f.stream || f.stream.test(name)));
    if (i < 0) return null;
    const fault = faults[i];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(i, 1);
    if (fault.thenDown) state.down = true;
    return fault.kind;
  };
  const state = { down: false };
  const failBeforeWrite = (kind: Fault["kind"] | null) => {
    if (kind === "unavailable")
      throw new UnavailableError(serviceError("14 UNAVAILABLE: No connection established", {}));
    if (kind === "not-leader")
      throw new NotLeaderError(
        serviceError("Leader info available", {
          "leader-endpoint-host": "node2",
          "leader-endpoint-port": "2113",
        }),
      );
  };
  const calls = {
    readStream: 0,
    dispose: 0,
    subscribeToAll: [] as number[],
    /** Events readAll handed over, of every call. */
    readAllEvents: 0,
    /** Calls that did not ask for the leader (`requiresLeader`). */
    leaderless: [] as string[],
  };
  /** Connected to a follower until a requiresLeader call is refused there. */
  const node = { follower: options.followerLag !== undefined };
  const onFollower = (op: string, requiresLeader: boolean | undefined, viaLeader?: boolean) => {
    if (viaLeader) return false;
    if (!requiresLeader) calls.leaderless.push(op);
    if (node.follower && requiresLeader) {
      node.follower = false;
      failBeforeWrite("not-leader");
    }
    return node.follower && !requiresLeader;
  };
  const subscriptions: FakeSubscription[] = [];
  /** Subscriptions that receive each new event. */
  const live = new Set<FakeSubscription>();
  const deliver = (e: Stored) => {
    for (const sub of live) if (!sub.destroyed && sub.writable) sub.write(resolved(e, false));
  };
  const streamOf = (name: string) => log.filter((e) => e.streamId === name);

  const resolved = (e: Stored, inStream: boolean): AllStreamResolvedEvent => ({
    event: {
      ...e,
      position:
        inStream && options.streamPositions === false
          ? { commit: NO_POSITION, prepare: NO_POSITION }
          : e.position,
    } as AllStreamResolvedEvent["event"],
    ...(inStream ? {} : { commitPosition: e.position.commit }),
  });

  const client = {
    async appendToStream(
      name: string,
      events: JSONEventData[],
      {
        expectedRevision,
        requiresLeader,
        viaLeader,
      }: { expectedRevision: AppendExpectedRevision; requiresLeader?: boolean; viaLeader?: boolean },
    ): Promise<AppendResult> {
      failBeforeWrite(state.down ? "unavailable" : null);
      onFollower(`append ${name}`, requiresLeader, viaLeader);
      const fault = faultFor("append", name);
      failBeforeWrite(fault);
      if (tombstoned.has(name)) throw StreamDeletedError.fromStreamName(name);
      const size = events.reduce(
        (n, e) =>
          n + Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata ?? {})),
        0,
      );
      if (size > maxAppendSize) throw MaxAppendSizeExceededError.fromMaxAppendSize(maxAppendSize);
      const result = await write(name, events, expectedRevision);
      if (fault === "timeout-after-commit")
        throw new DeadlineExceededError(serviceError("4 DEADLINE_EXCEEDED", {}));
      return result;
    },
    async *readStream(
      name: string,
      o: {
        fromRevision?: bigint | typeof START | typeof END;
        direction?: string;
        maxCount?: number;
        requiresLeader?: boolean;
        viaLeader?: boolean;
      } = {},
    ) {
      calls.readStream++;
      failBeforeWrite(state.down ? "unavailable" : faultFor("read", name));
      const lagging = onFollower(`read ${name}`, o.requiresLeader, o.viaLeader);
      if (tombstoned.has(name)) throw StreamDeletedError.fromStreamName(name);
      // A hidden event is missing from a read at its exact revision only (the head by END still shows).
      const exact = typeof o.fromRevision === "bigint";
      const whole = streamOf(name).filter((e) => !exact || !hidden.has(`${name}/${e.revision}`));
      const stream = lagging ? whole.slice(0, Math.max(0, whole.length - (options.followerLag ?? 0))) : whole;
      if (stream.length === 0) throw new StreamNotFoundError(undefined, name);
      const backwards = o.direction === BACKWARDS;
      const from =
        o.fromRevision === END || o.fromRevision === undefined
          ? backwards
            ? stream.length - 1
            : 0
          : o.fromRevision === START
            ? 0
            : Number(o.fromRevision);
      const picked = backwards ? stream.slice(0, from + 1).reverse() : stream.slice(from);
      for (const e of picked.slice(0, o.maxCount ?? picked.length)) yield resolved(e, true);
    },
    async *readAll(o: { fromPosition?: ReadPosition; direction?: string; maxCount?: number } = {}) {
      const backwards = o.direction === BACKWARDS;
      const at = o.fromPosition;
      let picked = backwards ? [...log].reverse() : log;
      if (at && at !== START && at !== END) {
        picked = picked.filter((e) =>
          backwards ? e.position.commit < at.commit : e.position.commit >= at.commit,
        );
      }
      for (const e of picked.slice(0, o.maxCount ?? picked.length)) {
        calls.readAllEvents++;
        yield resolved(e, false);
      }
    },
    /** Catch-up from `fromPosition` (inclusive, as the server), then every event written after. */
    subscribeToAll(o: { fromPosition?: ReadPosition } = {}) {
      calls.subscribeToAll.push(Date.now());
      const subscription = new FakeSubscription(options.discoveryFails ?? false);
      subscriptions.push(subscription);
      const at = o.fromPosition;
      if (at !== END) {
        for (const e of log) {
          if (at === undefined || at === START || e.position.commit >= at.commit)
            subscription.write(resolved(e, false));
        }
      }
      live.add(subscription);
      subscription.on("close", () => live.delete(subscription));
      return subscription;
    },
    async dispose() {
      calls.dispose++;
    },
  };

  async function write(
    name: string,
    events: JSONEventData[],
    expectedRevision: AppendExpectedRevision,
  ): Promise<AppendResult> {
    const stream = streamOf(name);
    const current = BigInt(stream.length) - 1n;
    // Server IndexWriter.CheckCommit: with a revision or no_stream, ids already at the next
    // revisions are an idempotent replay answered with the last event's log position.
    const from = expectedRevision === "no_stream" ? -1n : expectedRevision;
    if (typeof from === "bigint" && from < current) {
      const matched = events.every((e, i) => stream[Number(from) + 1 + i]?.id === e.id);
      if (matched) {
        const last = stream[Number(from) + events.length];
        return {
          success: true,
          nextExpectedRevision: last.revision,
          position: options.replayPosition === false ? undefined : last.position,
        };
      }
    }
    const fits =
      expectedRevision === "any" ||
      (expectedRevision === "no_stream" && current < 0n) ||
      (expectedRevision === "stream_exists" && current >= 0n) ||
      expectedRevision === current;
    if (!fits) {
      if (options.throwOnAppendFailure === false) {
        // batchAppend.js: BigInt(wrongExpectedVersion.hasCurrentStreamRevision()), a boolean.
        return { success: false, nextExpectedRevision: current >= 0n ? 1n : -1n, position: undefined };
      }
      throw new WrongExpectedVersionError(undefined, {
        streamName: name,
        current: current < 0n ? "no_stream" : current,
        expected: expectedRevision,
      } as never);
    }
    for (const [i, e] of events.entries()) {
      const at = BigInt(log.length + 1) * 100n;
      log.push({
        streamId: name,
        id: e.id,
        revision: current + 1n + BigInt(i),
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        isJson: true,
        created: new Date(),
        position: { commit: at, prepare: at },
      });
    }
    for (const e of log.slice(log.length - events.length)) deliver(e);
    const last = log[log.length - 1];
    return { success: true, nextExpectedRevision: last.revision, position: last.position };
  }

  /**
   * An event another application wrote on the same server (`$all` is server-wide), or one written
   * to a stream of ours past the adapter (binary data, a hand-made repair).
   */
  const appendForeign = (event: Pick<Stored, "streamId" | "type" | "data" | "metadata" | "isJson">) => {
    const at = BigInt(log.length + 1) * 100n;
    log.push({
      ...event,
      id: crypto.randomUUID(),
      revision: BigInt(streamOf(event.streamId).length),
      created: new Date(),
      position: { commit: at, prepare: at },
    });
    deliver(log[log.length - 1]);
  };

  /** The same server seen from a client on the leader (another instance): never lagging. */
  const leader = {
    ...client,
    appendToStream: (
      name: string,
      events: JSONEventData[],
      o: { expectedRevision: AppendExpectedRevision },
    ) => client.appendToStream(name, events, { ...o, viaLeader: true }),
    readStream: (name: string, o: Parameters<typeof client.readStream>[1] = {}) =>
      client.readStream(name, { ...o, viaLeader: true }),
  };

  return {
    client: client as unknown as EventStoreDBClient,
    leader: leader as unknown as EventStoreDBClient,
    /** Stream reads stop returning this event (a node that lost it, a truncated stream). */
    hide: (name: string, revision: bigint) => hidden.add(`${name}/${revision}`),
    log,
    calls,
    subscriptions,
    faults,
    /** The server is back after a `thenDown` fault. */
    up: () => {
      state.down = false;
    },
    /** Deletes a stream for good (a tombstone): reads and appends fail with StreamDeletedError. */
    tombstone: (name: string) => tombstoned.add(name),
    appendForeign,
  };
}
