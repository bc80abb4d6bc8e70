import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

/** A process a test starts (`npm start`, `pms serve --role ...`) and reads as a person would. */
export interface ServiceProcess {
  name: string;
  proc: ChildProcess;
  stdout(): string;
  /** stdout and stderr, interleaved as they came. */
  output(): string;
  /** The exit code once it exited (null: by a signal), undefined while it runs. */
  exited(): number | null | undefined;
  exit: Promise<number | null>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** The environment of a user's shell: nothing of this run's database, configuration, vitest or npm. */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([k, v]) =>
      v !== undefined &&
      !/^(HOST|PORT|DATABASE_URL|EVENTSTORE_URL|PMS_.*|LOG_.*|TEST_DATABASE_URL|NODE_OPTIONS|VITEST.*|npm_.*)$/.test(
        k,
      ),
  ) as [string, string][];
  return { ...Object.fromEntries(kept), ...extra };
}

export function startProcess(
  name: string,
  command: string[],
  options: { env: Record<string, string>; cwd?: string },
): ServiceProcess {
  const proc = spawn(command[0], command.slice(1), { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let all = "";
  proc.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
    all += c.toString();
  });
  proc.stderr?.on("data", (c: Buffer) => {
    all += c.toString();
  });
  let code: number | null | undefined;
  const exit = new Promise<number | null>((done) =>
    proc.on("exit", (c) => {
      code = c;
      done(c);
    }),
  );
  return {
    name,
    proc,
    stdout: () => out,
    output: () => all,
    exited: () => code,
    exit,
    async stop() {
      if (code === undefined) proc.kill("SIGTERM");
      return exit;
    },
  };
}

/**
 * Polls `check` until it gives a value; fails at once, with its output, when one of `watched`
 * exits meanwhile, and after `ms` with everyone's output.
 */
export async function until<T>(
  what: string,
  watched: ServiceProcess[],
  check: () => Promise<T | null>,
  ms = 120_000,
): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(250)) {
    const dead = watched.find((p) => p.exited() !== undefined);
    if (dead) throw new Error(`${dead.name} exited (${dead.exited()}):\n${dead.output()}`);
    const found = await check().catch(() => null);
    if (found !== null) return found;
  }
  throw new Error(
    `${what}: not within ${ms / 1000} s\n${watched.map((p) => `${p.name}:\n${p.output()}`).join("\n")}`,
  );
}

/** Until `GET {url}/api/health/ready` answers 200. */
export const untilReady = (url: string, watched: ServiceProcess[], ms?: number) =>
  until(
    `${url} ready`,
    watched,
    async () => ((await fetch(`${url}/api/health/ready`)).status === 200 ? true : null),
    ms,
  );
