import { createServer, type Socket, connect as tcpConnect } from "node:net";

/**
 * A TCP proxy between the service and PostgreSQL that injects the faults a network or a crash
 * produces around a write (issue 22). It reads the wire protocol's message framing (type byte,
 * int32 length) to find the statements a test aims at, by their SQL text: in a Parse, or in a
 * Bind of a statement prepared from such a text. Faults, each for one matching statement:
 *
 * - `drop-reply`: the statement and its Sync reach the server, which commits; the reply never
 *   comes back: once the server is ready again (ReadyForQuery), both sides are cut. The reply to
 *   the implicit COMMIT is lost, the write is in.
 * - `cut`: the connection is cut as the statement arrives, before the server sees it
 *   (mid-statement for the client): nothing is written, but the client cannot know.
 * - `delay-cut`: the reply is held `delayMs` (a client deadline passing), then the connection is
 *   cut: the write is in, the client saw only a long wait and a failure.
 */
export type Fault = "drop-reply" | "cut" | "delay-cut";

export interface FaultProxy {
  /** postgres://... of the proxy, for the given url's database and user. */
  url: string;
  /** The next `count` statements whose text matches get `fault`. */
  inject(fault: Fault, count?: number): void;
  /** Faults injected so far (each applied once to a matching statement), by kind. */
  applied: Record<Fault, number>;
  /** Faults still waiting for a matching statement. */
  pending(): number;
  close(): Promise<void>;
}

/** TCP to host:port, or the Unix socket when the URL names a socket directory (the embedded server). */
function upstreamConnection(target: URL): Socket {
  const socketDir = target.searchParams.get("host");
  const port = Number(target.port || 5432);
  if (socketDir?.startsWith("/")) return tcpConnect({ path: `${socketDir}/.s.PGSQL.${port}` });
  return tcpConnect(port, target.hostname);
}

export async function startFaultProxy(
  targetUrl: string,
  matches: (sql: string) => boolean,
  options: { delayMs?: number } = {},
): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const queue: Fault[] = [];
  const applied: Record<Fault, number> = { "drop-reply": 0, cut: 0, "delay-cut": 0 };
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = upstreamConnection(target);
    sockets.add(client);
    sockets.add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", cut);
    upstream.on("error", cut);
    client.on("close", () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });

    /** Statement names prepared from a matching text, on this connection. */
    const aimed = new Set<string>();
    /** The fault in progress on this connection: replies are swallowed until ReadyForQuery. */
    let swallowing: Fault | null = null;
    let started = false;
    let pendingIn = Buffer.alloc(0);
    let pendingOut = Buffer.alloc(0);

    client.on("data", (chunk: Buffer) => {
      pendingIn = Buffer.concat([pendingIn, chunk]);
      const forward: Buffer[] = [];
      for (;;) {
        // The startup message has no type byte: length first.
        const header = started ? 5 : 4;
        if (pendingIn.length < header) break;
        const length = started ? pendingIn.readInt32BE(1) + 1 : pendingIn.readInt32BE(0);
        if (pendingIn.length < length) break;
        const message = pendingIn.subarray(0, length);
        pendingIn = pendingIn.subarray(length);
        if (!started) {
          started = true;
          forward.push(message);
          continue;
        }
        // Judged for every message: a Parse names the statement its later Binds run.
        if (isAimed(message, aimed, matches) && swallowing === null && queue.length > 0) {
          const fault = queue.shift()!;
          applied[fault]++;
          if (fault === "cut") {
            // What went before it still reaches the server; the statement does not.
            if (forward.length > 0) upstream.write(Buffer.concat(forward));
            cut();
            return;
          }
          swallowing = fault;
        }
        forward.push(message);
      }
      if (forward.length > 0) upstream.write(Buffer.concat(forward));
    });

    upstream.on("data", (chunk: Buffer) => {
      if (swallowing === null) {
        client.write(chunk);
        return;
      }
      pendingOut = Buffer.concat([pendingOut, chunk]);
      while (pendingOut.length >= 5) {
        const length = pendingOut.readInt32BE(1) + 1;
        if (pendingOut.length < length) break;
        const type = String.fromCharCode(pendingOut[0]);
        pendingOut = pendingOut.subarray(length);
        if (type === "Z") {
          // The server has finished the statement (committed it): the client never hears.
          if (swallowing === "delay-cut") setTimeout(cut, options.delayMs ?? 200);
          else cut();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  // The embedded server is reached by its socket directory (`?host=/dir`): the proxy's own URL is TCP.
  url.searchParams.delete("host");
  return {
    url: url.toString(),
    inject(fault, count = 1) {
      for (let i = 0; i < count; i++) queue.push(fault);
    },
    applied,
    pending: () => queue.length,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a frontend message runs a statement of a matching text (recording prepared names). */
function isAimed(message: Buffer, aimed: Set<string>, matches: (sql: string) => boolean): boolean {
  const type = String.fromCharCode(message[0]);
  const body = message.subarray(5);
  const cstring = (from: number) => {
    const end = body.indexOf(0, from);
    return { text: body.subarray(from, end).toString("utf8"), next: end + 1 };
  };
  if (type === "Q") return matches(cstring(0).text);
  if (type === "P") {
    const name = cstring(0);
    const query = cstring(name.next).text;
    if (!matches(query)) return false;
    if (name.text !== "") aimed.add(name.text);
    return true;
  }
  if (type === "B") {
    const portal = cstring(0);
    const statement = cstring(portal.next).text;
    // An unnamed statement's Parse came just before and was judged already.
    return statement !== "" && aimed.has(statement);
  }
  return false;
}
