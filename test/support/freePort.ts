import { createServer } from "node:net";

/** A TCP port free on 127.0.0.1 right now (for a service a test starts as a process). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
