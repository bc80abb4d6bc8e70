import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server in the test process (smtp-server): what it accepted, and how it answers the
 * end of a message's data: accept (250), refuse for now (451), refuse for good (550), or hold the
 * answer until `release()` (a server slow to answer, to kill a sender after its end of data); or
 * cut the connection at the recipient, before any data (`cut-at-rcpt`).
 */
export type SmtpMode = "accept" | "tempfail" | "reject" | "hold" | "cut-at-rcpt";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  messageId: string | null;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  /** Messages whose data ended with the end-of-data mark, whatever the server answered. */
  received: ReceivedMail[];
  /** Messages the server answered 250 to. */
  accepted: ReceivedMail[];
  /** Data streams cut before their end-of-data mark. */
  cut: number;
  mode: SmtpMode;
  /** Answers every held message (as accepted). */
  release(): void;
  /** Cuts every open connection without a word (a relay crashing, a network failure). */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startSmtpServer(
  port = 0,
  mode: SmtpMode = "accept",
  /** Require AUTH PLAIN/LOGIN with these credentials (over plain TCP: a test server). */
  auth?: { user: string; pass: string },
): Promise<TestSmtpServer> {
  const held: (() => void)[] = [];
  const state: TestSmtpServer = {
    url: "",
    port: 0,
    received: [],
    accepted: [],
    cut: 0,
    mode,
    release() {
      for (const answer of held.splice(0)) answer();
    },
    dropConnections() {
      held.length = 0;
      const open = (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections;
      for (const connection of open) connection._socket.destroy();
    },
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth: true,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass)
        return callback(null, { user: credentials.username });
      callback(Object.assign(new Error("Invalid credentials"), { responseCode: 535 }));
    },
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (state.mode === "cut-at-rcpt") return state.dropConnections();
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      // A connection dropped before the end-of-data mark destroys the stream (never 'end').
      stream.on("error", () => {
        state.cut++;
      });
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: /^Message-ID:\s*(<[^>]+>)/im.exec(raw)?.[1] ?? null,
        };
        state.received.push(mail);
        const answer = () => {
          if (state.mode === "tempfail")
            return callback(Object.assign(new Error("Try again later"), { responseCode: 451 }));
          if (state.mode === "reject")
            return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
          state.accepted.push(mail);
          callback(null, `Ok: queued as T${state.accepted.length}`);
        };
        if (state.mode === "hold") held.push(answer);
        else answer();
      });
    },
  });
  server.on("error", () => {});
  server.listen(port, "127.0.0.1");
  await once(server.server, "listening");
  state.port = (server.server.address() as AddressInfo).port;
  state.url = `smtp://127.0.0.1:${state.port}`;
  state.close = () => new Promise<void>((done) => server.close(() => done()));
  return state;
}

/** A received message with its quoted-printable text decoded (soft line breaks joined), to read it. */
export function decodedText(raw: string): string {
  const joined = raw.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = /^=([0-9A-F]{2})/.exec(joined.slice(i, i + 3));
    if (hex) {
      bytes.push(Number.parseInt(hex[1], 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}
