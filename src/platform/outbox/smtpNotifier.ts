import { Readable } from "node:stream";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import shared from "nodemailer/lib/shared/index.js";
import SMTPConnection from "nodemailer/lib/smtp-connection/index.js";
import { messageIdHeader, type Notifier, type OutgoingMessage } from "./notifier.ts";

/** Time-outs short enough for a claim (PMS_OUTBOX_CLAIM_SECONDS) to outlive any one attempt. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/**
 * The SMTP adapter on nodemailer's SMTP client. `url`: `smtp://user:pass@host:587` (STARTTLS when
 * offered) or `smtps://...:465`. One connection per message: a message's outcome never depends on
 * another's. The client itself (not nodemailer's transport, which reads a message before its
 * session starts) so the message is read only once the server has said 354 to DATA: the hook before
 * the end of data then runs when every byte but the end-of-data mark is on its way.
 */
export function smtpNotifier(url: string): Notifier {
  const options = { ...shared.parseConnectionUrl(url), ...TIMEOUTS };
  return {
    describe: `SMTP ${redacted(url)}`,
    async send(message, hooks) {
      const from = message.from ?? message.default_from;
      let raw: Buffer;
      try {
        raw = await compose(message, from);
      } catch (error) {
        // A message that cannot be built never will be: no attempt can do better.
        return { ok: false, kind: "permanent", error: describeError(error) };
      }
      const gate = gatedStream(raw, async () => {
        await hooks?.beforeEndOfData?.();
      });
      const session = smtpSession(options);
      try {
        await session.step((done) => session.connection.connect(done));
        // As nodemailer's transport: credentials are used where the server offers AUTH.
        if (options.auth && (session.connection as unknown as { allowsAuth: boolean }).allowsAuth)
          await session.step((done) =>
            session.connection.login(options.auth as SMTPConnection.Credentials, done),
          );
        const info = await session.step<SMTPConnection.SentMessageInfo>((done) =>
          session.connection.send(
            { from: from.email, to: message.to.map((r) => r.email) },
            gate.stream,
            done,
          ),
        );
        session.connection.quit();
        return {
          ok: true,
          provider_message_id: providerId(info.response) ?? messageIdHeader(message.message_id, from.email),
        };
      } catch (error) {
        // Whether the end of data may have gone out is judged when the failure arrives; then the
        // stream never ends, and the hook's write, if under way, is waited for.
        const afterEnd = gate.released();
        gate.abandon();
        session.connection.close();
        await gate.settled();
        return { ok: false, kind: kindOf(error, afterEnd), error: describeError(error) };
      }
    },
    async close() {},
  };
}

/**
 * One SMTP client connection whose steps are promises: each fails on the client's callback error,
 * an `error` event, or the connection ending before the step's answer.
 */
function smtpSession(options: SMTPConnection.Options) {
  const connection = new SMTPConnection(options);
  let fail: ((error: Error) => void) | null = null;
  connection.on("error", (error) => fail?.(error));
  connection.on("end", () => fail?.(new Error("The connection closed before the server's answer")));
  return {
    connection,
    step<T = void>(run: (done: (error?: Error | null, value?: T) => void) => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        fail = reject;
        run((error, value) => (error ? reject(error) : resolve(value as T)));
      });
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
 * drops the connection without it, so the transaction is never confirmed.
 */
function gatedStream(bytes: Buffer, beforeEnd: () => Promise<void>) {
  let started = false;
  let released = false;
  let abandoned = false;
  let pending: Promise<void> = Promise.resolve();
  const stream = new Readable({
    read() {
      if (started) return;
      started = true;
      this.push(bytes);
      // A turn later: a client that failed before the data (a refused recipient) drains the stream
      // too, and its failure, arriving first, abandons the gate before the hook writes anything.
      pending = new Promise<void>((go) => setImmediate(go))
        .then(() => (abandoned ? undefined : beforeEnd()))
        .then(
          () => {
            if (abandoned) return;
            released = true;
            this.push(null);
          },
          (error) => {
            if (!abandoned) this.destroy(error);
          },
        );
    },
  });
  return {
    stream,
    /** The end of the stream (and so the end-of-data mark) was let go. */
    released: () => released,
    /** The send failed: never let the end go now. */
    abandon: () => {
      abandoned = true;
    },
    settled: () => pending,
  };
}

/**
 * A 5xx answer to the message itself (its sender, a recipient, its data: nodemailer's EENVELOPE and
 * EMESSAGE) is the server's final word (RFC 5321 §4.2.1): FAILED. A 4xx, or a refusal of the
 * session (login, greeting: the relay's configuration, not the message), may pass: tried again.
 * Without any answer it depends on the end of data: before it nothing was confirmed (a retry is
 * safe), after it the server may have taken the message.
 */
function kindOf(error: unknown, transmitted: boolean): "transient" | "permanent" | "unknown" {
  const { responseCode: code, code: kind } = error as { responseCode?: number; code?: string };
  if (typeof code === "number")
    return code >= 500 && (kind === "EENVELOPE" || kind === "EMESSAGE") ? "permanent" : "transient";
  return transmitted ? "unknown" : "transient";
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
