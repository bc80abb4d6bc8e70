import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { sleep } from "./stats.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GUARD = fileURLToPath(new URL("./orphanGuard.ts", import.meta.url));

/**
 * The node flags `npm start` gives the service (package.json's `start`, e.g. its heap cap), so the
 * bench measures the service as it is run (docs/operations.md, "Memory").
 */
export const SERVICE_NODE_FLAGS = nodeFlagsOf(
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).scripts.start,
);

/** `exec node --a --b bin/pms.js serve` -> ["--a", "--b"]. */
export function nodeFlagsOf(command: string): string[] {
  const flags = /\bnode\s+(.*?)\s*\bbin\/pms\.js\b/.exec(command)?.[1] ?? "";
  return flags.split(/\s+/).filter(Boolean);
}

export interface Child {
  name: string;
  pid: number;
  url: string;
  /** The last lines the child printed, and how many lines look like warnings or errors. */
  output(): { tail: string[]; problems: number };
  stop(): Promise<void>;
}

const running = new Set<Child>();

/** Every child still running: stopped by the bench's cleanup whatever happened. */
export async function stopAllChildren(): Promise<void> {
  await Promise.allSettled([...running].map((c) => c.stop()));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node <script>` (Node strips the types itself; one process,
 * so the pid is the service and /proc/<pid> measures it), then waits for `readyPath` to answer 200.
 */
export async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  options: { readyPath?: string; readyTimeoutMs?: number; cwd?: string } = {},
): Promise<Child> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The service (external or embedded) runs with npm start's flags; BENCH_SERVICE_NODE_ARGS adds
  // to them, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
  const extra =
    name.startsWith("service") || name === "embedded"
      ? [...SERVICE_NODE_FLAGS, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)]
      : [];
  const proc: ChildProcess = spawn(process.execPath, [...extra, "--import", GUARD, script], {
    cwd: options.cwd ?? ROOT,
    env: {
      ...process.env,
      ...env,
      HOST: "127.0.0.1",
      PORT: String(port),
      BENCH_PARENT_PID: String(process.pid),
      NODE_ENV: "production",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tail: string[] = [];
  let problems = 0;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (!line.trim()) continue;
      if (/"level":(40|50|60)|error|warn/i.test(line)) problems++;
      tail.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
      if (tail.length > 40) tail.shift();
    }
  };
  proc.stdout?.on("data", collect);
  proc.stderr?.on("data", collect);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    proc.on("exit", () => {
      exited = true;
      resolve();
    });
  });

  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    url,
    output: () => ({ tail: [...tail], problems }),
    async stop() {
      running.delete(child);
      if (exited) return;
      proc.kill("SIGTERM");
      const killed = await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)]);
      if (!killed) {
        proc.kill("SIGKILL");
        await Promise.race([exit, sleep(2000)]);
      }
    },
  };
  running.add(child);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  const readyPath = options.readyPath ?? "/api/health/ready";
  for (;;) {
    if (exited) {
      running.delete(child);
      throw new Error(`${name} exited during start:\n${tail.join("\n")}`);
    }
    try {
      const res = await fetch(url + readyPath, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`${name} not ready after ${options.readyTimeoutMs ?? 90_000} ms:\n${tail.join("\n")}`);
    }
    await sleep(200);
  }
}

/**
 * Runs `node <service flags> <script>` to completion (killed after `timeoutMs`); `onStart` gets the
 * pid (to sample its memory). Resolves with the JSON the script printed on a `BENCH_RESULT ` line.
 */
export async function runScript(
  name: string,
  script: string,
  env: Record<string, string>,
  timeoutMs: number,
  onStart: (pid: number) => void = () => {},
): Promise<Record<string, any>> {
  // With the service's node flags: a rebuild runs in the service's projector or in `npm run pms`,
  // both with them (docs/operations.md, "Memory").
  const proc = spawn(process.execPath, [...SERVICE_NODE_FLAGS, "--import", GUARD, script], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_PARENT_PID: String(process.pid) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = async () => {
    proc.kill("SIGKILL");
  };
  const handle: Child = {
    name,
    pid: proc.pid ?? -1,
    url: "",
    output: () => ({ tail: [], problems: 0 }),
    stop,
  };
  running.add(handle);
  onStart(proc.pid ?? -1);
  let out = "";
  proc.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  proc.stderr.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const timer = setTimeout(() => {
    out += `\n${name}: killed after ${timeoutMs} ms`;
    proc.kill("SIGKILL");
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => proc.on("exit", (c) => resolve(c)));
  clearTimeout(timer);
  running.delete(handle);
  const line = out.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  if (code !== 0 || !line) throw new Error(`${name} exited with ${code}:\n${out.slice(-3000)}`);
  return JSON.parse(line.slice("BENCH_RESULT ".length));
}
