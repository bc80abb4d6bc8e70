import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * PDF renders off the API's event loop (docs/pdf.md, "Render threads"): a render is ~60 ms of
 * synchronous layout that would hold every other request, and it leaves megabytes of garbage that
 * the API's heap would keep until its next major GC. Each thread renders one document at a time
 * with a capped heap, so its garbage is collected within that cap; a thread that dies is
 * replaced and its job sent once more, to the new thread.
 */

/** One thread less than the cores (PostgreSQL and the API need them too), at least one, at most two. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
/** Heap caps of a render thread: a contract needs a few MB; the cap keeps its memory flat. */
const LIMITS = { maxOldGenerationSizeMb: 64 };

interface Job {
  id: number;
  module: string;
  name: string;
  input: unknown;
  resolve: (bytes: Buffer) => void;
  reject: (error: Error) => void;
  /** Sent again once, to a new thread, when its thread died under it. */
  retried?: boolean;
}

interface Thread {
  worker: Worker;
  job: Job | null;
}

const threads: Thread[] = [];
const queue: Job[] = [];
let nextId = 1;

function spawn(): Thread {
  // No inherited node flags: the thread loads TypeScript itself, and a parent's preloads
  // (`--import`) are not for it.
  const worker = new Worker(new URL("./renderThread.mjs", import.meta.url), {
    resourceLimits: LIMITS,
    execArgv: [],
  });
  const thread: Thread = { worker, job: null };
  // An idle thread never keeps the process alive.
  worker.unref();
  worker.on("message", (message: { id: number; bytes?: Uint8Array; error?: string }) => {
    const job = thread.job;
    thread.job = null;
    worker.unref();
    if (job && job.id === message.id) {
      if (message.bytes)
        job.resolve(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
      else job.reject(new Error(`PDF render failed: ${message.error}`));
    }
    next();
  });
  const fail = (error: Error) => {
    threads.splice(threads.indexOf(thread), 1);
    const job = thread.job;
    thread.job = null;
    if (job && !job.retried) {
      job.retried = true;
      queue.unshift(job);
    } else job?.reject(new Error(`PDF render thread stopped: ${error.message}`));
    next();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => {
    if (threads.includes(thread)) fail(new Error(`exit code ${code}`));
  });
  threads.push(thread);
  return thread;
}

function next(): void {
  while (queue.length > 0) {
    const thread = threads.find((t) => t.job === null) ?? (threads.length < THREADS ? spawn() : null);
    if (!thread) return;
    const job = queue.shift() as Job;
    thread.job = job;
    // A thread at work keeps the process alive until it answers.
    thread.worker.ref();
    thread.worker.postMessage({ id: job.id, module: job.module, name: job.name, input: job.input });
  }
}

/**
 * Renders `input` with the export `name` of `module` (a file URL of this service, its function
 * taking plain data and returning PDF bytes) on a render thread.
 */
export function renderInThread(module: string, name: string, input: unknown): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    queue.push({ id: nextId++, module, name, input, resolve, reject });
    next();
  });
}
