import type { QueuedMessage } from "./messageEvents.ts";

/**
 * The notifier port (docs/messages.md): hands one message to a provider. An adapter never
 * throws for a refused or failed send; it answers which kind of failure it was, so the deliverer
 * knows whether to try again.
 */
export interface Notifier {
  /** Where messages go, for the start-up log line (no secrets). */
  readonly describe: string;
  send(message: OutgoingMessage, hooks?: SendHooks): Promise<SendOutcome>;
  close(): Promise<void>;
}

export interface OutgoingMessage extends QueuedMessage {
  /** The sender when the message names none (SMTP_FROM). */
  default_from: { email: string; name: string | null };
}

export interface SendHooks {
  /**
   * Called once every byte of the message is with the server but the end-of-data mark. Up to here
   * the transaction is unconfirmed and a dropped connection abandons it (RFC 5321 §4.1.1.4: the
   * end-of-data mark confirms the transaction); from here the server may accept it. A rejection
   * aborts the send (nothing delivered, a transient failure).
   */
  beforeEndOfData?: () => Promise<void>;
}

export type SendOutcome =
  | { ok: true; provider_message_id: string }
  /**
   * transient: not accepted, worth another attempt (4xx, server down, cut before the end of data);
   * permanent: never (5xx); unknown: the connection failed after the end of data and before the
   * server's answer, so the server may have the message (it must not be sent again on its own).
   */
  | { ok: false; kind: "transient" | "permanent" | "unknown"; error: string };

/** The Message-ID header of a message: the same on every attempt, so a duplicate is recognisable. */
export const messageIdHeader = (messageId: string, fromEmail: string) =>
  `<${messageId}@${fromEmail.split("@")[1] ?? "pms.invalid"}>`;
