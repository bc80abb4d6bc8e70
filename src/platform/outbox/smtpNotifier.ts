import { Readable } from "node:stream";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { messageIdHeader, type Notifier, type OutgoingMessage } from "./notifier.ts";

/** Time-outs short enough for a claim (PMS_OUTBOX_CLAIM_SECONDS) to outlive any one attempt. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/**
 * The SMTP adapter on nodemailer. `url`: `smtp://user:pass@host:587` (STARTTLS when offered) or
 * `smtps://...:465`. One connection per message: a message's outcome never depends on another's.
 */
export function smtpNotifier(url: string): Notifier {
  const transport = nodemailer.createTransport({ url, ...TIMEOUTS });
  return {
    describe: `SMTP ${redacted(url)}`,
    async send(message, hooks) {
      const from = message.from ?? message.default_from;
      let raw: Buffer;
      try {
        raw = await compose(message, from);
      } catch (error) {
        // A message that cannot be built never will be: no attempt can do better.
        return { ok: false, kind: "permanent", error: describeError(error), transmitted: false };
      }
      let transmitted = false;
      try {
        const info = await transport.sendMail({
          envelope: { from: from.email, to: message.to.map((r) => r.email) },
          raw: gatedStream(raw, async () => {
            await hooks?.beforeEndOfData?.();
            transmitted = true;
          }),
        });
        return {
          ok: true,
          provider_message_id: providerId(info.response) ?? messageIdHeader(message.message_id, from.email),
        };
      } catch (error) {
        return { ok: false, kind: kindOf(error), error: describeError(error), transmitted };
      }
    },
    async close() {
      transport.close();
    },
  };
}

/** The MIME message, with the deterministic Message-ID (docs/messages.md). */
async function compose(
  message: OutgoingMessage,
  from: { email: string; name: string | null },
): Promise<Buffer> {
  const address = (r: { email: string; name: string | null }) =>
    r.name ? { name: r.name, address: r.email } : r.email;
  const mail = new MailComposer({
    from: address(from),
    to: message.to.map(address),
    subject: message.subject,
    text: message.text,
    html: message.html ?? undefined,
    messageId: messageIdHeader(message.message_id, from.email),
    attachments: message.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.content_type,
      content: a.content_base64,
      encoding: "base64",
    })),
  });
  return mail.compile().build();
}

/**
 * The message's bytes, ending only once `beforeEnd` has resolved: the SMTP client writes the
 * end-of-data mark when this stream ends; if `beforeEnd` fails the stream fails and the client
 * drops the connection without it, so the server discards the message.
 */
function gatedStream(bytes: Buffer, beforeEnd: () => Promise<void>): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      this.push(bytes);
      beforeEnd().then(
        () => this.push(null),
        (error) => this.destroy(error),
      );
    },
  });
}

/** 5xx is the server's final word (RFC 5321 §4.2.1); 4xx, a cut connection or a time-out may pass. */
function kindOf(error: unknown): "transient" | "permanent" {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600 ? "permanent" : "transient";
}

const describeError = (error: unknown) => {
  const e = error as { message?: string; code?: string; responseCode?: number };
  return [e.code, e.responseCode, e.message].filter(Boolean).join(" ").slice(0, 1000);
};

/** "250 2.0.0 Ok: queued as 4BvKxk0Zb8z" -> the queue id when the server gives one, else the reply. */
const providerId = (response: string | undefined) =>
  response ? (/queued as ([^\s]+)/i.exec(response)?.[1] ?? response.slice(0, 200)) : null;

const redacted = (url: string) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(invalid SMTP_URL)";
  }
};
