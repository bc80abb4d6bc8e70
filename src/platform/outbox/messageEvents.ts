import { allEventTypes } from "../decider.ts";
/**
 * The outbox (docs/messages.md): one stream per outbound message, `message-<uuid>`. Queueing a
 * message is appending its first event; a deliverer claims it by appending `MessageSendStarted` at
 * the revision it read, so two workers never send the same message, then records the outcome.
 */

/** The outbox's stream category: the platform's own, like the quarantine's, not an area's. */
export const MESSAGE_CATEGORY = "message";
export const messageStream = (id: string) => `${MESSAGE_CATEGORY}-${id}`;

export const MESSAGE_CHANNELS = ["email"] as const;
export const MESSAGE_STATUSES = [
  "QUEUED",
  "SENDING",
  "DELIVERED",
  "RETRY_SCHEDULED",
  "FAILED",
  "UNCERTAIN",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageRecipient {
  email: string;
  name: string | null;
}

/** A small attachment carried in the event itself (a PDF of a few hundred KiB at most). */
export interface MessageAttachment {
  filename: string;
  content_type: string;
  content_base64: string;
}

/** What a message is about, so its status can be found from there (a rent call, an amendment). */
export interface MessageRelated {
  kind: string;
  id: string;
}

export interface QueuedMessage {
  message_id: string;
  channel: (typeof MESSAGE_CHANNELS)[number];
  to: MessageRecipient[];
  /** The sender identity; null: the service's default (SMTP_FROM). */
  from: MessageRecipient | null;
  subject: string;
  text: string;
  html: string | null;
  attachments: MessageAttachment[];
  /** What kind of message this is: "rent-reminder", "amendment-notice", "otp"... */
  topic: string;
  related: MessageRelated | null;
  /**
   * The data subjects the message is about or sent to (their streams: `lessee-<id>`...): erasing
   * one erases the message's recipients and content too (docs/personal-data.md). Absent: none known.
   */
  data_subjects?: string[];
}

export type MessageEvent =
  | { type: "MessageQueued"; data: QueuedMessage }
  /** A deliverer claimed the message for attempt `attempt`; it may send until `claim_expires_at`. */
  | {
      type: "MessageSendStarted";
      data: { message_id: string; attempt: number; started_at: string; claim_expires_at: string };
    }
  /**
   * Every byte of the message is with the server but the end-of-data mark: from here the server
   * may accept it, so a sender that dies leaves its outcome unknown (docs/messages.md).
   */
  | { type: "MessageContentTransmitted"; data: { message_id: string; attempt: number } }
  | {
      type: "MessageDelivered";
      data: { message_id: string; attempt: number; provider_message_id: string; delivered_at: string };
    }
  | {
      type: "MessageDeliveryFailed";
      data: {
        message_id: string;
        attempt: number;
        error: string;
        will_retry: boolean;
        next_attempt_at: string | null;
        failed_at: string;
      };
    }
  /**
   * After its end of data, the sender died (its claim expired with no outcome) or lost the
   * connection before the server's answer: the message may or may not have arrived. It is not sent
   * again on its own (docs/messages.md, "Never sent twice").
   */
  | {
      type: "MessageOutcomeUnknown";
      data: { message_id: string; attempt: number; reason: string; detected_at: string };
    }
  /**
   * A data subject of the message was erased (GDPR art. 17): the message's key is destroyed next,
   * its recipients and content read null, and it is never sent (or sent again).
   */
  | {
      type: "MessagePersonalDataErased";
      data: { message_id: string; data_subject: string; erased_at: string };
    }
  /** An operator settled an UNCERTAIN message: it did arrive, or it is to be sent again. */
  | {
      type: "MessageOutcomeResolved";
      data: { message_id: string; resolution: "DELIVERED" | "RESEND"; resolved_at: string };
    };

export const messageEventTypes = allEventTypes<MessageEvent["type"]>()([
  "MessageQueued",
  "MessageSendStarted",
  "MessageContentTransmitted",
  "MessageDelivered",
  "MessageDeliveryFailed",
  "MessageOutcomeUnknown",
  "MessageOutcomeResolved",
  "MessagePersonalDataErased",
]);

export interface MessageState {
  message: QueuedMessage | null;
  status: MessageStatus | null;
  attempts: number;
  last_error: string | null;
  /** When the message may be (re)tried: queued now, or a failure's next attempt. */
  next_attempt_at: string | null;
  claim_expires_at: string | null;
  /** The current attempt reached the end of its data (MessageContentTransmitted). */
  transmitted: boolean;
  provider_message_id: string | null;
  delivered_at: string | null;
}

export const initialMessageState = (): MessageState => ({
  message: null,
  status: null,
  attempts: 0,
  last_error: null,
  next_attempt_at: null,
  claim_expires_at: null,
  transmitted: false,
  provider_message_id: null,
  delivered_at: null,
});

/** The one fold of a message stream: the deliverer, the projection and the tests use it. */
export function evolveMessage(state: MessageState, event: MessageEvent): MessageState {
  switch (event.type) {
    case "MessageQueued":
      return { ...state, message: event.data, status: "QUEUED", next_attempt_at: null };
    case "MessageSendStarted":
      return {
        ...state,
        status: "SENDING",
        attempts: event.data.attempt,
        next_attempt_at: null,
        claim_expires_at: event.data.claim_expires_at,
        transmitted: false,
      };
    case "MessageContentTransmitted":
      return { ...state, transmitted: true };
    case "MessageDelivered":
      return {
        ...state,
        status: "DELIVERED",
        claim_expires_at: null,
        provider_message_id: event.data.provider_message_id,
        delivered_at: event.data.delivered_at,
      };
    case "MessageDeliveryFailed":
      return {
        ...state,
        status: event.data.will_retry ? "RETRY_SCHEDULED" : "FAILED",
        claim_expires_at: null,
        last_error: event.data.error,
        next_attempt_at: event.data.next_attempt_at,
      };
    case "MessageOutcomeUnknown":
      return { ...state, status: "UNCERTAIN", claim_expires_at: null, last_error: event.data.reason };
    case "MessageOutcomeResolved":
      return event.data.resolution === "DELIVERED"
        ? { ...state, status: "DELIVERED", delivered_at: event.data.resolved_at }
        : { ...state, status: "QUEUED", next_attempt_at: null };
    case "MessagePersonalDataErased":
      return state.status === "DELIVERED" || state.status === "FAILED"
        ? state
        : { ...state, ...NEVER_SENT, claim_expires_at: null, next_attempt_at: null };
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** What a message not yet delivered becomes when its recipient's personal data is erased. */
export const NEVER_SENT = {
  status: "FAILED",
  last_error: "Personal data of a recipient erased (GDPR art. 17): not sent",
} as const;

/** Whether a deliverer may claim the message at `now`. */
export const isDue = (state: MessageState, now: Date): boolean =>
  state.status === "QUEUED" ||
  (state.status === "RETRY_SCHEDULED" &&
    state.next_attempt_at !== null &&
    Date.parse(state.next_attempt_at) <= now.getTime());

/** Whether a claim was left without an outcome past its expiry (its sender died or hung). */
export const isAbandoned = (state: MessageState, now: Date): boolean =>
  state.status === "SENDING" &&
  state.claim_expires_at !== null &&
  Date.parse(state.claim_expires_at) <= now.getTime();
