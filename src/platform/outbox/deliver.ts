import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from "../eventstore/eventStore.ts";
import {
  evolveMessage,
  initialMessageState,
  isAbandoned,
  isDue,
  type MessageEvent,
  type MessageState,
  messageStream,
} from "./messageEvents.ts";
import type { Notifier, SendOutcome } from "./notifier.ts";

/**
 * The deliverer (docs/messages.md): claims a due message by appending MessageSendStarted at the
 * revision it read (two deliverers never both win), sends it, records the outcome. The stream is
 * the truth; the `messages` read model only says which streams to look at.
 */
export interface DelivererDeps {
  store: EventStore;
  notifier: Notifier;
  /** The sender of messages that name none (SMTP_FROM). */
  defaultFrom: { email: string; name: string | null };
  /** How long a claim holds: a claim older than this with no outcome was abandoned. */
  claimSeconds: number;
  now?: () => Date;
}

/** Waits before attempt 2, 3, ...: then the message is FAILED (about 27 hours of tries). */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

export type DeliveryResult = "delivered" | "retry" | "failed" | "uncertain" | "skipped";

interface Loaded {
  state: MessageState;
  revision: bigint;
  metadata: EventMetadata;
}

async function load(store: EventStore, messageId: string): Promise<Loaded | null> {
  const events = (await store.readStream(messageStream(messageId))) as RecordedEvent<MessageEvent>[];
  if (events.length === 0) return null;
  const state = events.reduce(evolveMessage, initialMessageState());
  const first = events[0];
  return {
    state,
    revision: events[events.length - 1].stream_revision,
    // Every event of the stream stays the queuing tenant's and follows from its queuing.
    metadata: { ...first.metadata, causation_id: first.event_id, occurred_at: "" },
  };
}

/** Appends one event at `revision`; false when another process moved the stream first. */
async function record(
  store: EventStore,
  loaded: Pick<Loaded, "metadata" | "state">,
  revision: bigint,
  event: MessageEvent,
  now: Date,
): Promise<boolean> {
  try {
    await store.appendToStream(
      messageStream(event.data.message_id),
      // Random ids: two deliverers racing must not pass for one idempotent retry.
      [
        {
          event_id: randomUUID(),
          ...event,
          metadata: { ...loaded.metadata, occurred_at: now.toISOString() },
        },
      ],
      { expected_revision: revision },
    );
    return true;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return false;
    throw error;
  }
}

const failure = (
  messageId: string,
  attempt: number,
  error: string,
  permanent: boolean,
  now: Date,
  /** When to try again (default: after the attempt's back-off delay). */
  retryAt?: Date,
): MessageEvent => {
  const willRetry = !permanent && attempt < MAX_ATTEMPTS;
  return {
    type: "MessageDeliveryFailed",
    data: {
      message_id: messageId,
      attempt,
      error,
      will_retry: willRetry,
      next_attempt_at: willRetry
        ? (retryAt ?? new Date(now.getTime() + RETRY_DELAYS_SECONDS[attempt - 1] * 1000)).toISOString()
        : null,
      failed_at: now.toISOString(),
    },
  };
};

/**
 * One message, if it is due (or its claim was abandoned): at most one send per claim. Safe to
 * call from any number of processes at once.
 */
