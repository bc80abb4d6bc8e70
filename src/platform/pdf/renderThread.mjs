// A PDF render thread (src/platform/pdf/renderInThread.ts, docs/pdf.md): loads the service's
// TypeScript as bin/pms.js does (Node's own type stripping), then renders each job it is sent with
// the named export of the named module of this service, one at a time.
import { parentPort } from "node:worker_threads";

const modules = new Map();
parentPort.on("message", async ({ id, module, name, input }) => {
  try {
    if (!modules.has(module)) modules.set(module, import(module));
    const render = (await modules.get(module))[name];
    const bytes = await render(input);
    // A copy of its own, so the transfer never detaches a pooled buffer.
    const out = new Uint8Array(bytes);
    parentPort.postMessage({ id, bytes: out }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