export async function deliverMessage(deps: DelivererDeps, messageId: string): Promise<DeliveryResult> {
  const now = deps.now?.() ?? new Date();
  const loaded = await load(deps.store, messageId);
  const message = loaded?.state.message;
  if (!loaded || !message) return "skipped";
  const { state, revision } = loaded;
  if (isAbandoned(state, now)) return settleAbandoned(deps, loaded, now);
  if (!isDue(state, now)) return "skipped";

  const attempt = state.attempts + 1;
  const claim: MessageEvent = {
    type: "MessageSendStarted",
    data: {
      message_id: messageId,
      attempt,
      started_at: now.toISOString(),
      claim_expires_at: new Date(now.getTime() + deps.claimSeconds * 1000).toISOString(),
    },
  };
  if (!(await record(deps.store, loaded, revision, claim, now))) return "skipped";
  let at = revision + 1n;

  const outcome = await deps.notifier.send(
    { ...message, default_from: deps.defaultFrom },
    {
      // The point of no return is recorded at the claim's revision: had another deliverer
      // judged the claim abandoned meanwhile, this fails and the send stops short of the end.
      beforeEndOfData: async () => {
        const event: MessageEvent = {
          type: "MessageContentTransmitted",
          data: { message_id: messageId, attempt },
        };
        if (!(await record(deps.store, loaded, at, event, deps.now?.() ?? new Date())))
          throw new Error("The claim was taken over: the send is abandoned before its end");
        at += 1n;
      },
    },
  );
  const done = deps.now?.() ?? new Date();
  const event = outcomeEvent(messageId, attempt, outcome, done);
  await recordOutcome(deps, loaded, attempt, at, event, done);
  if (event.type === "MessageDelivered") return "delivered";
  if (event.type === "MessageOutcomeUnknown") return "uncertain";
  return event.type === "MessageDeliveryFailed" && event.data.will_retry ? "retry" : "failed";
}

function outcomeEvent(messageId: string, attempt: number, outcome: SendOutcome, now: Date): MessageEvent {
  if (outcome.ok)
    return {
      type: "MessageDelivered",
      data: {
        message_id: messageId,
        attempt,
        provider_message_id: outcome.provider_message_id,
        delivered_at: now.toISOString(),
      },
    };
  if (outcome.kind === "unknown")
    return {
      type: "MessageOutcomeUnknown",
      data: { message_id: messageId, attempt, reason: outcome.error, detected_at: now.toISOString() },
    };
  return failure(messageId, attempt, outcome.error, outcome.kind === "permanent", now);
}

/**
 * The outcome at the revision this attempt left; should another deliverer have judged the claim
 * abandoned meanwhile (UNCERTAIN, this very attempt), the outcome now known settles it.
 */
async function recordOutcome(
  deps: DelivererDeps,
  claimed: Loaded,
  attempt: number,
  at: bigint,
  event: MessageEvent,
  now: Date,
): Promise<void> {
  const messageId = event.data.message_id;
  // The store failing now would turn a known outcome into UNCERTAIN: try a few times first. A
  // retry of an append that did commit finds the stream past `at` and writes nothing more.
  for (let tries = 1; ; tries++) {
    try {
      if (await record(deps.store, claimed, at, event, now)) return;
      const again = await load(deps.store, messageId);
      const settles = event.type !== "MessageOutcomeUnknown";
      if (settles && again?.state.status === "UNCERTAIN" && again.state.attempts === attempt)
        await record(deps.store, again, again.revision, event, now);
      return;
    } catch (error) {
      if (tries >= OUTCOME_TRIES) throw error;
      await sleep(500 * 2 ** (tries - 1));
    }
  }
}

const OUTCOME_TRIES = 4;

/**
 * A claim left without an outcome. Before its end of data the transaction was never confirmed (RFC
 * 5321 §4.1.1.4: the end-of-data mark confirms it): the message is tried again. After it, it may
 * have arrived: UNCERTAIN, never resent on its own (an operator resolves it, docs/messages.md).
 */
async function settleAbandoned(deps: DelivererDeps, loaded: Loaded, now: Date): Promise<DeliveryResult> {
  const { state, revision } = loaded;
  const messageId = state.message?.message_id ?? "";
  const event: MessageEvent = state.transmitted
    ? {
        type: "MessageOutcomeUnknown",
        data: {
          message_id: messageId,
          attempt: state.attempts,
          reason: "The sender stopped after the end of the data, before the server's answer was recorded",
          detected_at: now.toISOString(),
        },
      }
    : failure(
        messageId,
        state.attempts,
        "The sender stopped before the end of the data: the server discarded the message",
        false,
        now,
        now,
      );
  if (!(await record(deps.store, loaded, revision, event, now))) return "skipped";
  return state.transmitted ? "uncertain" : "retry";
}
